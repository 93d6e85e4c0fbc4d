"""Every single-text recipe learns on a small slice of real SST-2: its training loss falls within a few epochs."""
from __future__ import annotations

import pytest

import attentive
from attentive.data.example import Dataset

from .conftest import tiny_overrides


@pytest.mark.parametrize("recipe", ["lama", "lama_ctx", "san", "bigru", "cnn", "te", "avg", "sunlu"])
def test_recipe_loss_falls_on_a_tiny_fixture(recipe, sst2_small):
    data = Dataset("tiny", {"train": sst2_small.splits["train"][:256], "dev": sst2_small.splits["dev"][:64],
                            "test": []}, sst2_small.labels)
    overrides = tiny_overrides(recipe) + ["train.epochs=4", "train.patience=4"]
    model = attentive.train(data, recipe, overrides=overrides, show_progress=False)
    losses = [epoch["train_loss"] for epoch in model.history.epochs]
    assert losses[-1] < losses[0], losses
