"""`train.window` (attentive/training/windows.py): a long training text read through a random window of W tokens each
epoch, whole texts everywhere else; a set with no text longer than W trains exactly as without it."""
from __future__ import annotations

import numpy as np
import safetensors.numpy

import attentive
from attentive.data.example import Dataset
from attentive.text.encoding import Item
from attentive.training import loop
from attentive.training.windows import windowed

from ..helpers import tiny_overrides


def test_a_long_text_is_cut_to_consecutive_tokens_at_a_start_drawn_afresh_each_time():
    long_text = Item(list(range(100, 130)), pair=[7, 8], aspect=[3])
    items = [Item([1, 2, 3]), long_text, Item(list(range(5)))]
    rng, starts = np.random.default_rng(0), set()
    for _ in range(200):
        view = windowed(items, 5, rng)
        assert view[0] is items[0] and view[2] is items[2]  # at most W tokens: left whole
        cut = view[1]
        assert len(cut.ids) == 5 and cut.pair == [7, 8] and cut.aspect == [3]
        assert cut.ids == list(range(cut.ids[0], cut.ids[0] + 5))  # consecutive tokens of the text
        starts.add(cut.ids[0] - 100)
    assert starts == set(range(26))  # every start, the last window's included
    assert items[1] is long_text and len(long_text.ids) == 30  # the training items themselves are untouched


def test_no_window_or_no_long_text_returns_the_items_and_draws_nothing():
    items = [Item([1, 2, 3]), Item([4, 5])]
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert windowed(items, None, rng) is items
    assert windowed(items, 3, rng) is items
    assert rng.bit_generator.state == state  # the batches' shuffle draws what it would have drawn


def test_training_batches_read_windows_and_a_set_without_longer_texts_trains_as_before(sst2_small, tmp_path,
                                                                                       monkeypatch):
    data = Dataset("windows", {"train": sst2_small.splits["train"][:200], "dev": sst2_small.splits["dev"][:50],
                               "test": []}, list(sst2_small.labels))
    overrides = tiny_overrides("default") + ["train.epochs=1"]
    widths, original = [], loop.collate

    def spy(items, device="cpu"):
        widths.append(max(len(item.ids) for item in items))
        return original(items, device)

    monkeypatch.setattr(loop, "collate", spy)
    attentive.train(data, "default", tmp_path / "w4", overrides=overrides + ["train.window=4"], show_progress=False)
    assert widths and max(widths) == 4  # every training batch read windows of 4 tokens
    monkeypatch.undo()
    longest = max(len(ex.text.split()) for ex in data.splits["train"])
    attentive.train(data, "default", tmp_path / "whole", overrides=overrides, show_progress=False)
    attentive.train(data, "default", tmp_path / "wide", overrides=overrides + [f"train.window={4 * longest}"],
                    show_progress=False)
    before = safetensors.numpy.load_file(str(tmp_path / "whole" / "model.safetensors"))
    after = safetensors.numpy.load_file(str(tmp_path / "wide" / "model.safetensors"))
    for name in before:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    narrow = safetensors.numpy.load_file(str(tmp_path / "w4" / "model.safetensors"))
    assert any(not np.array_equal(before[name], narrow[name]) for name in before)
