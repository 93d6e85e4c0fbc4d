"""An experiment, not a part of attentive: word order read at bag-of-words speed (issue 45, item 2).

The default model attends over its word vectors alone. Here each word's state is its vector with, beside it, a
width-3 convolution over its neighbours' vectors (Kim 2014), h_i = [x_i ; ReLU(b + W_1 x_(i-1) + W_2 x_i + W_3
x_(i+1))], while the LAMA keys (LAMA paper Eq. 7 and 10) stay a function of the word's own vector x_i. Both can then
be folded per vocabulary id at export: the keys as today (attentive/models/folding.py), the convolution as three
tables E W_k^T, leaving three gathers, two additions and a ReLU per word. What the heads read of a word carries its
neighbours ("not good"), what picks the word does not.

    python -m benchmarks.local_order --recipe default --dataset sst2 --seeds 0 1 2 --variant local32 \
        --set encoder.type=local --set encoder.maps=32 --set pooler.type=lama_word_keys --set pooler.key_width=114

takes benchmarks.run's arguments, with the two parts below registered first.
"""
from __future__ import annotations

import sys

import torch
from torch import nn

from attentive.models.parts import Encoded, Encoder
from attentive.models.poolers import LamaPooler
from attentive.models.registry import register


class LocalOrderEncoder(Encoder):
    """[x_i ; ReLU(conv_3(x)_i)]: the word vector and `maps` features of its width-3 window (zero vectors past the
    text's ends)."""

    def __init__(self, input_dim: int, maps: int = 32, width: int = 3):
        super().__init__()
        self.conv = nn.Conv1d(input_dim, maps, width)
        self.padding = ((width - 1) // 2, width - 1 - (width - 1) // 2)
        self.output_dim = input_dim + maps

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        x = x * mask.unsqueeze(-1)
        window = torch.relu(self.conv(nn.functional.pad(x.transpose(1, 2), self.padding))).transpose(1, 2)
        return Encoded(torch.cat([x, window * mask.unsqueeze(-1)], dim=-1))


class WordKeyedLamaPooler(LamaPooler):
    """LAMA+Ctx whose keys P^T tanh(W_w x_i + b_w) read only the first `key_width` entries of a state (the word's
    own vector), so that they stay one table row per vocabulary id; the context vector and the pooled vectors read
    the whole state."""

    def __init__(self, input_dim: int, key_width: int, heads: int = 10, context: str = "document",
                 score_scale: float = 1.0):
        super().__init__(input_dim, heads=heads, context=context, score_scale=score_scale)
        self.key_width = key_width
        self.word_mlp = nn.Linear(key_width, key_width)
        self.P = nn.Parameter(torch.empty(key_width, heads))
        nn.init.xavier_uniform_(self.P)

    def word_keys(self, states: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.word_mlp(states[..., :self.key_width])) @ self.P


register("encoder", "local")(LocalOrderEncoder)
register("pooler", "lama_word_keys")(WordKeyedLamaPooler)

if __name__ == "__main__":
    from benchmarks.run import main

    raise SystemExit(main(sys.argv[1:]))
