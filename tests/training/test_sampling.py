"""`train.sampler: balanced` (attentive/training/sampling.py): each epoch's rows drawn class-balanced with
replacement, as many as the data has, cut into length-bucketed batches; seeded, so that runs and torchrun's ranks
draw the same plan."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import attentive
from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.recipes.types import Train
from attentive.text.encoding import POOL_BATCHES
from attentive.training import loop
from attentive.training.sampling import balanced_batches, balanced_rows
from attentive.training.terms import UNLABELLED

from ..helpers import tiny_overrides

SKEWED = [0] * 300 + [1] * 60 + [2] * 9 + [3] * 1  # 300:1, one class of a single row
LENGTHS = [5 + (i * 37) % 90 for i in range(len(SKEWED))]


def _counts(rows) -> Counter:
    return Counter(SKEWED[row] for row in rows)


def test_each_class_gets_an_equal_share_of_an_epoch_drawn_with_replacement():
    rows = balanced_rows(SKEWED, np.random.default_rng(0))
    assert len(rows) == len(SKEWED)  # an epoch keeps the length of one pass
    counts = _counts(rows)
    share = len(SKEWED) / 4
    assert set(counts) == {0, 1, 2, 3}
    assert all(abs(count - share) <= 1 for count in counts.values()), counts  # exact quotas, ± the remainder
    assert set(rows[np.asarray(SKEWED)[rows] == 3]) == {369}  # the one-row class repeats its row
    assert len(set(rows[np.asarray(SKEWED)[rows] == 0])) < 93  # the majority class is drawn, not passed over


def test_over_many_epochs_the_majority_class_shows_most_of_its_rows_and_frequencies_stay_balanced():
    rng, seen, total = np.random.default_rng(1), set(), Counter()
    for _ in range(20):
        rows = balanced_rows(SKEWED, rng)
        seen |= {int(r) for r in rows if SKEWED[r] == 0}
        total += _counts(rows)
    assert len(seen) > 0.9 * 300
    frequencies = np.array([total[c] for c in range(4)]) / sum(total.values())
    assert np.allclose(frequencies, 0.25, atol=0.005), frequencies


def test_the_batches_are_the_drawn_rows_bucketed_by_length():
    batches = balanced_batches(LENGTHS, SKEWED, 16, np.random.default_rng(2))
    rows = np.concatenate(batches)
    assert len(batches) == int(np.ceil(len(SKEWED) / 16)) and all(1 <= len(b) <= 16 for b in batches)
    counts = _counts(rows)
    assert all(abs(count - len(SKEWED) / 4) <= 1 for count in counts.values()), counts
    lengths = np.asarray(LENGTHS)
    spread = np.mean([np.ptp(lengths[b]) for b in batches])  # within a batch: texts of similar length
    random_spread = np.mean([np.ptp(lengths[b]) for b in np.array_split(np.random.default_rng(3).permutation(rows),
                                                                       len(batches))])
    assert spread < 0.5 * random_spread, (spread, random_spread)
    assert len(SKEWED) <= 16 * POOL_BATCHES  # (one pool here: the sort is the whole epoch's)


def test_the_draw_is_seeded_and_deterministic():
    first = balanced_batches(LENGTHS, SKEWED, 16, np.random.default_rng(7))
    again = balanced_batches(LENGTHS, SKEWED, 16, np.random.default_rng(7))
    other = balanced_batches(LENGTHS, SKEWED, 16, np.random.default_rng(8))
    assert all(np.array_equal(a, b) for a, b in zip(first, again)) and len(first) == len(again)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_every_rank_seeded_alike_draws_the_same_plan_and_the_shards_cover_it(monkeypatch):
    from attentive.training import distributed

    cfg = Train(batch_size=16, sampler="balanced")
    items = [[1] * n for n in LENGTHS]
    shards = []
    for rank in range(2):  # each rank's generator is seeded from the recipe's seed, as seed_everything does
        monkeypatch.setattr(distributed, "world_size", lambda: 2)
        monkeypatch.setattr(distributed, "rank", lambda rank=rank: rank)
        shards.append(distributed.shard(loop.pass_batches(items, cfg, np.random.default_rng(11), SKEWED)))
    plan = loop.pass_batches(items, cfg, np.random.default_rng(11), SKEWED)
    assert [b.tolist() for b in shards[0]] == [b.tolist() for b in plan[0::2]]
    assert [b.tolist() for b in shards[1]] == [b.tolist() for b in plan[1::2]]


def test_the_default_sampler_is_unchanged_and_balanced_is_chosen_by_the_setting():
    items = [[1] * n for n in LENGTHS]
    shuffled = loop.pass_batches(items, Train(batch_size=16), np.random.default_rng(5), SKEWED)
    assert sorted(np.concatenate(shuffled).tolist()) == list(range(len(SKEWED)))  # every row once
    named = loop.pass_batches(items, Train(batch_size=16, sampler="shuffle"), np.random.default_rng(5), SKEWED)
    assert [b.tolist() for b in named] == [b.tolist() for b in shuffled]
    balanced = loop.pass_batches(items, Train(batch_size=16, sampler="balanced"), np.random.default_rng(5), SKEWED)
    assert _counts(np.concatenate(balanced))[3] >= len(SKEWED) // 4


def test_unlabelled_rows_are_kept_once_each_and_bad_labels_are_one_line():
    labels = [0] * 20 + [1] * 4 + [UNLABELLED] * 6
    rows = balanced_rows(labels, np.random.default_rng(0))
    assert sorted(r for r in rows if labels[r] == UNLABELLED) == list(range(24, 30))
    assert Counter(labels[r] for r in rows if labels[r] != UNLABELLED) == {0: 12, 1: 12}
    for bad in ([[0, 1], [1, 0]], [UNLABELLED] * 3, ["a", "b"]):
        with pytest.raises(AttentiveError) as caught:
            balanced_rows(bad, np.random.default_rng(0))
        assert "train.sampler=balanced" in str(caught.value) and "\n" not in str(caught.value)


def test_the_setting_is_declared_with_a_default_and_a_bad_value_is_one_line():
    assert load_recipe("default").train.sampler == "shuffle"
    assert load_recipe("default", ["train.sampler=balanced"]).train.sampler == "balanced"
    for bad in ("train.sampler=oversample", "train.sampler=1", "train.sampler=[balanced]"):
        with pytest.raises(AttentiveError) as caught:
            load_recipe("default", [bad])
        message = str(caught.value)
        assert "train.sampler must be 'shuffle' or 'balanced'" in message and "\n" not in message, message


def test_a_balanced_run_trains_on_balanced_batches_and_records_its_sampler(sst2_small, monkeypatch):
    drawn = []
    real = loop.pass_batches

    def recording(train_ids, cfg, rng, labels=None):
        batches = real(train_ids, cfg, rng, labels)
        drawn.append((list(labels), batches))
        return batches

    monkeypatch.setattr(loop, "pass_batches", recording)
    model = attentive.train(sst2_small, "lama_ctx", overrides=tiny_overrides("lama_ctx") + [
        "train.sampler=balanced", "train.epochs=1"], show_progress=False)
    assert model.config["recipe"]["train"]["sampler"] == "balanced"
    labels, batches = drawn[0]
    counts = Counter(labels[row] for row in np.concatenate(batches))
    assert len(counts) == 2 and abs(counts[0] - counts[1]) <= 1
