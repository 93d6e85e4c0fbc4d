"""Shared attention helpers: masked softmax over words and the attention-layer output record."""
from __future__ import annotations

from dataclasses import dataclass

import torch


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis (words), padding gets exactly 0. scores: B x heads x T, mask: B x T."""
    scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
    return torch.softmax(scores, dim=-1).masked_fill(~mask.unsqueeze(1), 0.0)


@dataclass
class Pooled:
    """A pooler's result: one vector per text, and its attention (B x heads x T) or None for max/mean pooling."""

    vector: torch.Tensor
    attention: torch.Tensor | None = None
    scores: torch.Tensor | None = None  # pre-softmax scores, same shape as attention, for explanations
