"""Cross-attention between the two texts of a pair, before each is pooled: ESIM's local inference and inference
composition (Chen et al. 2017, "Enhanced LSTM for Natural Language Inference", §3.2-3.3).

The pair models of Lin et al. (Appendix B) and InferSent pool each text alone and compare the two vectors; nothing
tells the premise's attention which of its words the hypothesis speaks of. Here each word of one text first attends
over the words of the other (Eq. 11-13): with a = the premise's states, b = the hypothesis's,

    e_ij = a_i · b_j,   ã_i = Σ_j softmax_j(e_ij) b_j,   b̃_j = Σ_i softmax_i(e_ij) a_i

enhanced by difference and product (Eq. 14-15), m_a = [a; ã; a - ã; a ∘ ã], projected back to the state width by a
ReLU layer (the F of Eq. 16) and re-read in context by a biGRU (the composition of Eq. 16-17; ESIM uses a biLSTM).
Its output has the encoder's width, so the model's own pooler pools it as it would the encoder's states: the
attention an explanation shows is still over each text's own words, now read in the light of the other text.
"""
from __future__ import annotations

import torch
from torch import nn

from .encoders import BiRNNEncoder
from .parts import Encoded


def soft_align(a: torch.Tensor, mask_a: torch.Tensor, b: torch.Tensor, mask_b: torch.Tensor):
    """(ã, b̃): each word of a as the attention-weighted sum of b's states, and each word of b of a's (Eq. 11-13).
    Padding is never attended to; the padded rows of the results are zero."""
    energy = a @ b.transpose(1, 2)  # B x Ta x Tb
    pad_b = ~mask_b.bool().unsqueeze(1)
    pad_a = ~mask_a.bool().unsqueeze(2)
    lowest = torch.finfo(energy.dtype).min  # not -inf: a text of no tokens then aligns to zeros, not NaN
    over_b = torch.softmax(energy.masked_fill(pad_b, lowest), dim=2).masked_fill(pad_a, 0.0)
    over_a = torch.softmax(energy.masked_fill(pad_a, lowest), dim=1).masked_fill(pad_b, 0.0)
    return over_b @ b, over_a.transpose(1, 2) @ a


class CrossAlignment(nn.Module):
    """ESIM's local inference and composition for a pair of encoded texts (see the module docstring). `dropout`
    applies to the projected inputs of the composition biGRU."""

    def __init__(self, dim: int, dropout: float = 0.0):
        super().__init__()
        if dim % 2:
            raise ValueError(f"align: the encoder's width {dim} must be even (a biGRU of half the width each way)")
        self.project = nn.Sequential(nn.Linear(4 * dim, dim), nn.ReLU(), nn.Dropout(dropout))
        self.compose = BiRNNEncoder(dim, dim // 2)
        self.output_dim = dim

    def enhance(self, states: torch.Tensor, aligned: torch.Tensor, mask: torch.Tensor) -> Encoded:
        merged = torch.cat([states, aligned, states - aligned, states * aligned], dim=-1)  # Eq. 14-15
        return self.compose(self.project(merged), mask)

    def forward(self, first: Encoded, first_mask: torch.Tensor, second: Encoded, second_mask: torch.Tensor):
        """Both texts' states, each re-read beside its soft alignment with the other (attention received by a
        self-attention encoder's words is passed on unchanged)."""
        aligned_first, aligned_second = soft_align(first.states, first_mask, second.states, second_mask)
        return (Encoded(self.enhance(first.states, aligned_first, first_mask).states, first.received),
                Encoded(self.enhance(second.states, aligned_second, second_mask).states, second.received))
