"""Mostly-zero tables (the n-gram channel's hashed rows) are saved by their nonzero rows and rebuilt exactly; a file
whose packed rows are damaged or hostile is a one-line error."""
from __future__ import annotations

import pytest
import safetensors.torch
import torch

import attentive
from attentive.errors import AttentiveError
from attentive.folders.row_sparse import ROWS, VALUES, packed

from ..helpers import rewrite_weights, tiny_overrides

TABLE = "wide.bigrams.weight"


@pytest.fixture(scope="module")
def trained(sst2_small, tmp_path_factory):
    out = tmp_path_factory.mktemp("sparse") / "run"
    model = attentive.train(sst2_small, "default", out, overrides=tiny_overrides("default") + ["wide.buckets=65536"],
                            show_progress=False)
    return model, out


def test_a_trained_ngram_table_is_saved_by_its_rows_and_loaded_exactly(trained):
    model, out = trained
    stored = safetensors.torch.load_file(str(out / "model.safetensors"))
    dense = model.network.state_dict()[TABLE]
    assert TABLE not in stored and stored[TABLE + ROWS].dtype == torch.int32
    assert 0 < len(stored[TABLE + ROWS]) < dense.shape[0] / 2
    assert torch.equal(dense[stored[TABLE + ROWS].long()], stored[TABLE + VALUES])
    loaded = attentive.load(out).network.state_dict()
    assert set(loaded) == set(model.network.state_dict())
    assert all(torch.equal(loaded[name], tensor) for name, tensor in model.network.state_dict().items())
    texts = ["a warm and funny film", "dull , flat and far too long"]
    assert attentive.load(out).predict_proba(texts).tolist() == model.predict_proba(texts).tolist()


def test_only_tables_that_pay_are_packed():
    mostly_zero = torch.zeros(1000, 4)
    mostly_zero[[3, 500]] = 1.0
    state = {"table": mostly_zero, "full": torch.ones(1000, 4), "vector": torch.zeros(1000)}
    out = packed(state)
    assert set(out) == {"table" + ROWS, "table" + VALUES, "full", "vector"}
    assert out["table" + ROWS].tolist() == [3, 500]


@pytest.mark.parametrize("damage, problem", [
    (lambda t: t.update({TABLE + ROWS: t[TABLE + ROWS].flip(0).contiguous()}), "not increasing"),
    (lambda t: t[TABLE + ROWS].__setitem__(-1, 10**6), "outside its 65536 rows"),
    (lambda t: t.pop(TABLE + VALUES), "has no wide.bigrams.weight.nonzero_values beside it"),
    (lambda t: t.update({TABLE + ROWS: t[TABLE + ROWS][:-1].contiguous()}), "are not the rows of a (65536, 2) table"),
])
def test_damaged_packed_rows_are_one_line(trained, tmp_path, damage, problem):
    import shutil

    folder = shutil.copytree(trained[1], tmp_path / "copy")
    rewrite_weights(folder, damage)
    with pytest.raises(AttentiveError, match="model.safetensors: ") as caught:
        attentive.load(folder)
    assert problem in str(caught.value) and "\n" not in str(caught.value)
