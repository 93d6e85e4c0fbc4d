"""Shared attention helpers: masked softmax over words and the attention-layer output record."""
from __future__ import annotations

from dataclasses import dataclass

import torch


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis (words), padding gets exactly 0. scores: B x heads x T, mask: B x T.

    Padding is moved to the dtype's lowest value by one broadcast addition (0 is added to a word's score, so the
    words' values are unchanged), and its exponential underflows to exactly 0: one Add in an exported graph where
    two masked fills were two Where ops over every head's copy of the mask."""
    padding = 1.0 - mask.unsqueeze(1).to(scores.dtype)  # B x 1 x T: 1 at padding
    return torch.softmax(scores + padding * torch.finfo(scores.dtype).min, dim=-1)


@dataclass
class Pooled:
    """A pooler's result: one vector per text, and its attention (B x heads x T) or None for max/mean pooling."""

    vector: torch.Tensor
    attention: torch.Tensor | None = None
    scores: torch.Tensor | None = None  # pre-softmax scores, same shape as attention, for explanations
