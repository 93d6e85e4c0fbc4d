"""A model is embedder × encoder × pooler × head (../DESIGN.md); `build_model` assembles one from a recipe."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..errors import AttentiveError
from .embedders import WordEmbedder
from .encoders import ENCODERS
from .heads import HEADS
from .poolers import POOLERS


@dataclass
class Output:
    logits: torch.Tensor  # B x classes
    attention: torch.Tensor | None  # B x heads x T, rows sum to 1 over real tokens, 0 on padding
    scores: torch.Tensor | None = None  # pre-softmax attention scores


class TextClassifier(nn.Module):
    def __init__(self, embedder: nn.Module, encoder: nn.Module, pooler: nn.Module, head: nn.Module):
        super().__init__()
        self.embedder, self.encoder, self.pooler, self.head = embedder, encoder, pooler, head

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> Output:
        states = self.encoder(self.embedder(ids), mask)
        pooled = self.pooler(states, mask)
        return Output(self.head(pooled.vector), pooled.attention, pooled.scores)


def _options(section: dict) -> dict:
    return {key: value for key, value in section.items() if key != "type"}


def _pick(family: dict, section: dict, what: str):
    kind = section.get("type")
    if kind not in family:
        raise AttentiveError(f"unknown {what} type {kind!r}; known: {', '.join(sorted(family))}")
    return family[kind]


def build_model(recipe: dict, vocab_size: int, classes: int, vectors: np.ndarray | None = None) -> TextClassifier:
    """Assemble the model a recipe describes. `vectors` (vocab_size x dim) initialises the embedding table."""
    emb = recipe["embedder"]
    dim = vectors.shape[1] if vectors is not None else emb["dim"]
    embedder = WordEmbedder(vocab_size, dim, dropout=emb.get("dropout", 0.0), initial=vectors,
                            trainable=emb.get("trainable", True))
    try:
        encoder = _pick(ENCODERS, recipe["encoder"], "encoder")(dim, **_options(recipe["encoder"]))
        pooler = _pick(POOLERS, recipe["pooler"], "pooler")(encoder.output_dim, **_options(recipe["pooler"]))
        head = _pick(HEADS, recipe["head"], "head")(pooler.output_dim, classes, **_options(recipe["head"]))
    except TypeError as exc:  # an option the part does not take
        raise AttentiveError(f"recipe option not understood: {exc}") from None
    return TextClassifier(embedder, encoder, pooler, head)
