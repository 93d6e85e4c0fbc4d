"""Every single-text recipe learns on a small slice of real SST-2: its training loss falls within a few epochs."""
from __future__ import annotations

import pytest

import attentive
from attentive.data.example import Dataset

from ..helpers import tiny_overrides

RECIPES = ["lama", "lama_ctx", "san", "san_pruned", "bigru", "cnn", "te", "avg", "sunlu", "barnes_lstm",
           "barnes_bilstm", "barnes_cnn", "ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr", "transformer_pe",
           "transformer_rpr"]
# SSAN's training is ADADELTA on random batches with dropout 0.7 everywhere, made for 100,000 batches: the tiny
# fixture keeps the random batches but takes Adam and light dropout, so that 24-d parts learn within 4 x 16 batches
RANDOM_BATCHES = ["train.batches_per_epoch=16", "train.optimizer=adam", "embedder.dropout=0.1", "encoder.dropout=0.1",
                  "head.dropout=0.1"]


@pytest.mark.parametrize("recipe", RECIPES)
def test_recipe_loss_falls_on_a_tiny_fixture(recipe, sst2_small):
    data = Dataset("tiny", {"train": sst2_small.splits["train"][:256], "dev": sst2_small.splits["dev"][:64],
                            "test": []}, sst2_small.labels)
    overrides = tiny_overrides(recipe) + ["train.epochs=4", "train.patience=4"]
    if "ssan" in recipe or "transformer_" in recipe:
        overrides += RANDOM_BATCHES
    model = attentive.train(data, recipe, overrides=overrides, show_progress=False)
    losses = [epoch["train_loss"] for epoch in model.history.epochs]
    assert losses[-1] < losses[0], losses
