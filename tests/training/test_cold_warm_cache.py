"""The same command, data and seed give the same model whether the word-vector cache is cold or warm: a run that
computes and caches the distilled vectors trains as one that reads them (computing them must not draw from the
generator training seeded)."""
from __future__ import annotations

import numpy as np
import pytest
import safetensors.numpy

import attentive
from attentive.data.example import Dataset

from ..helpers import cache_with_minilm_vocabulary, tiny_overrides

pytestmark = pytest.mark.slow  # runs the MiniLM encoder over the run's vocabulary once


def test_a_cold_cache_and_a_warm_one_train_the_same_weights(sst2_small, tmp_path, monkeypatch, minilm_vocabulary):
    cache = cache_with_minilm_vocabulary(tmp_path / "cache", minilm_vocabulary, monkeypatch)
    monkeypatch.setenv("ATTENTIVE_CACHE", str(cache))
    data = Dataset("cold-warm", {"train": sst2_small.splits["train"][:300], "dev": sst2_small.splits["dev"][:60],
                                 "test": []}, list(sst2_small.labels))
    overrides = tiny_overrides("default") + ["embedder.vectors=distilled+glove", "train.epochs=1"]
    before = set(p.name for p in cache.iterdir())
    attentive.train(data, "default", tmp_path / "cold", overrides=overrides, show_progress=False)
    assert set(p.name for p in cache.iterdir()) - before, "the first run computed and cached its vectors"
    attentive.train(data, "default", tmp_path / "warm", overrides=overrides, show_progress=False)
    cold = safetensors.numpy.load_file(str(tmp_path / "cold" / "model.safetensors"))
    warm = safetensors.numpy.load_file(str(tmp_path / "warm" / "model.safetensors"))
    assert cold.keys() == warm.keys()
    for name in cold:
        np.testing.assert_array_equal(cold[name], warm[name], err_msg=name)
