"""No internal error on bad input, nothing silently ignored in training input and recipes (issue 43, items 3, 4 and
7): texts that are not valid Unicode, damaged studies, recipe widths and networks too large for the machine,
duplicate YAML keys, a label set among single labels, infinite labels and thread counts of 0 are one line naming
what to fix; cv and distill say what is true."""
from __future__ import annotations

import json
import os
import sqlite3

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.data.readers import read_table
from attentive.data.registry import load_files, load_texts
from attentive.errors import AttentiveError, DataError
from attentive.folders.manifest import MANIFEST, Owner, record
from attentive.recipes.loader import load_recipe
from attentive.util.checks import ArgumentError
from attentive.util.threads import use_threads

from ..helpers import TINY, memory_bound

TEXTS = [f"a {'good' if i % 2 else 'dull'} film , take {i}" for i in range(24)]
LABELS = ["pos" if i % 2 else "neg" for i in range(24)]


def refused(capsys, *args) -> str:
    """The one line `attentive ARGS` printed on stderr, after checking that it exited with 2 (the user's mistake)."""
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    error = capsys.readouterr().err.strip()
    assert status == 2 and len(error.splitlines()) == 1 and error.startswith("error: "), (status, error)
    return " ".join(error.split())


def jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_a_lone_surrogate_in_training_texts_is_one_line_naming_it(tmp_path, capsys):
    texts = [*TEXTS[:5], "a fine \ud800 film", *TEXTS[6:]]
    with pytest.raises(ArgumentError, match=r"^texts\[5\] is not valid Unicode: lone surrogate U\+D800 at character 8"):
        attentive.train(texts=texts, labels=LABELS, overrides=TINY, show_progress=False)
    with pytest.raises(ArgumentError, match=r"^dev_texts\[0\] is not valid Unicode"):
        load_texts(TEXTS, LABELS, dev_texts=["\udcff"], dev_labels=["pos"])
    with pytest.raises(ArgumentError, match=r"^labels\[1\] is not valid Unicode"):
        load_texts(TEXTS[:2], ["pos", "p\ud800s"])
    # a JSONL file's \ud800 escape: the file and line, in the CLI as everywhere
    rows = [{"text": text, "label": label} for text, label in zip(TEXTS, LABELS)]
    rows[3]["text"] = "a fine \ud800 film"
    error = refused(capsys, "train", "--train", jsonl(tmp_path / "train.jsonl", rows), "--out", tmp_path / "run")
    assert "train.jsonl:4: column 'text' is not valid Unicode: lone surrogate U+D800" in error
    rows[3] = {"text": "fine", "label": ["pos", "\ud800"]}
    with pytest.raises(DataError, match="bad.jsonl:4: column 'label' holds a label in its list that is not valid"):
        read_table(jsonl(tmp_path / "bad.jsonl", rows), label_separator="|")
    assert not (tmp_path / "run").exists()


def _damaged_database(path) -> None:
    """An SQLite database whose pages past the header are overwritten."""
    connection = sqlite3.connect(path)
    connection.execute("create table t (x)")
    connection.executemany("insert into t values (?)", [("a" * 1000,)] * 50)
    connection.commit()
    connection.close()
    data = bytearray(path.read_bytes())
    data[100:4000] = bytes(range(256)) * 15 + bytes(range(60))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("make, message", [
    (lambda path: path.write_bytes(b"not a database " * 64), "study.db: not a study (not an SQLite database): give "
                                                             "--overwrite to start the study over, or another --out"),
    (lambda path: os.symlink("/dev/zero", path), "holds files attentive tune did not write ('study.db')"),
    (_damaged_database, "study.db: a damaged study (database disk image is malformed): give --overwrite"),
    (lambda path: path.mkdir(), "holds files attentive tune did not write ('study.db')"),
])
def test_a_damaged_or_foreign_study_is_one_line(tmp_path, capsys, make, message):
    out = tmp_path / "tune"
    out.mkdir()
    make(out / "study.db")
    record(out, Owner.of("tune", out), live=["study.db"])  # as tune records the study it made, then damaged
    error = refused(capsys, "tune", "--dataset", "sst2_sample", "--out", out, "--budget", "30s", "--trials", "1",
                    *[arg for setting in TINY for arg in ("--set", setting)])
    assert message in error
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "study.db"]  # no trial ran, nothing written beside it


@pytest.mark.parametrize("setting, message", [
    ("embedder.dim=100000000", "embedder.dim must be an integer ≥ 1 and ≤ 65536, not 100000000"),
    ("head.hidden=100000000000", "head.hidden must be an integer ≥ 0 and ≤ 65536, not 100000000000"),
    ("embedder.distilled_dim=10000000", "embedder.distilled_dim must be an integer ≥ 1 and ≤ 65536"),
    ("pooler.heads=1000000", "pooler.heads must be an integer ≥ 1 and ≤ 65536"),
    ("wide.buckets=100000000", "wide.buckets must be at most 16,777,216"),
])
def test_recipe_widths_have_an_upper_bound(tmp_path, capsys, setting, message):
    with pytest.raises(AttentiveError, match=f"^--set {setting}: {message}"):
        load_recipe("default", [setting])
    with memory_bound():  # without the bound the width would reach an allocation: MemoryError, not a hung machine
        error = refused(capsys, "train", "--dataset", "sst2_sample", "--out", tmp_path / "run", "--set", setting)
    assert message in error and not (tmp_path / "run").exists()


def test_a_network_too_large_for_the_memory_is_one_line_naming_the_setting(sst2_small, tmp_path, monkeypatch):
    from attentive.models.classifier import build_model
    from attentive.training import size

    # the estimate is the network's own count, made on the meta device before any weight exists
    recipe = load_recipe("opinion", TINY)
    real = build_model(recipe, 500, 2, aspects=0)
    assert size.check_size(recipe, 500, 2, 0, "cpu") == sum(p.numel() for p in real.parameters())
    monkeypatch.setattr(size, "device_memory", lambda device: 64 * 2**20)  # a machine of 64 MiB
    with pytest.raises(AttentiveError, match=r"^embedder\.dim=4096 \(x [\d,]+ words\): the network would hold "
                                             r"[\d,]+ parameters, [\d,]+ of them in the embedder; training them "
                                             r"takes at least [\d.]+ GiB .* more than the 0\.1 GiB of this machine"):
        attentive.train(sst2_small, "opinion", tmp_path / "run", overrides=[*TINY, "embedder.dim=4096"],
                        show_progress=False)
    with pytest.raises(AttentiveError, match=r"^encoder\.hidden=8192: the network would hold .* in the encoder"):
        attentive.train(sst2_small, "opinion", overrides=[*TINY, "encoder.hidden=8192"], show_progress=False)
    assert not (tmp_path / "run" / "config.json").exists()


def test_a_key_given_twice_in_yaml_is_refused_naming_the_key_and_line(tmp_path):
    recipe = tmp_path / "twice.yaml"
    recipe.write_text("encoder: {type: bigru, hidden: 16}\npooler: {type: lama}\nhead: {type: mlp}\n"
                      "train:\n  lr: 0.1\n  epochs: 2\n  lr: 0.01\n")
    with pytest.raises(AttentiveError, match=r"twice\.yaml:7: not valid YAML \(key 'lr' given twice, first on line "
                                             r"5: keep one\)"):
        load_recipe(str(recipe))
    with pytest.raises(AttentiveError, match=r"--set value '\{pos: 2, pos: 3\}': not valid YAML \(key 'pos' given "
                                             "twice: keep one\\)"):
        load_recipe("default", ["train.class_weight={pos: 2, pos: 3}"])
    assert load_recipe("default", ["train.class_weight={pos: 2, neg: 3}"]).train.class_weight == {"pos": 2,
                                                                                                  "neg": 3}


def test_one_label_set_does_not_turn_a_single_label_file_multi_label(tmp_path, capsys):
    rows = [{"text": text, "label": label} for text, label in zip(TEXTS, LABELS)]
    rows[6]["label"] = ["pos", "neg"]
    path = jsonl(tmp_path / "train.jsonl", rows)
    with pytest.raises(DataError, match=r"train\.jsonl:7: column 'label' holds a list of labels here but a single "
                                        "label on line 1: a file is single-label or multi-label"):
        read_table(path)
    error = refused(capsys, "train", "--train", path, "--out", tmp_path / "run")
    assert "train.jsonl:7: column 'label' holds a list of labels here but a single label on line 1" in error
    # said explicitly (a label separator), every label is a set: a single one a set of one
    assert [ex.labels for ex in read_table(path, label_separator="|").examples[5:8]] == [("pos",), ("neg", "pos"),
                                                                                        ("pos",)]
    # a single label among sets, and splits of the two kinds, are refused alike
    sets = jsonl(tmp_path / "sets.jsonl", [{"text": "a", "label": ["x"]}, {"text": "b", "label": "y"}])
    with pytest.raises(DataError, match=r"sets\.jsonl:2: column 'label' holds a single label here but a list of "
                                        "labels on line 1"):
        read_table(sets)
    dev = jsonl(tmp_path / "dev.jsonl", [{"text": "a", "label": ["pos"]}])
    with pytest.raises(AttentiveError, match="dev holds label sets .* but train single labels"):
        load_files(_single(tmp_path), dev=dev)
    with pytest.raises(ArgumentError, match=r"^labels\[2\] is a label set \(a list\) but labels\[0\] is a single "
                                            "label"):
        load_texts(["a", "b", "c"], ["x", "y", ["x", "y"]])


def _single(tmp_path) -> str:
    path = tmp_path / "single.tsv"
    path.write_text("text\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in zip(TEXTS, LABELS)))
    return str(path)


@pytest.mark.parametrize("bad, message", [
    (float("inf"), r"labels\[3\] is inf: not a label \(a number label must be finite\)"),
    (np.float32("-inf"), r"labels\[3\] is -inf: not a label"),
    (float("nan"), r"labels\[3\] is nan: every text needs a label"),
    (["pos", float("inf")], r"labels\[3\] holds a label that is inf: not a label"),
    (["pos", None], r"labels\[3\] holds a label that is None: each label of a set must be given"),
])
def test_an_infinite_or_missing_label_is_refused_naming_its_index(bad, message):
    labels = [1.0, 0.0, 1.0, bad, *[float(i % 2) for i in range(20)]]
    texts = TEXTS[:len(labels)]
    with pytest.raises(ArgumentError, match=f"^{message}"):
        attentive.train(texts=texts, labels=labels, overrides=TINY, show_progress=False)


def test_thread_counts_are_checked_in_python_as_in_the_cli(tmp_path):
    for threads in (0, -1, 1.5, True):
        with pytest.raises(ArgumentError, match=rf"^threads={threads!r}: must be an integer ≥ 1"):
            onnx_backend.load(tmp_path, threads=threads)  # refused before the folder is read
        with pytest.raises(ArgumentError, match=rf"^threads={threads!r}"):
            use_threads(threads)
        with pytest.raises(ArgumentError, match=rf"^threads={threads!r}"):
            attentive.cv(texts=TEXTS, labels=LABELS, folds=2, threads=threads, jobs=2)
    with pytest.raises(AttentiveError, match="config.json: missing"):
        onnx_backend.load(tmp_path, threads=1)  # a good count: the folder is what is wrong


def _tsv(path, rows) -> str:
    path.write_text("text\tlabel\n" + "".join(f"{text}\t{label}\n" for text, label in rows))
    return str(path)


def test_cv_on_too_few_rows_says_what_is_true(tmp_path, capsys):
    two = _tsv(tmp_path / "two.tsv", [("good", "pos"), ("bad", "neg")])
    error = refused(capsys, "cv", "--train", two, "--folds", "2", "--out", tmp_path / "out")
    assert "--folds 2 or fewer" not in error
    assert "label 'neg' has 1 row: each fold tests every label, so a label needs a row for each of the folds (2 at " \
           "least): give more rows of it (2 labels are short)" in error
    four = _tsv(tmp_path / "four.tsv", [("good", "pos"), ("bad", "neg"), ("fine", "pos"), ("poor", "neg")])
    error = refused(capsys, "cv", "--train", four, "--folds", "2", "--out", tmp_path / "out")
    assert "4 rows are too few for 2 folds: fold 1 keeps 1 training row(s) of 1 label(s) and 1 dev row(s) once its " \
           "2 test rows are held out" in error and "give more rows" in error
    three = _tsv(tmp_path / "three.tsv", [("good", "pos")] * 3 + [("bad", "neg")] * 2)
    assert "label 'neg' has 2 rows, fewer than the 3 folds (each fold tests every label): give --folds 2 or fewer" \
        in refused(capsys, "cv", "--train", three, "--folds", "3", "--out", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_cv_says_multi_label_data_is_not_supported(tmp_path, capsys):
    rows = [{"text": text, "label": [label, "film"]} for text, label in zip(TEXTS, LABELS)]
    error = refused(capsys, "cv", "--train", jsonl(tmp_path / "sets.jsonl", rows), "--out", tmp_path / "out")
    assert "sets.jsonl: its labels are sets (multi-label data), which cross-validation does not support" in error
    assert "have no label" not in error


def test_distill_offers_no_resume_it_lacks(tmp_path, capsys):
    out = tmp_path / "student"
    out.mkdir()
    (out / "config.json").write_text("{}")  # a model folder's name, not distill's content
    error = refused(capsys, "distill", tmp_path / "teacher", "--dataset", "sst2_sample", "--out", out)
    assert "--overwrite" in error and "--resume" not in error
