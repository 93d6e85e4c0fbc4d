"""Token vectors + mask -> contextual vectors per token.

Padding is always at the end of a row. The backward direction of a recurrent encoder must not read the padding
first, so each sequence is reversed within its own length before the backward pass (no packing: on CPU
`pack_padded_sequence` measured 1.4-14x slower than padded batches). This keeps every prediction independent
of how much padding a batch has.
"""
from __future__ import annotations

import torch
from torch import nn

from .parts import Encoded, Encoder
from .self_attention import SSANEncoder, TransformerEncoder


def reverse_within_length(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse x[b, :lengths[b]] for every b; positions past the length stay where they are."""
    steps = torch.arange(x.size(1), device=x.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    index = torch.where(steps < lengths, lengths - 1 - steps, steps)
    return x.gather(1, index.unsqueeze(-1).expand_as(x))


class BiRNNEncoder(Encoder):
    """Bidirectional GRU or LSTM; h_i = [->h_i ; <-h_i] in R^{2d} (LAMA paper Eq. 1-3). With
    `bidirectional=False`, the forward pass alone (the LSTM of Wang et al. 2016, §3.1): h_i in R^d.

    `init="xavier"` draws every weight matrix from a Glorot normal distribution and sets the biases to 0
    (Wang et al.'s option); the default keeps PyTorch's uniform initialisation."""

    def __init__(self, input_dim: int, hidden: int, cell: str = "gru", layers: int = 1, dropout: float = 0.0,
                 bidirectional: bool = True, init: str = "default"):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cell]
        extra = {"dropout": dropout} if layers > 1 else {}
        self.forward_rnn = rnn(input_dim, hidden, num_layers=layers, batch_first=True, **extra)
        self.backward_rnn = rnn(input_dim, hidden, num_layers=layers, batch_first=True, **extra) if bidirectional \
            else None
        self.output_dim = 2 * hidden if bidirectional else hidden
        if init not in ("default", "xavier"):
            raise ValueError(f"encoder init must be 'default' or 'xavier', not {init!r}")
        if init == "xavier":
            for name, weight in self.named_parameters():
                nn.init.xavier_normal_(weight) if name.split(".")[-1].startswith("weight") else nn.init.zeros_(weight)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        lengths = mask.sum(1)
        forward_states, _ = self.forward_rnn(x)
        if self.backward_rnn is None:
            return Encoded(forward_states * mask.unsqueeze(-1))
        backward_states, _ = self.backward_rnn(reverse_within_length(x, lengths))
        states = torch.cat([forward_states, reverse_within_length(backward_states, lengths)], dim=-1)
        return Encoded(states * mask.unsqueeze(-1))


class IdentityEncoder(Encoder):
    """No context: the word vectors themselves (the AVG baseline). Padding positions are passed on as they are: every
    pooler masks them (attentive/models/poolers.py), so zeroing them here would only cost a pass over B x T x D."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        return Encoded(x)


class ConvEncoder(Encoder):
    """Kim (2014) CNN: for each filter width, `maps` feature maps with ReLU, kept per position (same-length
    convolution); the max pooler then takes the max over time. Windows that reach past a text's end see zero
    vectors, whether batch padding or the convolution's own, so predictions do not depend on batch padding."""

    def __init__(self, input_dim: int, widths: tuple[int, ...] | list[int] = (3, 4, 5), maps: int = 100):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(input_dim, maps, w) for w in widths)
        # zeros before and after each text so that every width keeps its length ("same" convolution; an even width
        # gets the extra zero at the end, as torch's padding="same" does, without its copy-of-the-input warning)
        self.paddings = [((w - 1) // 2, w - 1 - (w - 1) // 2) for w in widths]
        self.output_dim = maps * len(widths)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        x = (x * mask.unsqueeze(-1)).transpose(1, 2)  # B x D x T
        features = torch.cat([torch.relu(conv(nn.functional.pad(x, padding)))
                              for conv, padding in zip(self.convs, self.paddings)], dim=1).transpose(1, 2)
        return Encoded(features * mask.unsqueeze(-1))


def _recurrent(cell: str, bidirectional: bool = True):
    """The constructor of one recurrent encoder type; its fixed options cannot be given again by a recipe, and
    `builds` names the class whose signature types the rest (attentive/models/option_types.py)."""
    def build(input_dim: int, **options) -> BiRNNEncoder:
        return BiRNNEncoder(input_dim, cell=cell, bidirectional=bidirectional, **options)

    build.builds = BiRNNEncoder
    return build


ENCODERS = {"bigru": _recurrent("gru"),
            "bilstm": _recurrent("lstm"),
            "lstm": _recurrent("lstm", bidirectional=False),
            "gru": _recurrent("gru", bidirectional=False),
            "identity": IdentityEncoder,
            "cnn": ConvEncoder,
            "transformer": TransformerEncoder,
            "ssan": SSANEncoder,
            "pretrained": lambda d, **kw: _pretrained(d, **kw)}


def _pretrained(input_dim, **options):
    from .pretrained import PretrainedEncoder  # imports transformers: only when a recipe asks for it

    return PretrainedEncoder(input_dim, **options)
