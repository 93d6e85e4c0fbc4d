"""Distillation (attentive/distill/__init__.py): the soft-label term pulls a student toward its teacher, soft labels
are cached by content, unlabelled rows need a distillation term, and a student trains, exports, serves and explains like
any model."""
from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
import torch

import attentive
from attentive import distill as distillation
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.data.example import Dataset, Example
from attentive.errors import AttentiveError
from attentive.training.terms import SoftTargets

from ..helpers import start, tiny_overrides

pytestmark = pytest.mark.slow  # distillation trains teachers and students

STUDENT = [*tiny_overrides("default"), "tokenizer.prune_pieces=false", "tokenizer.pieces=false",
           "tokenizer.keep_known=false", "wide.buckets=4096"]


@pytest.fixture(scope="module")
def teacher(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("teacher") / "run"
    attentive.train(sst2_small, "avg", folder, overrides=tiny_overrides("avg"), show_progress=False)
    return folder


def test_the_soft_labels_pull_the_student_toward_a_hand_made_teacher(sst2_small):
    texts = [ex.text for ex in sst2_small.splits["train"]]
    gold = np.array([sst2_small.labels.index(ex.label) for ex in sst2_small.splits["train"]])
    teacher = np.where(gold[:, None] == np.arange(2), 0.6, 0.4).astype(np.float32)  # right, but far from sure
    distance, sure = {}, {}
    for weight in (0.0, 5.0):
        model = attentive.train(sst2_small, "default", overrides=STUDENT + ["train.epochs=8", "wide.prior=false"],
                                terms=[SoftTargets(teacher, temperature=1.0, weight=weight)], show_progress=False)
        raw = model.temperature * np.log(model.predict_proba(texts))  # before calibration: what the term trained
        # (no linear model folded in after training: it is fitted on the hard labels, not what the term trains)
        probabilities = np.exp(raw) / np.exp(raw).sum(1, keepdims=True)
        distance[weight] = float(np.abs(probabilities - teacher).mean())
        sure[weight] = float(probabilities[np.arange(len(gold)), gold].mean())
    assert distance[5.0] < 0.7 * distance[0.0] and sure[5.0] < sure[0.0]


def test_logit_mse_is_zero_for_a_student_that_matches_the_teacher_up_to_a_constant():
    teacher = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]], dtype=np.float32)
    logits = torch.log(torch.as_tensor(teacher)) + torch.tensor([[3.0], [-1.0]])
    out = type("Out", (), {"logits": logits})()
    rows = {"rows": torch.tensor([0, 1])}
    assert float(SoftTargets(teacher, loss="mse")(out, None, rows)) == pytest.approx(0.0, abs=1e-6)
    assert float(SoftTargets(teacher, loss="kl")(out, None, rows)) == pytest.approx(0.0, abs=1e-6)
    assert float(SoftTargets(teacher[::-1].copy(), loss="kl")(out, None, rows)) > 0.1


def test_unlabelled_rows_are_refused_without_a_distillation_term(sst2_small):
    splits = {**sst2_small.splits, "train": [*sst2_small.splits["train"], Example("an unlabelled sentence")]}
    data = Dataset("with_unlabelled", splits, sst2_small.labels)
    with pytest.raises(AttentiveError, match="1 training rows have no label"):
        attentive.train(data, "avg", overrides=tiny_overrides("avg"), show_progress=False)


def test_soft_labels_are_computed_once_per_teacher_texts_and_labels(teacher, sst2_small, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTIVE_CACHE", str(tmp_path / "cache"))
    texts = [ex.text for ex in sst2_small.splits["dev"][:40]]
    loads = []
    real_load = distillation.load_teacher
    monkeypatch.setattr(distillation, "load_teacher", lambda folder: loads.append(folder) or real_load(folder))
    first = distillation.soft_labels([teacher], texts, sst2_small.labels)
    again = distillation.soft_labels([teacher], texts, sst2_small.labels)
    assert len(loads) == 1 and np.array_equal(first, again)
    np.testing.assert_allclose(first, attentive.load(teacher).predict_proba(texts), atol=1e-6)
    distillation.soft_labels([teacher], texts[:-1], sst2_small.labels)  # other texts: computed again
    reversed_labels = distillation.soft_labels([teacher], texts, sst2_small.labels[::-1])  # other column order
    assert len(loads) == 3 and np.allclose(reversed_labels, first[:, ::-1])
    retrained = tmp_path / "retrained"
    attentive.train(sst2_small, "avg", retrained, overrides=tiny_overrides("avg") + ["train.seed=1"],
                    show_progress=False)
    both = distillation.soft_labels([teacher, retrained], texts, sst2_small.labels)  # another teacher
    assert len(loads) == 5
    np.testing.assert_allclose(both, (first + attentive.load(retrained).predict_proba(texts)) / 2, atol=1e-6)


def test_a_teacher_of_other_labels_is_refused(teacher, sst2_small, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTIVE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(AttentiveError, match="same labels"):
        distillation.soft_labels([teacher], ["a fine film"], ["negative", "neutral", "positive"])


def test_the_transfer_set_adds_unlabelled_augmentations_and_texts(sst2_small):
    how = distillation.Distillation(augmentation=distillation.Augmentation(copies=2, replace=0.0))
    given = ["an unlabelled review of a film", sst2_small.splits["train"][0].text, " "]
    transfer, counts = distillation.transfer_set(sst2_small, how, given)
    train = transfer.splits["train"]
    assert counts["unlabelled"] == 1 and counts["blank"] == 1 and counts["already_there"] >= 1
    assert counts["augmented"] + counts["unlabelled"] == len(train) - 600
    assert train[:600] == sst2_small.splits["train"]
    added = train[600:]
    assert added and all(ex.label is None for ex in added) and added[-1].text == "an unlabelled review of a film"
    assert len({ex.text for ex in train}) == len(train)  # nothing twice
    assert distillation.transfer_set(sst2_small, how)[0].splits["train"] == train[:-1]  # seeded: the same again


@pytest.mark.parametrize("copies, train_size, unlabelled, budget, made", [
    (8, 6_920, 0, 640_000, 8),  # SST-2: every copy fits the student's 10,000 steps of 64 texts
    (8, 338_000, 0, 640_000, 0),  # News's headlines alone nearly fill it
    (8, 100_000, 40_000, 640_000, 5),  # the unlabelled texts count too
    (8, 338_000, 0, None, 8),  # a student without max_updates reads whatever it is given
])
def test_augmented_copies_stay_within_what_the_student_reads(copies, train_size, unlabelled, budget, made):
    assert distillation.affordable_copies(copies, train_size, unlabelled, budget) == made


def test_the_transfer_set_makes_only_the_copies_the_budget_affords(sst2_small):
    how = distillation.Distillation(augmentation=distillation.Augmentation(copies=8, replace=0.0))
    transfer, counts = distillation.transfer_set(sst2_small, how, ["an unlabelled review"], budget=600 * 3 + 1)
    assert counts["copies"] == 2  # (1,801 - 600 training texts - 1 unlabelled) // 600
    assert counts["augmented"] + counts["already_there"] + counts["unlabelled"] == 2 * 600 + 1
    assert len(transfer.splits["train"]) <= 600 * 3 + 1


def test_a_student_distils_exports_serves_and_explains_from_the_cli(teacher, sst2_small, tmp_path, monkeypatch,
                                                                    capsys):
    monkeypatch.setenv("ATTENTIVE_CACHE", str(tmp_path / "cache"))
    student = tmp_path / "student"
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps({"text": ex.text, "label": ex.label}) + "\n"
                            for ex in sst2_small.splits["train"]))
    unlabelled = tmp_path / "more.jsonl"
    unlabelled.write_text("".join(json.dumps({"text": ex.text}) + "\n" for ex in sst2_small.splits["test"]))
    args = ["distill", str(teacher), "--train", str(data), "--out", str(student), "--unlabelled", str(unlabelled),
            "--augment", "3", "--set", "train.max_updates=50"]  # 50 steps of 32 texts read 1,600: 1 copy fits
    assert main([*args, *[x for s in STUDENT for x in ("--set", s)]]) == 0
    assert "1 augmented copies of each training text, not 3" in capsys.readouterr().out
    config = json.loads((student / "config.json").read_text())
    assert config["recipe"]["encoder"]["type"] == "identity"
    transfer = config["distillation"]["transfer"]
    assert transfer["copies"] == 1 and config["distillation"]["augmentation"]["copies"] == 3
    assert transfer["unlabelled"] + transfer["already_there"] >= 150
    assert transfer["labelled"] == 540  # a tenth of the file held out as dev
    assert config["distillation"]["teachers"] == [str(teacher)]
    assert main(["distill", str(teacher), "--train", str(data), "--out", str(teacher), "--overwrite"]) == 2
    assert "input" in capsys.readouterr().err  # never over its teacher
    assert (teacher / "model.safetensors").exists()
    assert main(["evaluate", str(student), "--file", str(data)]) == 0
    assert main(["explain", str(student), "a gorgeous , witty film"]) == 0
    exported = tmp_path / "exported"
    assert main(["export", str(student), "--out", str(exported), "--int8"]) == 0
    texts = [ex.text for ex in sst2_small.splits["test"][:20]]
    np.testing.assert_allclose(onnx_backend.load(exported, int8=False).predict_proba(texts),
                               attentive.load(student).predict_proba(texts), atol=1e-4)
    process, url = start(exported)
    try:
        [answer] = httpx.post(f"{url}/explain", json={"texts": ["a gorgeous , witty film"]}).json()
        assert answer["label"] in sst2_small.labels and answer["words"]
    finally:
        process.terminate()
        process.wait(10)
