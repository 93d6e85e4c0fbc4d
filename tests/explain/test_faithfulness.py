"""Faithfulness on show (issue 34, item 3): training ends with a cheap deletion test on a seeded dev sample, kept in
config.json as `faithfulness`; it survives save, load and export, and `attentive explain`, the HTML report and the
server's /info (PyTorch and exported) show it in one line. A model folder without it (older models) shows nothing.

Issue 45, item 4: the test runs on any backend (`Answerer.faithfulness`): an export's is measured on the export (its
graph in ONNX Runtime answers the reduced texts, its occlusion evidence ranks the words), `attentive evaluate` reports
the one of the model it evaluates, and an export's copy of the training record says it is the PyTorch model's."""
from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

import attentive
from attentive.answer import deletion, onnx_backend
from attentive.answer.types import faithfulness_line
from attentive.cli import main
from attentive.serving.server import create_app
from attentive.training.pipeline import measure_faithfulness

from ..helpers import tiny_overrides, write_tsv

OVERRIDES = [*tiny_overrides("default"), "tokenizer.pieces=false", "tokenizer.prune_pieces=false",
             "tokenizer.keep_known=false", "embedder.vectors=random", "wide.buckets=4096", "train.epochs=1"]


@pytest.fixture(scope="module")
def run(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("faithful") / "run"
    attentive.train(sst2_small, "default", folder, overrides=OVERRIDES, show_progress=False)
    return folder


def test_training_records_the_deletion_test_in_config_json(run, sst2_small):
    record = json.loads((run / "config.json").read_text())["faithfulness"]
    assert record["dev_texts"] == len([ex for ex in sst2_small.splits["dev"] if len(ex.text.split()) >= 2])
    assert record["fraction"] == 0.05 and set(record["flipped"]) == {"attention", "random", "evidence"}
    assert all(0 <= share <= 1 for share in record["flipped"].values())
    # removing the words of most evidence changes far more answers than removing as many random words
    assert record["flipped"]["evidence"] >= record["flipped"]["random"] + 0.1
    assert "calibration" in json.loads((run / "config.json").read_text())  # the step before it is kept


def test_it_survives_load_and_export_and_shows_in_one_line(run, tmp_path):
    pytest.importorskip("onnxruntime")
    from attentive.onnx_format.write import export

    model = attentive.load(run)
    record = model.config["faithfulness"]
    line = faithfulness_line(model.config)
    shares = record["flipped"]
    assert line == (f"on dev, removing the 5% most attended words changed {100 * shares['attention']:.0f}% of "
                    f"answers; 5% random words, {100 * shares['random']:.0f}%; 5% words of most evidence, "
                    f"{100 * shares['evidence']:.0f}%")
    model.save(tmp_path / "again")
    assert attentive.load(tmp_path / "again").config["faithfulness"] == record
    export(model, tmp_path / "exported")
    runtime = onnx_backend.load(tmp_path / "exported")
    copied = {**record, "measured_on": "pytorch before export"}  # the PyTorch model's, and named so
    assert runtime.config["faithfulness"] == copied
    copied_line = faithfulness_line(runtime.config)
    assert copied_line.startswith(line) and "measured on the PyTorch model before export, not on this export" \
        in copied_line
    for served, shown in ((model, (record, line)), (runtime, (copied, copied_line))):
        info = TestClient(create_app(served)).get("/info").json()
        assert (info["faithfulness"], info["faithfulness_line"]) == shown


def test_explain_prints_it_and_the_html_report_shows_it(run, tmp_path, capsys):
    line = faithfulness_line(attentive.load(run).config)
    assert main(["explain", str(run), "a gorgeous , witty film", "--html", str(tmp_path / "x.html")]) == 0
    assert line in capsys.readouterr().out.splitlines()
    assert line in (tmp_path / "x.html").read_text()


def test_a_model_without_it_shows_nothing_and_keeps_working(run, tmp_path, capsys):
    older = tmp_path / "older"
    model = attentive.load(run)
    del model.config["faithfulness"]
    model.save(older)
    assert main(["explain", str(older), "a gorgeous , witty film"]) == 0
    assert "on dev" not in capsys.readouterr().out
    info = TestClient(create_app(attentive.load(older))).get("/info").json()
    assert "faithfulness" not in info and "faithfulness_line" not in info
    assert faithfulness_line({"faithfulness": "garbled"}) is None and faithfulness_line({}) is None


def test_the_deletion_test_is_seeded_and_tells_evidence_from_chance(run, sst2_small):
    """measure_faithfulness through Answerer.faithfulness, on another split and seed: the same figures twice, and the
    words of most evidence, removed, change far more answers than random words."""
    model = attentive.load(run)
    measured = measure_faithfulness(model, sst2_small.splits["test"], seed=3)
    assert measured == measure_faithfulness(model, sst2_small.splits["test"], seed=3)
    assert measured["dev_texts"] == 150 and measured["fraction"] == 0.05
    assert measured["flipped"]["evidence"] >= measured["flipped"]["random"] + 0.1
    assert model.config["faithfulness"]["dev_texts"] == 150


@pytest.fixture(scope="module")
def int8_export(run, tmp_path_factory):
    pytest.importorskip("onnxruntime")
    from attentive.onnx_format.write import export

    return export(attentive.load(run), tmp_path_factory.mktemp("faithful-export") / "onnx", int8=True)


def test_an_exports_faithfulness_is_measured_on_the_export(int8_export, sst2_small, monkeypatch):
    from attentive.answer import inference
    from attentive.answer.onnx_backend import RuntimeModel

    runtime = onnx_backend.load(int8_export)
    assert runtime.graph == "model.int8.onnx"
    answered, reduced, rankings = set(), [], {}
    original_run, original_without, original_rows = RuntimeModel.outputs, deletion.without, deletion.removal_rows

    def run_spy(self, items, *args, **kwargs):
        answered.update(tuple(item.ids) for item in items)
        return original_run(self, items, *args, **kwargs)

    def without_spy(item, positions):
        reduced.append(original_without(item, positions))
        return reduced[-1]

    def rows_spy(probabilities, items, spans, ranked, *args):
        rankings.update(ranked)
        return original_rows(probabilities, items, spans, ranked, *args)

    def no_pytorch(*args, **kwargs):
        raise AssertionError("the export's test ran the PyTorch network")

    monkeypatch.setattr(RuntimeModel, "outputs", run_spy)  # every graph run of the runtime
    monkeypatch.setattr(deletion, "without", without_spy)
    monkeypatch.setattr(deletion, "removal_rows", rows_spy)
    monkeypatch.setattr(inference, "infer", no_pytorch)
    texts = [ex.text for ex in sst2_small.splits["dev"][:60]]
    result = runtime.faithfulness(texts)
    assert result["texts"] == len([t for t in texts if len(t.split()) >= 2]) and result["fraction"] == 0.05
    assert set(result["flipped"]) == {"attention", "random", "evidence"}
    assert all(0 <= share <= 1 for share in result["flipped"].values())
    assert len(reduced) == 3 * result["texts"] and all(tuple(item.ids) in answered for item in reduced)
    # the evidence ranking is the export's own: its graph's linearised evidence in ONNX Runtime
    monkeypatch.setattr(RuntimeModel, "outputs", original_run)
    explanations = [e for e in runtime.explain(texts, top_k=0) if len(e.words) >= 2]
    assert {e.channel_evidence()["attention"]["method"] for e in explanations} == {"linearised"}
    assert all(np.array_equal(order, np.argsort(-e.evidence, kind="stable"))
               for order, e in zip(rankings["evidence"], explanations, strict=True))


@pytest.mark.parametrize("backend", ["pytorch", "export"])
def test_evaluate_reports_the_faithfulness_of_the_model_it_evaluates(backend, run, int8_export, sst2_small,
                                                                     tmp_path, capsys):
    data = write_tsv(tmp_path / "dev.tsv", sst2_small.splits["dev"])
    folder = run if backend == "pytorch" else int8_export
    assert main(["evaluate", str(folder), "--file", str(data), "--output", str(tmp_path / "eval.json")]) == 0
    record = json.loads((tmp_path / "eval.json").read_text())["faithfulness"]
    line = faithfulness_line({"faithfulness": record})
    assert line in capsys.readouterr().out.splitlines()
    assert record["split"] == "test" and line.startswith("on test, removing the 5% most attended words changed")
    assert set(record["flipped"]) == {"attention", "random", "evidence"}
    assert all(0 <= share <= 1 for share in record["flipped"].values())
    trained = json.loads((run / "config.json").read_text())["faithfulness"]
    assert record["texts"] == trained["dev_texts"] == 150
    if backend == "pytorch":  # the same texts, seed and network as at the end of training: the same figures
        assert record["measured_on"] == "pytorch" and "graph" not in record
        assert record["flipped"] == trained["flipped"] and line.endswith("(measured on the PyTorch model)")
    else:
        assert (record["measured_on"], record["graph"]) == ("onnx", "model.int8.onnx")
        assert line.endswith("(measured on the export's model.int8.onnx in ONNX Runtime)")


def test_its_arguments_are_checked_and_no_texts_measure_nothing(run):
    from attentive.util.checks import ArgumentError

    model = attentive.load(run)
    for fraction in (0, 1, True, "5%"):
        with pytest.raises(ArgumentError, match="fraction"):
            model.faithfulness(["a gorgeous , witty film"], fraction=fraction)
    assert model.faithfulness([]) == {"texts": 0, "fraction": 0.05, "flipped": {}}
    assert model.faithfulness(["dull"])["texts"] == 0  # one word cannot lose a word
    assert deletion.measure(model, []) is None
