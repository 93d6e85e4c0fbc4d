"""`train.evals_per_epoch`: dev accuracy measured k times an epoch, each epoch's batches cut into k rounds, and a run
stopped inside an epoch resumes to the uninterrupted run's result."""
from __future__ import annotations

import pytest

import attentive
from attentive.training.log import read_metrics_log
from attentive.training.loop import evals_per_pass

from .conftest import stopped_then_resumed, tiny_overrides

ROUNDS = tiny_overrides("lama_ctx") + ["train.epochs=2", "train.patience=5", "train.evals_per_epoch=3"]


def test_each_epoch_is_cut_into_rounds_each_followed_by_a_dev_measurement(sst2_small, tmp_path):
    model = attentive.train(sst2_small, "lama_ctx", tmp_path, overrides=ROUNDS, show_progress=False)
    log = read_metrics_log(tmp_path)
    assert [row["epoch"] for row in log] == [pytest.approx(x) for x in (1 / 3, 2 / 3, 1, 4 / 3, 5 / 3, 2)]
    assert model.config["training"]["best_epoch"] == max(log, key=lambda row: row["dev_accuracy"])["epoch"]
    assert model.config["training"]["epochs_run"] == 2


def test_there_are_never_more_rounds_than_batches():
    assert evals_per_pass({"batch_size": 32, "evals_per_epoch": 4}, 600) == 4
    assert evals_per_pass({"batch_size": 32, "evals_per_epoch": 40}, 600) == 19
    assert evals_per_pass({"batch_size": 32}, 600) == 1


def test_a_run_stopped_inside_an_epoch_resumes_to_the_same_result(sst2_small, tmp_path, monkeypatch):
    whole = attentive.train(sst2_small, "lama_ctx", tmp_path / "whole", overrides=ROUNDS, show_progress=False)
    # stopped after the first round of the second epoch
    resumed = stopped_then_resumed(sst2_small, "lama_ctx", tmp_path / "stopped", ROUNDS, 4, monkeypatch)
    first, second = read_metrics_log(tmp_path / "whole"), read_metrics_log(tmp_path / "stopped")
    assert [row["epoch"] for row in second] == [row["epoch"] for row in first]
    for a, b in zip(first, second):
        assert a["dev_accuracy"] == b["dev_accuracy"] and a["train_loss"] == pytest.approx(b["train_loss"], rel=1e-6)
    assert resumed.config["training"]["best_epoch"] == whole.config["training"]["best_epoch"]
