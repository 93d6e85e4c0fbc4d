"""Pooled representation -> class logits (LAMA paper Eq. 16-17: softmax(W_o d + b_o), optionally an MLP first)."""
from __future__ import annotations

from torch import nn


class MLPHead(nn.Module):
    """Dropout -> [Linear -> ReLU -> Dropout] (when hidden > 0) -> Linear to the classes."""

    def __init__(self, input_dim: int, classes: int, hidden: int = 0, dropout: float = 0.0):
        super().__init__()
        layers: list[nn.Module] = [nn.Dropout(dropout)]
        if hidden:
            layers += [nn.Linear(input_dim, hidden), nn.ReLU(), nn.Dropout(dropout)]
            input_dim = hidden
        layers.append(nn.Linear(input_dim, classes))
        self.net = nn.Sequential(*layers)

    def forward(self, pooled):
        return self.net(pooled)


HEADS = {"mlp": MLPHead}
