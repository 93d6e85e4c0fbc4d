"""`train.ema_epochs` (attentive/training/averaging.py): dev accuracy measured on, and the model saved from, a moving
average of the weights; a run stopped part-way resumes to the uninterrupted run's result."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import attentive
from attentive.folders.metrics_log import read_metrics_log
from attentive.training.averaging import averaged_weights, ema_decay, weight_average

from ..helpers import stopped_then_resumed, tiny_overrides

AVERAGED = tiny_overrides("lama_ctx") + ["train.epochs=3", "train.patience=5", "train.ema_epochs=0.5"]


def test_the_decay_gives_a_memory_of_k_epochs_and_warms_up_over_the_first_steps():
    assert ema_decay(1, 100) == pytest.approx(0.99) and ema_decay(0.5, 100) == pytest.approx(0.98)
    assert ema_decay(0.5, 1) == 0.0  # never below one step
    layer = torch.nn.Linear(1, 1, bias=False)
    average = weight_average(layer, decay=0.5)
    expected = None
    for step, value in enumerate([1.0, 3.0, 5.0, 7.0, 2.0, 0.0, 4.0, 6.0, 8.0, 1.0, 9.0, 3.0]):
        layer.weight.data.fill_(value)
        average.update_parameters(layer)
        weight = 1.0 if step == 0 else 1.0 - min(0.5, (1 + step) / (10 + step))  # the first step copies
        expected = value if expected is None else expected + weight * (value - expected)
        assert float(average.module.weight.detach()) == pytest.approx(expected)
    assert weight == 0.5  # warmed up: from here on each step moves the average half-way, as decay 0.5 says


def test_inside_averaged_weights_the_model_holds_the_average_and_after_its_own():
    layer = torch.nn.Linear(2, 1)
    average = weight_average(layer, decay=0.5)
    average.update_parameters(layer)
    own = {name: tensor.clone() for name, tensor in layer.state_dict().items()}
    torch.nn.init.constant_(layer.weight, 9.0)
    with averaged_weights(layer, average):
        assert torch.equal(layer.weight, own["weight"])
    assert torch.all(layer.weight == 9.0)


@pytest.mark.slow  # trains two models
def test_the_saved_model_is_the_average_whose_dev_accuracy_was_measured(sst2_small, tmp_path):
    model = attentive.train(sst2_small, "lama_ctx", tmp_path, overrides=AVERAGED, show_progress=False)
    dev = sst2_small.splits["dev"]
    predicted = attentive.load(tmp_path).predict([ex.text for ex in dev])
    accuracy = np.mean([p.label == ex.label for p, ex in zip(predicted, dev)])
    assert accuracy == pytest.approx(model.config["training"]["dev_accuracy"])
    attentive.train(sst2_small, "lama_ctx", tmp_path / "plain", overrides=AVERAGED[:-1], show_progress=False)
    texts = [ex.text for ex in dev]
    averaged, plain = (attentive.load(path).predict_proba(texts) for path in (tmp_path, tmp_path / "plain"))
    assert not np.allclose(averaged, plain)  # the same seed without the average: other weights


@pytest.mark.slow  # trains a model whole and again stopped then resumed
def test_a_run_with_an_average_resumes_to_the_same_result(sst2_small, tmp_path, monkeypatch):
    whole = attentive.train(sst2_small, "lama_ctx", tmp_path / "whole", overrides=AVERAGED, show_progress=False)
    resumed = stopped_then_resumed(sst2_small, "lama_ctx", tmp_path / "stopped", AVERAGED, 1, monkeypatch)
    first, second = read_metrics_log(tmp_path / "whole"), read_metrics_log(tmp_path / "stopped")
    assert [row["dev_accuracy"] for row in second] == [row["dev_accuracy"] for row in first]
    assert resumed.config["training"]["best_epoch"] == whole.config["training"]["best_epoch"]
