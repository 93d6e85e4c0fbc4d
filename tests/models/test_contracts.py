"""Parts with written contracts (attentive/models/parts.py): a pooler written here and registered in one line builds
and trains through a recipe, and its attention reaches the explanations; the attention of a self-attention encoder
travels in return values, whichever pooler reads it."""
from __future__ import annotations

import torch

import attentive
from attentive.models.classifier import build_model
from attentive.models.parts import Pooled, Pooler
from attentive.models.registry import PARTS, register
from attentive.recipes.loader import load_recipe

from ..helpers import TINY


class FirstWordPooler(Pooler):
    """The first word's vector; all the attention rests on it."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        attention = torch.zeros(states.size(0), 1, states.size(1))
        attention[:, 0, 0] = 1.0
        return Pooled(states[:, 0], attention)


def test_a_pooler_registered_in_one_line_trains_through_a_recipe(sst2_small):
    register("pooler", "first_word")(FirstWordPooler)
    try:
        recipe = load_recipe({**load_recipe("lama_ctx").as_dict(), "pooler": {"type": "first_word"}})
        model = attentive.train(sst2_small, recipe, overrides=TINY + ["encoder.hidden=8"], show_progress=False)
        [explanation] = model.explain("a gorgeous , witty film")
        assert explanation.attention[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
        assert explanation.prediction.top_words[0][0] == "a"
    finally:
        PARTS["pooler"].pop("first_word")


def test_a_mean_pooled_self_attention_encoder_passes_its_attention_on_in_return_values():
    recipe = load_recipe("ssan", ["embedder.vectors=random", "embedder.dim=8"])
    network = build_model(recipe, vocab_size=30, classes=2).eval()
    ids = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]])
    mask = ids != 0
    first = network(ids, mask)
    assert first.attention is not None and first.attention.shape == (2, 1, 4)
    assert torch.allclose(first.attention.sum(-1), torch.ones(2, 1))
    assert not any(hasattr(module, "received") for module in network.modules()), "nothing stashed on modules"
    network.train()
    assert network(ids, mask).attention is None  # in training the weights are not kept
