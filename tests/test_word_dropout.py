"""Word dropout (`embedder.word_dropout`): whole tokens dropped in training only, wired from the recipe."""
from __future__ import annotations

import pytest
import torch

from attentive.errors import AttentiveError
from attentive.models.classifier import build_model
from attentive.models.embedders import WordEmbedder
from attentive.recipes import load_recipe


def test_training_drops_whole_tokens_and_scales_the_kept_ones_while_evaluation_reads_every_token():
    torch.manual_seed(0)
    embedder = WordEmbedder(50, 8, word_dropout=0.3)
    ids = torch.randint(1, 50, (40, 100))
    looked_up = embedder.table(ids)
    embedder.train()
    dropped = embedder(ids)
    zeroed = (dropped == 0).all(-1)
    assert 0.25 < zeroed.float().mean().item() < 0.35  # about 30% of the tokens, each one whole
    torch.testing.assert_close(dropped[~zeroed], looked_up[~zeroed] / 0.7)
    embedder.eval()
    torch.testing.assert_close(embedder(ids), looked_up)


def test_the_recipe_setting_reaches_the_embedder_and_a_rate_of_one_is_refused():
    recipe = load_recipe("lama_ctx", ["embedder.word_dropout=0.2", "embedder.vectors=random"])
    assert build_model(recipe, 50, 2).embedder.word_dropout == 0.2
    assert build_model(load_recipe("lama_ctx", ["embedder.vectors=random"]), 50, 2).embedder.word_dropout == 0.0
    with pytest.raises(AttentiveError, match="embedder.word_dropout must be a number ≥ 0 and < 1"):
        load_recipe("lama_ctx", ["embedder.word_dropout=1"])
