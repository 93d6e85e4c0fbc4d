"""Abstaining (attentive/answer/abstain.py): below the threshold a single-label model answers "none of these" (label
None, `abstained` true, its probabilities still given), in Python, the CLI and the server; `attentive abstain` chooses
the threshold on dev for a target out-of-scope recall (Larson et al. 2019) and keeps it in config.json."""
from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

import attentive
from attentive.answer.abstain import abstain, abstain_metrics, choose_threshold
from attentive.answer.types import Prediction
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.serving.server import create_app

from ..helpers import copy_of_tiny_run

TEXTS = ["a gorgeous , witty film", "dull , dull , dull"]


# ---------------------------------------------------------------- the rule, on synthetic probabilities

def test_the_threshold_is_the_lowest_that_refuses_the_target_share_of_out_of_scope_texts():
    in_scope = np.array([0.95, 0.9, 0.62, 0.5, 0.99])
    out_of_scope = np.array([0.3, 0.55, 0.4, 0.7, 0.97])
    # 60% of 5 = 3 refused: 0.3, 0.4, 0.55; the next higher dev score is 0.62 (in-scope): the midpoint
    assert choose_threshold(in_scope, out_of_scope, 0.6) == pytest.approx((0.55 + 0.62) / 2)
    assert choose_threshold(in_scope, out_of_scope, 0.59) == pytest.approx((0.55 + 0.62) / 2)
    assert choose_threshold(in_scope, out_of_scope, 0.61) == pytest.approx((0.7 + 0.9) / 2)  # 4 of them
    assert choose_threshold(in_scope, out_of_scope, 0.0) == 0.0
    assert choose_threshold(in_scope, out_of_scope, 1.0) == pytest.approx((0.97 + 0.99) / 2)
    assert choose_threshold(in_scope, np.array([0.99]), 1.0) == pytest.approx(0.995)  # nothing above: towards 1
    for recall in (0.2, 0.4, 0.6, 0.8, 1.0):  # the target is reached on the texts it was chosen on
        below = choose_threshold(in_scope, out_of_scope, recall)
        assert (out_of_scope < below).mean() >= recall - 1e-9


def test_the_metrics_count_a_refused_in_scope_text_as_wrong():
    in_scope = np.array([[0.9, 0.1], [0.2, 0.8], [0.55, 0.45], [0.3, 0.7]])
    gold = np.array([0, 1, 0, 0])  # the last one is answered wrongly
    out_of_scope = np.array([[0.5, 0.5], [0.9, 0.1]])
    metrics = abstain_metrics(in_scope, gold, out_of_scope, 0.6)
    assert metrics["in_scope_accuracy"] == 0.5  # the third is refused (0.55 < 0.6), the fourth wrong
    assert metrics["in_scope_refused"] == 0.25 and metrics["out_of_scope_recall"] == 0.5
    assert abstain_metrics(in_scope, gold, out_of_scope, 0.0)["in_scope_accuracy"] == 0.75


def test_abstain_keeps_the_probabilities_and_0_answers_every_text():
    answers = [Prediction("b", {"a": 0.3, "b": 0.7}), Prediction("a", {"a": 0.9, "b": 0.1})]
    abstain(answers, 0.8)
    assert [(p.label, p.abstained) for p in answers] == [(None, True), ("a", False)]
    assert answers[0].probabilities == {"a": 0.3, "b": 0.7}
    assert answers[0].as_dict()["label"] is None and answers[0].as_dict()["abstained"] is True
    assert answers[0].headline.startswith("none of these (best b, 0.70")
    abstain(answers, 0.0)  # a lower threshold (a request's own) gives the label back
    assert [(p.label, p.abstained) for p in answers] == [("b", None), ("a", None)]
    assert "abstained" not in answers[0].as_dict()


# ---------------------------------------------------------------- Python, CLI and server, on the tiny model

@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("abstain") / "run")


def test_python_predict_abstains_below_the_threshold(tiny_run):
    model = attentive.load(tiny_run)
    assert model.abstain_below is None
    plain = model.predict(TEXTS)
    assert all(p.label is not None and p.abstained is None for p in plain)
    refused = model.predict(TEXTS, abstain_below=1.0)  # two labels: every max probability is below 1
    assert all(p.label is None and p.abstained is True for p in refused)
    assert [p.probabilities for p in refused] == [p.probabilities for p in plain]
    kept = model.predict(TEXTS, abstain_below=0.5)
    assert [p.label for p in kept] == [p.label for p in plain] and all(p.abstained is False for p in kept)
    for wrong in (1.5, -0.1, True, "0.5"):
        with pytest.raises(ValueError, match="abstain_below"):
            model.predict(TEXTS, abstain_below=wrong)


def test_cli_predict_abstain_below_says_none_of_these(tiny_run, capsys):
    capsys.readouterr()
    assert main(["predict", str(tiny_run), *TEXTS, "--abstain-below", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["label"], line["abstained"]) for line in lines] == [(None, True), (None, True)]
    assert all(len(line["probabilities"]) == 2 for line in lines)


def test_predict_to_an_output_file_abstains_and_resumes_only_at_the_same_threshold(tiny_run, tmp_path):
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps({"text": text}) + "\n" for text in TEXTS))
    assert main(["predict", str(tiny_run), "--input", str(source), "--output", str(output),
                 "--abstain-below", "1"]) == 0
    answers = [json.loads(line)["prediction"] for line in output.read_text().splitlines()]
    assert [(a["label"], a["abstained"]) for a in answers] == [(None, True), (None, True)]
    assert main(["predict", str(tiny_run), "--input", str(source), "--output", str(output), "--resume"]) == 2


def test_abstain_chooses_on_dev_keeps_it_and_predict_uses_it(run, sst2_small, tmp_path, capsys):
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps({"text": ex.text, "label": ex.label}) + "\n" for ex in sst2_small.splits["dev"]))
    oos = tmp_path / "oos.jsonl"
    oos.write_text("".join(json.dumps({"text": text}) + "\n" for text in
                           ["what time is it in tokyo", "set an alarm for six", "how many miles to boston",
                            "book a table for two", "what is the capital of peru"]))
    assert main(["abstain", str(run), "--recall", "0.6", "--oos-dev", str(oos), "--in-scope-dev", str(dev)]) == 0
    assert "out-of-scope recall" in capsys.readouterr().out
    record = json.loads((run / "config.json").read_text())["abstain"]
    chosen = record["chosen_on"]
    assert chosen["out_of_scope_recall"] >= 0.6 and chosen["n_in_scope"] == 150 and chosen["n_out_of_scope"] == 5
    assert chosen["target_recall"] == 0.6 and chosen["out_of_scope"] == str(oos)
    model = attentive.load(run)  # the model's own threshold, by default
    assert model.abstain_below == record["below"]
    answers = model.predict(["what time is it in tokyo", *TEXTS])
    assert all(p.abstained is not None for p in answers)
    assert all((p.label is None) == (max(p.probabilities.values()) < record["below"]) for p in answers)
    assert all(p.label is not None for p in model.predict(TEXTS, abstain_below=0))  # 0: never
    assert main(["abstain", str(run), "--below", "1"]) == 0  # set by hand
    assert json.loads((run / "config.json").read_text())["abstain"] == {"below": 1.0, "chosen_on": None}
    capsys.readouterr()
    assert main(["predict", str(run), TEXTS[0]]) == 0
    assert json.loads(capsys.readouterr().out)["abstained"] is True
    assert main(["abstain", str(run)]) == 2  # neither --recall nor --below
    assert main(["abstain", str(run), "--recall", "0.5"]) == 2  # no out-of-scope texts


def test_the_server_abstains_per_request_and_by_the_models_own(tiny_run, tmp_path):
    with TestClient(create_app(attentive.load(tiny_run), window_ms=0)) as client:
        answers = client.post("/predict", json={"texts": TEXTS, "abstain_below": 1.0}).json()
        assert [(a["label"], a["abstained"]) for a in answers] == [(None, True), (None, True)]
        assert all("abstained" not in a for a in client.post("/predict", json={"texts": TEXTS}).json())
        assert client.post("/predict", json={"texts": TEXTS, "abstain_below": 2}).status_code == 422
        explained = client.post("/explain", json={"texts": TEXTS, "abstain_below": 0.9})
        assert explained.status_code == 422 and "abstain_below" in explained.json()["detail"]
        assert "abstain_below" not in client.get("/info").json()
    run = copy_of_tiny_run(tiny_run, tmp_path / "run")
    assert main(["abstain", str(run), "--below", "1"]) == 0
    with TestClient(create_app(attentive.load(run), window_ms=0)) as client:
        assert client.get("/info").json()["abstain_below"] == 1.0
        assert all(a["abstained"] for a in client.post("/predict", json={"texts": TEXTS}).json())
        answers = client.post("/predict", json={"texts": TEXTS, "abstain_below": 0}).json()  # the request's wins
        assert all(a["label"] is not None and "abstained" not in a for a in answers)


def test_a_damaged_abstain_entry_fails_at_load(tiny_run, tmp_path):
    run = copy_of_tiny_run(tiny_run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "abstain": {"below": 2}}))
    with pytest.raises(AttentiveError, match="'abstain' must be an object whose 'below' is a number from 0 to 1"):
        attentive.load(run)


def test_an_export_keeps_the_threshold_and_its_runtime_abstains_by_it(tiny_run, tmp_path):
    from attentive.answer import onnx_backend
    from attentive.onnx_format.write import export

    run = copy_of_tiny_run(tiny_run, tmp_path / "run")
    assert main(["abstain", str(run), "--below", "1"]) == 0
    exported = onnx_backend.load(export(attentive.load(run), tmp_path / "onnx"))
    assert exported.abstain_below == 1.0
    assert all(p.label is None and p.abstained for p in exported.predict(TEXTS, top_k=0))
    assert main(["abstain", str(tmp_path / "onnx"), "--below", "0"]) == 0  # set in the export's folder too
    assert all(p.label is not None and p.abstained is None for p in onnx_backend.load(tmp_path / "onnx").predict(TEXTS))
