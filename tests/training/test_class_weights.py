"""`train.class_weight`: the data term's per-class weights (none, balanced, {label: weight}), computed by the pipeline
from the training labels, and macro-F1 beside accuracy in each epoch's record."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import attentive
from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.recipes.types import Train
from attentive.training import pipeline
from attentive.training.pipeline import class_weights
from attentive.training.terms import UNLABELLED, CrossEntropy, terms_from

from ..helpers import tiny_overrides

LOGITS = [[2.0, 0.0], [0.5, 1.5], [-1.0, 1.0], [0.0, 0.0]]
TARGETS = [0, 1, 0, 1]


def _ce(row: list[float], gold: int) -> float:
    return math.log(sum(math.exp(v) for v in row)) - row[gold]


def _term(term, logits, targets) -> float:
    return float(term(SimpleNamespace(logits=torch.tensor(logits)), torch.tensor(targets), {}))


def test_weighted_cross_entropy_is_the_mean_of_each_rows_weight_times_its_loss():
    weights = [1.0, 3.0]
    expected = sum(weights[y] * _ce(row, y) for row, y in zip(LOGITS, TARGETS)) / len(TARGETS)
    assert _term(CrossEntropy(torch.tensor(weights)), LOGITS, TARGETS) == pytest.approx(expected, rel=1e-6)
    unweighted = sum(_ce(row, y) for row, y in zip(LOGITS, TARGETS)) / len(TARGETS)
    assert _term(CrossEntropy(), LOGITS, TARGETS) == pytest.approx(unweighted, rel=1e-6)
    assert expected != pytest.approx(unweighted)


def test_weighted_cross_entropy_still_skips_unlabelled_rows():
    weights = [2.0, 0.5]
    targets = [0, UNLABELLED, 0, 1]
    kept = [(row, y) for row, y in zip(LOGITS, targets) if y != UNLABELLED]
    expected = sum(weights[y] * _ce(row, y) for row, y in kept) / len(kept)
    assert _term(CrossEntropy(torch.tensor(weights)), LOGITS, targets) == pytest.approx(expected, rel=1e-6)
    assert _term(CrossEntropy(torch.tensor(weights)), LOGITS, [UNLABELLED] * 4) == 0.0


def test_terms_from_gives_the_data_term_its_weights():
    weights = torch.tensor([1.0, 4.0])
    data_term = terms_from(Train(), class_weights=weights)[0]
    assert torch.equal(data_term.class_weights, weights)
    assert terms_from(Train())[0].class_weights is None


def test_balanced_weights_are_n_over_k_n_c_on_a_skewed_label_set():
    targets = [0] * 12 + [1] * 3 + [2] * 1 + [UNLABELLED] * 5  # unlabelled rows count for nothing
    weights = class_weights("balanced", ["a", "b", "c"], targets).tolist()
    n, k = 16, 3
    assert weights == pytest.approx([n / (k * 12), n / (k * 3), n / (k * 1)], rel=1e-6)
    from sklearn.utils.class_weight import compute_class_weight

    known = [t for t in targets if t != UNLABELLED]
    assert weights == pytest.approx(compute_class_weight("balanced", classes=np.arange(3), y=np.array(known)).tolist(),
                                    rel=1e-6)


def test_a_mapping_weighs_the_labels_it_names_and_none_weighs_nothing():
    assert class_weights({"b": 2.5}, ["a", "b"], [0, 1]).tolist() == [1.0, 2.5]
    assert class_weights({1: 3}, ["0", "1"], [0, 1]).tolist() == [1.0, 3.0]  # a YAML key read as a number
    assert class_weights("none", ["a", "b"], [0, 1]) is None


def test_every_recipe_carries_none_and_bad_values_are_one_line_naming_the_key():
    assert load_recipe("default").train.class_weight == "none"
    assert load_recipe("default", ["train.class_weight=balanced"]).train.class_weight == "balanced"
    for bad in ("train.class_weight=often", "train.class_weight={positive: 0}", "train.class_weight={positive: x}",
                "train.class_weight={}"):
        with pytest.raises(AttentiveError) as caught:
            load_recipe("default", [bad])
        assert "train.class_weight" in str(caught.value) and "\n" not in str(caught.value), bad


def test_an_unknown_label_is_refused_before_training(sst2_small, monkeypatch):
    monkeypatch.setattr(pipeline, "new_model", lambda *a, **k: pytest.fail("the check comes before the vocabulary"))
    with pytest.raises(AttentiveError) as caught:
        attentive.train(sst2_small, "lama_ctx", overrides=tiny_overrides("lama_ctx") + [
            "train.class_weight={positive: 2, nope: 1}"], show_progress=False)
    message = str(caught.value)
    assert "'nope'" in message and "train.class_weight" in message and "\n" not in message


def test_the_pipeline_gives_fit_the_balanced_weights_of_the_training_labels(sst2_small, monkeypatch):
    seen = {}

    class Stop(Exception):
        pass

    def fake_fit(network, data, config):
        seen["weights"] = config.class_weights
        raise Stop

    monkeypatch.setattr(pipeline, "fit", fake_fit)
    with pytest.raises(Stop):
        attentive.train(sst2_small, "lama_ctx", overrides=tiny_overrides("lama_ctx") + [
            "train.class_weight=balanced"], show_progress=False)
    counts = [sum(ex.label == label for ex in sst2_small.splits["train"]) for label in sst2_small.labels]
    n, k = sum(counts), len(counts)
    assert seen["weights"].tolist() == pytest.approx([n / (k * c) for c in counts], rel=1e-6)


def test_a_weighted_run_records_dev_macro_f1_in_each_epoch(sst2_small, tmp_path):
    out = tmp_path / "weighted"
    model = attentive.train(sst2_small, "lama_ctx", out, overrides=tiny_overrides("lama_ctx") + [
        "train.class_weight={positive: 3}", "train.epochs=1"], show_progress=False)
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    epochs = [r for r in records if "epoch" in r and "dev_accuracy" in r]
    assert epochs and all(0.0 <= r["dev_macro_f1"] <= 1.0 for r in epochs)
    assert model.config["training"]["dev_macro_f1"] == epochs[0]["dev_macro_f1"]
    assert model.config["recipe"]["train"]["class_weight"] == {"positive": 3}
    metrics = model.evaluate(sst2_small, "dev")
    assert metrics["macro_f1"] == pytest.approx(epochs[0]["dev_macro_f1"], abs=1e-6)
