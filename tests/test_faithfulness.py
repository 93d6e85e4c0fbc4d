"""Faithfulness on show (issue 34, item 3): training ends with a cheap deletion test on a seeded dev sample, kept in
config.json as `faithfulness`; it survives save, load and export, and `attentive explain`, the HTML report and the
server's /info (PyTorch and exported) show it in one line. A model folder without it (older models) shows nothing."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

import attentive
from attentive.answer.types import faithfulness_line
from attentive.cli import main
from attentive.serving.server import create_app

from .conftest import tiny_overrides

OVERRIDES = [*tiny_overrides("student"), "tokenizer.pieces=false", "tokenizer.prune_pieces=false",
             "tokenizer.keep_known=false", "embedder.vectors=random", "wide.buckets=4096", "train.epochs=1"]


@pytest.fixture(scope="module")
def run(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("faithful") / "run"
    attentive.train(sst2_small, "student", folder, overrides=OVERRIDES, show_progress=False)
    return folder


def test_training_records_the_deletion_test_in_config_json(run, sst2_small):
    record = json.loads((run / "config.json").read_text())["faithfulness"]
    assert record["dev_texts"] == len([ex for ex in sst2_small.splits["dev"] if len(ex.text.split()) >= 2])
    assert record["fraction"] == 0.05 and set(record["flipped"]) == {"attention", "random", "evidence"}
    assert all(0 <= share <= 1 for share in record["flipped"].values())
    assert "calibration" in json.loads((run / "config.json").read_text())  # the step before it is kept


def test_it_survives_load_and_export_and_shows_in_one_line(run, tmp_path):
    pytest.importorskip("onnxruntime")
    from attentive.export import export

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
    runtime = attentive.runtime.load(tmp_path / "exported")
    assert runtime.config["faithfulness"] == record
    for served in (model, runtime):
        info = TestClient(create_app(served)).get("/info").json()
        assert info["faithfulness"] == record and info["faithfulness_line"] == line


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
