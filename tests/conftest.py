"""Shared fixtures: small real data (the bundled SST-2 sample) and a tiny, fast recipe."""
from __future__ import annotations

import pytest
import torch

from attentive.data.example import Dataset
from attentive.data.registry import load_dataset

torch.set_num_threads(1)

# A fast recipe for tests: small parts, random vectors, two epochs.
TINY = ["embedder.vectors=random", "embedder.dim=24", "encoder.hidden=16", "pooler.heads=3", "head.hidden=16",
        "tokenizer.min_frequency=2", "train.epochs=2", "train.batch_size=32", "train.lr=0.005"]


@pytest.fixture(scope="session")
def sst2_small() -> Dataset:
    """600 train / 150 dev / 150 test real SST-2 sentences from the bundled sample."""
    data = load_dataset("sst2_sample")
    splits = {"train": data.splits["train"][:600], "dev": data.splits["dev"][:150], "test": data.splits["test"][:150]}
    return Dataset("sst2_small", splits, data.labels)
