"""ESIM's soft alignment between the two texts of a pair (attentive/models/alignment.py) and a pair model using it."""
from __future__ import annotations

import pytest
import torch

from attentive.errors import AttentiveError
from attentive.models.alignment import soft_align
from attentive.models.classifier import build_model
from attentive.recipes import load_recipe

from .conftest import tiny_overrides
from .test_models import batch


def test_each_word_aligns_to_the_other_texts_words_and_never_to_padding():
    a = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]])  # two words and a padding place
    b = torch.tensor([[[20.0, 0.0], [0.0, 20.0], [9.0, 9.0]]])
    mask_a, mask_b = torch.tensor([[1, 1, 0]]), torch.tensor([[1, 1, 0]])  # b's third place is padding
    aligned_a, aligned_b = soft_align(a, mask_a, b, mask_b)
    assert torch.allclose(aligned_a[0, 0], b[0, 0], atol=1e-4)  # a's first word is b's first word's direction
    assert torch.allclose(aligned_a[0, 1], b[0, 1], atol=1e-4)
    assert torch.all(aligned_a[0, 2] == 0) and torch.all(aligned_b[0, 2] == 0)  # padded rows stay zero
    assert torch.allclose(aligned_b[0, 0], a[0, 0], atol=1e-4)


def test_a_text_of_no_tokens_aligns_to_zeros_not_nan():
    a, b = torch.randn(1, 3, 4), torch.zeros(1, 2, 4)
    aligned_a, _ = soft_align(a, torch.ones(1, 3), b, torch.zeros(1, 2))
    assert torch.all(aligned_a == 0)


def esim_model():
    torch.manual_seed(0)
    recipe = load_recipe("default_pair", tiny_overrides("default_pair") + ["align.type=esim", "align.dropout=0.1"])
    return build_model(recipe, vocab_size=50, classes=3).eval()


def test_a_pair_model_with_alignment_is_unchanged_by_padding_and_sees_both_texts():
    model = esim_model()
    ids, mask = batch([4, 6, 2])
    pair_ids, pair_mask = batch([5, 2, 3])
    logits = model(ids, mask, pair_ids, pair_mask).logits
    padded = model(*batch([4, 6, 2], extra_padding=5), *batch([5, 2, 3], extra_padding=3)).logits
    assert torch.allclose(logits, padded, atol=1e-5)
    other = model(ids, mask, pair_ids.roll(1, 0), pair_mask.roll(1, 0)).logits
    assert not torch.allclose(logits, other, atol=1e-3)
    assert model(ids, mask, pair_ids, pair_mask).attention.shape[-1] == ids.shape[1]  # over the premise's words


def test_alignment_is_refused_for_single_texts_and_unknown_types():
    with pytest.raises(AttentiveError, match="pair"):
        build_model(load_recipe("lama_ctx", tiny_overrides("lama_ctx") + ["align.type=esim"]), 50, 3)
    with pytest.raises(AttentiveError, match="unknown align type"):
        build_model(load_recipe("default_pair", tiny_overrides("default_pair") + ["align.type=bimpm"]), 50, 3)
