"""A model is embedder × encoder × pooler × head (../DESIGN.md); `build_model` assembles one from a recipe."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..errors import AttentiveError
from .embedders import WordEmbedder
from .encoders import ENCODERS
from .heads import HEADS, PAIR_HEADS
from .poolers import POOLERS


@dataclass
class Output:
    logits: torch.Tensor  # B x classes
    attention: torch.Tensor | None  # B x heads x T, rows sum to 1 over real tokens, 0 on padding
    scores: torch.Tensor | None = None  # pre-softmax attention scores
    pair_attention: torch.Tensor | None = None  # the second text's attention, for pair models


class TextClassifier(nn.Module):
    def __init__(self, embedder: nn.Module, encoder: nn.Module, pooler: nn.Module, head: nn.Module):
        super().__init__()
        self.embedder, self.encoder, self.pooler, self.head = embedder, encoder, pooler, head

    @property
    def is_pair(self) -> bool:
        return isinstance(self.head, PAIR_HEADS)

    def pool(self, ids: torch.Tensor, mask: torch.Tensor):
        return self.pooler(self.encoder(self.embedder(ids), mask), mask)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, pair_ids: torch.Tensor | None = None,
                pair_mask: torch.Tensor | None = None) -> Output:
        """Logits and attention of single texts, or of (text, pair) through one shared encoder (Lin et al. App. B)."""
        pooled = self.pool(ids, mask)
        if pair_ids is None:
            return Output(self.head(pooled.vector), pooled.attention, pooled.scores)
        pair = self.pool(pair_ids, pair_mask)
        return Output(self.head(pooled.vector, pair.vector), pooled.attention, pooled.scores, pair.attention)


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
    if emb.get("type") == "none":  # the encoder takes token ids itself (a pretrained Transformer)
        embedder, dim = nn.Identity(), None
    else:
        dim = vectors.shape[1] if vectors is not None else emb["dim"]
        embedder = WordEmbedder(vocab_size, dim, dropout=emb.get("dropout", 0.0), initial=vectors,
                                trainable=emb.get("trainable", True))
    try:
        encoder = _pick(ENCODERS, recipe["encoder"], "encoder")(dim, **_options(recipe["encoder"]))
        pooler = _pick(POOLERS, recipe["pooler"], "pooler")(encoder.output_dim, **_options(recipe["pooler"]))
        structured = recipe["head"].get("type") in ("pruned", "gated_pair")  # they need M's rows
        rows = {"rows": getattr(pooler, "heads", 1)} if structured else {}
        head = _pick(HEADS, recipe["head"], "head")(pooler.output_dim, classes, **rows, **_options(recipe["head"]))
    except TypeError as exc:  # an option the part does not take
        raise AttentiveError(f"recipe option not understood: {exc}") from None
    return TextClassifier(embedder, encoder, pooler, head)
