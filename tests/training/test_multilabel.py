"""Multi-label classification (issue 35, item 4): label sets read from JSONL lists and separated CSV/TSV fields,
the binary cross-entropy term, thresholds chosen on dev, and a trained model's thresholds and outputs surviving save,
load, export and serving."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import attentive
from attentive.answer.metrics import choose_thresholds, multilabel_metrics
from attentive.data.example import Dataset, Example
from attentive.data.readers import read_table
from attentive.data.registry import load_dataset, load_files
from attentive.errors import AttentiveError, DataError
from attentive.folders.metrics_log import read_metrics_log
from attentive.training.terms import BinaryCrossEntropy

from ..helpers import tiny_overrides


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


# --- reading label sets ---------------------------------------------------------------------------------------------

def test_jsonl_lists_and_plain_labels_are_read_as_sets_with_a_separator(tmp_path):
    rows = [{"text": "good food", "label": ["food", "service"]}, {"text": "slow", "label": "service"},
            {"text": "nothing", "label": []}, {"text": "n", "label": [1, "food"]}]
    path = write(tmp_path / "a.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    examples = read_table(path, label_separator="|").examples
    assert [ex.labels for ex in examples] == [("food", "service"), ("service",), (), ("1", "food")]
    assert all(ex.label is None for ex in examples)
    with pytest.raises(DataError, match="a.jsonl:2: column 'label' holds a single label here but a list"):
        read_table(path)  # without one, a plain label among lists is refused (tests/data/test_hostile_inputs.py)


def test_a_separator_cuts_csv_and_tsv_labels(tmp_path):
    csv = write(tmp_path / "a.csv", 'text,label\n"good, cheap",food | price\nrude,service\n')
    tsv = write(tmp_path / "a.tsv", "text\tlabel\ngood\tfood|price\n")
    assert [ex.labels for ex in read_table(csv, label_separator="|").examples] == [("food", "price"), ("service",)]
    assert read_table(tsv, label_separator="|").examples[0].labels == ("food", "price")
    assert read_table(csv).examples[0].label == "food | price"  # no separator: one label, as before


@pytest.mark.parametrize("body, problem", [
    ('text,label\na,food||price\n', "empty label"),
    ('text,label\na,food|\n', "empty label"),
    ('text,label\na,food|food\n', "names label 'food' twice"),
    ('text,label\na,\n', "empty label"),
])
def test_bad_separated_labels_are_one_line_naming_the_row(tmp_path, body, problem):
    path = write(tmp_path / "bad.csv", body)
    with pytest.raises(DataError, match=problem) as caught:
        read_table(path, label_separator="|")
    assert f"{path}:2:" in str(caught.value)


@pytest.mark.parametrize("label, problem", [
    (["food", None], "a list with a null"), (["food", ["x"]], "a list with a list"), (["food", ""], "empty string"),
    (["a", "a"], "twice"),
])
def test_bad_jsonl_lists_are_one_line_naming_the_row(tmp_path, label, problem):
    path = write(tmp_path / "bad.jsonl", json.dumps({"text": "ok", "label": ["food"]}) + "\n" +
                 json.dumps({"text": "t", "label": label}) + "\n")
    with pytest.raises(DataError, match=problem) as caught:
        read_table(path)
    assert f"{path}:2:" in str(caught.value)


def test_files_make_a_multi_label_dataset_with_a_carved_dev(tmp_path):
    rows = "".join(json.dumps({"text": f"text {i}", "label": ["a", "b"][: 1 + i % 2]}) + "\n" for i in range(20))
    data = load_files(write(tmp_path / "t.jsonl", rows))
    assert data.multi_label and data.labels == ["a", "b"]
    assert len(data.splits["dev"]) == 2 and len(data.splits["train"]) == 18
    assert data.label_counts("train")["a"] == 18


# --- the loss and the thresholds ------------------------------------------------------------------------------------

def test_binary_cross_entropy_is_torchs_summed_over_labels():
    torch.manual_seed(0)
    logits, targets = torch.randn(4, 3), np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 0]])
    rows = torch.tensor([4, 0, 2, 3])
    out = type("Out", (), {"logits": logits})()
    value = BinaryCrossEntropy(targets)(out, torch.full((4,), -100), {"rows": rows})
    gold = torch.as_tensor(targets[rows.numpy()], dtype=torch.float32)
    by_hand = -(gold * F.logsigmoid(logits) + (1 - gold) * F.logsigmoid(-logits)).sum(1).mean()
    assert torch.allclose(value, by_hand, atol=1e-6)
    assert torch.allclose(value, F.binary_cross_entropy_with_logits(logits, gold) * 3, atol=1e-6)


def test_thresholds_are_chosen_per_label_on_dev():
    probabilities = np.array([[0.9, 0.2, 0.1], [0.7, 0.3, 0.2], [0.4, 0.8, 0.3], [0.2, 0.6, 0.4]])
    gold = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]])
    thresholds = choose_thresholds(probabilities, gold, ["a", "b", "c"])
    assert thresholds["a"] == pytest.approx(0.55)  # between 0.7 (last positive) and 0.4: F1 1.0
    assert thresholds["b"] == pytest.approx(0.7)  # between 0.8 and 0.6: only the positive kept
    assert thresholds["c"] == 0.5  # no positive on dev: the default
    predicted = probabilities >= np.array([thresholds[label] for label in "abc"])
    metrics = multilabel_metrics(gold, predicted, ["a", "b", "c"])
    assert metrics["micro_f1"] == 1.0 and metrics["per_class"]["c"]["f1"] == 0.0
    assert metrics["macro_f1"] == pytest.approx(2 / 3)


# --- a trained multi-label model --------------------------------------------------------------------------------------

def _sets(ex: Example) -> tuple[str, ...]:
    """The sentiment plus two labels read off the text: 'film' (names a film or movie) and 'long' (over 18 words)."""
    labels = {ex.label}
    if "film" in ex.text or "movie" in ex.text:
        labels.add("film")
    if len(ex.text.split()) > 18:
        labels.add("long")
    return tuple(sorted(labels))


@pytest.fixture(scope="module")
def multi_label_run(tmp_path_factory):
    sample = load_dataset("sst2_sample")
    splits = {split: [Example(text=ex.text, labels=_sets(ex)) for ex in sample.splits[split][:size]]
              for split, size in (("train", 500), ("dev", 120), ("test", 120))}
    data = Dataset("sst2_sets", splits, sorted({label for part in splits.values() for ex in part
                                                for label in ex.labels}))
    folder = tmp_path_factory.mktemp("multilabel") / "run"
    model = attentive.train(data, "default", folder, show_progress=False,
                            overrides=tiny_overrides("default") + ["wide.buckets=4096", "wide.prior=true"])
    return model, folder, data


def test_a_multi_label_model_says_it_fitted_no_linear_model_after_training(multi_label_run):
    model, _, _ = multi_label_run
    assert model.config["prior"] == {"skipped": "a multi-label model's sigmoids are no softmax to combine with"}


@pytest.mark.parametrize("setting", ["train.class_weight=balanced", "train.sampler=balanced"])
def test_one_label_settings_are_refused_for_label_sets_before_training(multi_label_run, tmp_path, setting):
    _, _, data = multi_label_run
    with pytest.raises(attentive.AttentiveError, match="a multi-label model \\(label sets\\) trains with"):
        attentive.train(data, "default", tmp_path / "m", overrides=tiny_overrides("default") + [setting],
                        show_progress=False)
    assert not (tmp_path / "m").exists()


TEXTS = ["a long , slow and boring film that goes on and on without a single idea worth the price of the ticket",
         "great", "the movie is fine"]


def test_training_records_thresholds_and_dev_micro_f1(multi_label_run):
    model, folder, data = multi_label_run
    config = json.loads((folder / "config.json").read_text())
    assert config["multi_label"] is True and set(config["thresholds"]) == set(data.labels)
    assert all(0 < t < 1 for t in config["thresholds"].values())
    training = config["training"]
    assert 0 < training["dev_micro_f1"] <= 1 and set(training["dev_per_label_f1"]) == set(data.labels)
    epochs = [record for record in read_metrics_log(folder) if "epoch" in record]
    assert training["best_epoch"] == max(epochs, key=lambda e: e["dev_micro_f1"])["epoch"]  # micro-F1 chooses
    assert training["dev_micro_f1"] == pytest.approx(max(e["dev_micro_f1"] for e in epochs))
    assert "calibration" not in config  # sigmoids are not temperature-scaled
    metrics = model.evaluate(data, "test")
    assert metrics["multi_label"] and {"micro_f1", "macro_f1", "per_class"} <= set(metrics)


def test_predictions_are_every_label_at_or_above_its_threshold(multi_label_run):
    model, _, _ = multi_label_run
    probabilities = model.predict_proba(TEXTS)
    assert not np.allclose(probabilities.sum(1), 1)  # independent sigmoids
    for prediction, row in zip(model.predict(TEXTS), probabilities):
        expected = [label for label, p in zip(model.labels, row) if p >= model.thresholds[label]]
        assert sorted(prediction.labels) == sorted(expected)
        assert prediction.label == (max(expected, key=lambda label: prediction.probabilities[label])
                                    if expected else None)
        assert prediction.as_dict()["labels"] == prediction.labels
    everything = model.predict(TEXTS, threshold=0.0)
    assert all(sorted(p.labels) == sorted(model.labels) for p in everything)


def test_thresholds_and_outputs_survive_save_load_and_export(multi_label_run, tmp_path):
    model, folder, _ = multi_label_run
    loaded = attentive.load(folder)
    assert loaded.thresholds == model.thresholds
    assert np.allclose(loaded.predict_proba(TEXTS), model.predict_proba(TEXTS), atol=1e-6)
    assert [p.labels for p in loaded.predict(TEXTS)] == [p.labels for p in model.predict(TEXTS)]
    from attentive.answer.onnx_backend import load as load_exported
    from attentive.onnx_format.write import export

    runtime = load_exported(export(loaded, tmp_path / "exported"))
    assert runtime.thresholds == model.thresholds
    assert np.allclose(runtime.predict_proba(TEXTS), model.predict_proba(TEXTS), atol=1e-5)
    assert [p.as_dict()["labels"] for p in runtime.predict(TEXTS)] == [p.labels for p in model.predict(TEXTS)]


def test_explanations_give_words_per_predicted_label(multi_label_run):
    model, _, _ = multi_label_run
    explanation = model.explain(TEXTS[0], top_k=3)[0]
    per_label = explanation.as_dict(3)["label_words"]
    assert set(per_label) == set(explanation.prediction.labels)
    assert all(len(words) == min(3, len(explanation.words)) for words in per_label.values())


def test_a_damaged_threshold_is_one_line_at_load(multi_label_run, tmp_path):
    model, _, _ = multi_label_run
    model.config["thresholds"] = {**model.thresholds, model.labels[0]: 1.5}
    try:
        with pytest.raises(AttentiveError, match="'thresholds' of .* must be a number in \\[0, 1\\]"):
            type(model)(model.network, model.tokenizer, model.config, recipe=model.recipe)
    finally:
        model.config["thresholds"] = json.loads((model.folder / "config.json").read_text())["thresholds"]


def test_serve_predict_returns_several_labels(multi_label_run):
    from fastapi.testclient import TestClient

    from attentive.serving.server import create_app

    model, folder, _ = multi_label_run
    with TestClient(create_app(attentive.load(folder))) as client:
        answers = client.post("/predict", json={"texts": TEXTS, "top_k": 2}).json()
        info = client.get("/info").json()
    assert [answer["labels"] for answer in answers] == [p.labels for p in model.predict(TEXTS)]
    assert any(len(answer["labels"]) > 1 for answer in answers)
    assert info["multi_label"] is True and info["thresholds"] == model.thresholds


def test_evaluate_scores_an_export_of_label_sets_as_it_scores_the_saved_model(multi_label_run, tmp_path, capsys):
    from attentive.cli import main
    from attentive.onnx_format.write import export

    _, folder, data = multi_label_run
    exported = export(attentive.load(folder), tmp_path / "exported")
    source = write(tmp_path / "sets.jsonl", "".join(json.dumps({"text": ex.text, "label": list(ex.labels)}) + "\n"
                                                    for ex in data.splits["test"]))
    scores = {}
    for run in (folder, exported):
        output = tmp_path / f"{run.name}.json"
        assert main(["evaluate", str(run), "--file", str(source), "--output", str(output)]) == 0, \
            capsys.readouterr().err
        scores[run.name] = json.loads(output.read_text())
    saved, onnx = scores[folder.name], scores[exported.name]
    assert onnx["multi_label"] is True and onnx["n"] == saved["n"] == len(data.splits["test"])
    assert onnx["micro_f1"] == pytest.approx(saved["micro_f1"], abs=0.01)
    assert onnx["thresholds"] == saved["thresholds"]
