"""The word-vector anchor (`embedder.anchor`): tables pulled back towards their starting vectors after each step,
wired from the recipe, kept out of the saved model, and carried through a checkpoint so a resumed run matches."""
from __future__ import annotations

import pytest
import torch

import attentive
from attentive.models.classifier import build_model
from attentive.models.embedders import WordEmbedder
from attentive.recipes import load_recipe
from attentive.training.log import read_metrics_log
from attentive.training.loop import after_each_step

from .conftest import stopped_then_resumed, tiny_overrides

FREE = tiny_overrides("lama_ctx") + ["train.epochs=3", "train.patience=5"]
ANCHORED = FREE + ["embedder.anchor=0.2"]


def test_each_pull_takes_back_that_fraction_of_the_drift_from_the_starting_vectors():
    start = torch.randn(10, 4)
    embedder = WordEmbedder(10, 4, initial=start.numpy(), anchor=0.25)
    with torch.no_grad():
        embedder.table.weight.add_(1.0)
    after_each_step(embedder, None)()
    torch.testing.assert_close(embedder.table.weight, start + 0.75)
    assert after_each_step(WordEmbedder(10, 4), None) is None  # no anchor, no average: nothing to do


def test_the_recipe_setting_reaches_the_model_and_the_starting_vectors_stay_out_of_the_saved_model(
        sst2_small, tmp_path):
    recipe = load_recipe("lama_ctx", ["embedder.anchor=0.1", "embedder.vectors=random"])
    assert build_model(recipe, 50, 2).embedder.anchor == 0.1
    model = attentive.train(sst2_small, "lama_ctx", tmp_path, overrides=ANCHORED, show_progress=False)
    assert not any("start" in name for name in model.network.state_dict())
    loaded = attentive.load(tmp_path)
    assert loaded.predict(["a fine film"])[0] == model.predict(["a fine film"])[0]


def test_training_keeps_an_anchored_table_nearer_its_start_than_a_free_one(sst2_small, tmp_path):
    anchored = attentive.train(sst2_small, "lama_ctx", tmp_path / "a", overrides=ANCHORED, show_progress=False)
    free = attentive.train(sst2_small, "lama_ctx", tmp_path / "f", overrides=FREE, show_progress=False)
    start = anchored.network.embedder.start  # the same seed starts both from the same random table
    drift = {name: (m.network.embedder.table.weight - start).norm().item()
             for name, m in (("anchored", anchored), ("free", free))}
    assert 0 < drift["anchored"] < drift["free"] / 2, drift


def test_a_stopped_anchored_run_resumes_to_the_uninterrupted_runs_result(sst2_small, tmp_path, monkeypatch):
    whole = attentive.train(sst2_small, "lama_ctx", tmp_path / "whole", overrides=ANCHORED, show_progress=False)
    resumed = stopped_then_resumed(sst2_small, "lama_ctx", tmp_path / "stopped", ANCHORED, 1, monkeypatch)
    first, second = read_metrics_log(tmp_path / "whole"), read_metrics_log(tmp_path / "stopped")
    assert [row["dev_accuracy"] for row in second] == [row["dev_accuracy"] for row in first]
    assert [row["train_loss"] for row in second] == pytest.approx([row["train_loss"] for row in first], rel=1e-6)
    torch.testing.assert_close(resumed.network.embedder.table.weight, whole.network.embedder.table.weight)
