"""What each part family of a model must provide (the repository's DESIGN.md: embedder x encoder x pooler x head),
written as base classes: a part subclasses its family's base, keeps its constructor's first argument the input width,
and sets `output_dim`; `attentive.models.registry` names parts for recipes. Everything a later part needs travels in
return values (`Encoded`, `Pooled`), never on the modules, so that a forward pass can be exported or run by several
threads at once.

- Encoder: `forward(words B x T x d, mask B x T) -> Encoded`; zero on padding. `freeze` (a frozen pretrained
  encoder) and `load_pretrained()` (called once when a model is first built for training).
- Pooler: `forward(states B x T x D, mask, aspect=None, received=None) -> Pooled` with one vector per text and the
  attention that made it (B x heads x T). A pooler that computes no attention of its own passes on `received`, the
  attention the encoder's words received (self-attention encoders), so the attention is always in its result.
  `heads` (rows of the attention), `pools_states` (its vector is the attention-weighted states, flattened: word
  polarity scores then exist), `uses_aspect` (it attends with the aspect vector), and the classmethod
  `wants_aspect(options)` (its constructor takes `aspect_dim`).
- Head: `forward(vector[, pair_vector]) -> logits B x classes`. `takes_pair` (premise and hypothesis vectors) and
  `needs_rows` (its constructor takes `rows`, the pooler's heads: it reads M = A H row by row).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .attention import Pooled

__all__ = ["Encoded", "Encoder", "Head", "Pooled", "Pooler"]


@dataclass
class Encoded:
    """An encoder's result: a vector per token (B x T x D, zero on padding) and, for self-attention encoders out of
    training, how much attention each word received in the last layer (B x heads x T), else None."""

    states: torch.Tensor
    received: torch.Tensor | None = None


class Encoder(nn.Module):
    """Word vectors -> token vectors (`Encoded`)."""

    output_dim: int
    freeze: bool = False

    def load_pretrained(self) -> None:
        """Load pretrained weights into a freshly built encoder; most encoders have none."""


class Pooler(nn.Module):
    """Token vectors -> one vector per text and its attention (`Pooled`)."""

    output_dim: int
    heads: int = 1
    pools_states: bool = False
    uses_aspect: bool = False

    @classmethod
    def wants_aspect(cls, options: dict) -> bool:
        """Whether a pooler built with these recipe options attends with the aspect (and takes `aspect_dim`)."""
        return False

    def initialise(self, states: torch.Tensor, mask: torch.Tensor) -> None:
        """Set starting values that depend on the data, from the token vectors of the first training texts; called
        once, before training, by the training pipeline (never inside `forward`). Most poolers have none."""


class Head(nn.Module):
    """Pooled vector(s) -> class logits."""

    takes_pair: bool = False
    needs_rows: bool = False
