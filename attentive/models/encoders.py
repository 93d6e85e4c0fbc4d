"""Token vectors + mask -> contextual vectors per token.

Padding is always at the end of a row. The backward direction of a recurrent encoder must not read the padding
first, so each sequence is reversed within its own length before the backward pass (no packing: on CPU
`pack_padded_sequence` measured 1.4-14x slower than padded batches). This keeps every prediction independent
of how much padding a batch has.
"""
from __future__ import annotations

import torch
from torch import nn


def reverse_within_length(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse x[b, :lengths[b]] for every b; positions past the length stay where they are."""
    steps = torch.arange(x.size(1), device=x.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    index = torch.where(steps < lengths, lengths - 1 - steps, steps)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


class BiRNNEncoder(nn.Module):
    """Bidirectional GRU or LSTM; h_i = [->h_i ; <-h_i] in R^{2d} (LAMA paper Eq. 1-3)."""

    def __init__(self, input_dim: int, hidden: int, cell: str = "gru", layers: int = 1, dropout: float = 0.0):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cell]
        extra = {"dropout": dropout} if layers > 1 else {}
        self.forward_rnn = rnn(input_dim, hidden, num_layers=layers, batch_first=True, **extra)
        self.backward_rnn = rnn(input_dim, hidden, num_layers=layers, batch_first=True, **extra)
        self.output_dim = 2 * hidden

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        lengths = mask.sum(1)
        forward_states, _ = self.forward_rnn(x)
        backward_states, _ = self.backward_rnn(reverse_within_length(x, lengths))
        states = torch.cat([forward_states, reverse_within_length(backward_states, lengths)], dim=-1)
        return states * mask.unsqueeze(-1)


class IdentityEncoder(nn.Module):
    """No context: the word vectors themselves (the AVG baseline)."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x * mask.unsqueeze(-1)


ENCODERS = {"bigru": lambda d, **kw: BiRNNEncoder(d, cell="gru", **kw),
            "bilstm": lambda d, **kw: BiRNNEncoder(d, cell="lstm", **kw),
            "identity": lambda d, **kw: IdentityEncoder(d)}
