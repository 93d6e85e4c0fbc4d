"""Training a model that learns only its head: each distinct text is pooled once and its vector reused.

`FrozenPooling(network)` is a training-time view of a TextClassifier whose `frozen_below_head` is true (a frozen
pretrained encoder read by a pooler without parameters or dropout, single texts, no aspect): its forward runs the
head (and the n-gram channel) over cached pooled vectors, computing them, without gradients, only for texts it
has not seen. The epochs and dev passes of `fit` then pay the frozen encoder's cost once. The cache lives on this
wrapper, which `fit` makes and drops, never on the model, whose forward stays free of state.
"""
from __future__ import annotations

import torch
from torch import nn

from ..models.classifier import Output


class FrozenPooling(nn.Module):
    def __init__(self, network: nn.Module):
        super().__init__()
        self.network = network
        self.pooled: dict[bytes, torch.Tensor] = {}

    def vectors(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The pooled vector of each row, computed (without gradients) for the rows not seen before."""
        keys = [row[: int(length)].cpu().numpy().tobytes() for row, length in zip(ids, mask.sum(1))]
        missing: dict[bytes, int] = {}  # each unseen text, and the first row that holds it
        for row, key in enumerate(keys):
            if key not in self.pooled:
                missing.setdefault(key, row)
        if missing:
            rows = torch.tensor(list(missing.values()), device=ids.device)
            with torch.no_grad():
                vectors = self.network.pool(ids[rows], mask[rows]).vector
            self.pooled.update(zip(missing, vectors))
        return torch.stack([self.pooled[key] for key in keys])

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, **_unused) -> Output:
        logits = self.network.head(self.vectors(ids, mask))
        if self.network.wide is None:
            return Output(logits, None)
        wide = self.network.wide(ids, mask)
        return Output(logits + wide, None, wide_logits=wide)
