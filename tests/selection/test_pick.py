"""`train --pick` (attentive/selection/pick.py): the compact default, then `opinion` within the budget, the slower
one kept only where its dev gain is beyond the noise of the paired difference."""
from __future__ import annotations

import numpy as np
import pytest

import attentive
from attentive.answer.metrics import paired_difference
from attentive.selection.pick import OverBudget, _budget_guard, pick
from attentive.util.run_settings import RunSettings

from ..helpers import TINY

COMMON = [*TINY, "pooler.heads=3", "head.hidden=16", "wide.buckets=4096"]  # settings both candidates take


def test_the_paired_difference_is_its_mean_and_standard_error():
    slower = np.array([1, 1, 1, 0, 1, 1, 0, 1], dtype=bool)
    faster = np.array([1, 0, 1, 0, 1, 0, 0, 1], dtype=bool)
    gain, noise = paired_difference(slower, faster)
    assert gain == pytest.approx(2 / 8)
    assert noise == pytest.approx(np.std([0, 1, 0, 0, 0, 1, 0, 0], ddof=1) / np.sqrt(8))


def test_the_budget_guard_stops_a_candidate_whose_epochs_left_would_overrun(monkeypatch):
    clock = iter([100.0, 130.0])
    monkeypatch.setattr("attentive.selection.pick.time.perf_counter", lambda: next(clock))
    guard = _budget_guard(started=0.0, budget_s=200.0, epochs=10)
    guard({"epoch": 1, "seconds": 5.0})  # 100 s gone + 9 x 5 s: within 200
    with pytest.raises(OverBudget, match="8 more epochs at 12 s each"):
        guard({"epoch": 2, "seconds": 12.0})  # 130 + 8 x 12 > 200


@pytest.mark.slow  # trains the two candidates
def test_pick_keeps_opinion_only_beyond_the_noise_and_saves_the_winner(sst2_small, tmp_path):
    model = pick(sst2_small, RunSettings(tmp_path / "m"), budget_s=3600, overrides=COMMON)
    entry = model.config["pick"]
    assert set(entry["candidates"]) == {"default", "opinion"}
    assert all(0 <= each["dev_accuracy"] <= 1 and each["seconds"] > 0 for each in entry["candidates"].values())
    assert entry["picked"] == ("opinion" if entry["dev_gain"] > entry["noise"] else "default")
    saved = attentive.load(tmp_path / "m")
    assert saved.config["pick"] == entry and saved.recipe.encoder.type == model.recipe.encoder.type
    texts = [example.text for example in sst2_small.splits["test"][:10]]
    assert np.allclose(saved.predict_proba(texts), model.predict_proba(texts), atol=1e-6)


@pytest.mark.slow  # trains the compact candidate and one epoch of the other
def test_pick_keeps_the_compact_model_when_opinion_would_overrun_the_budget(sst2_small):
    model = pick(sst2_small, RunSettings(), budget_s=1.0, overrides=COMMON)
    entry = model.config["pick"]
    assert entry["picked"] == "default" and model.recipe.encoder.type == "identity"
    assert "dev_gain" not in entry and "stopped" in entry["candidates"]["opinion"]
    assert entry["why"].startswith("opinion was not trained to the end")
