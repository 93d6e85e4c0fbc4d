"""Aspect-level parts (Wang et al. 2016, ATAE-LSTM): an aspect vector v_a per example, and the aspect-conditioned
attention pooler of AT-LSTM.

The recipe's `aspect` section picks how v_a is made:
- ``type: learned`` (aspect categories: food, service, ...): a trainable embedding per aspect the training data
  names, `dim` wide. Aspect ids start at 1 (0 is padding).
- ``type: words`` (open-ended aspect terms such as "waiter" or "chicken tikka"): the mean of the aspect's word
  vectors, looked up in the model's own (shared, trained) word table.
- ``append_to_words: true`` (AE-LSTM, §3.2): v_a is concatenated to every word vector before the encoder.
"""
from __future__ import annotations

import torch
from torch import nn

from .attention import Pooled, masked_softmax
from .parts import Pooler
from .poolers import last_states, masked_mean

ASPECT_TYPES = ("none", "ignore", "learned", "words")


class AspectEmbedder(nn.Module):
    """v_a in R^{d_a}: a learned table over the known aspects, or the mean word vector of the aspect's words."""

    def __init__(self, kind: str, aspects: int = 0, dim: int = 0, word_dim: int = 0, append_to_words: bool = False):
        super().__init__()
        if kind not in ("learned", "words"):
            raise ValueError(f"aspect type must be one of {', '.join(ASPECT_TYPES)}, not {kind!r}")
        self.kind, self.append_to_words = kind, append_to_words
        self.table = nn.Embedding(aspects + 1, dim, padding_idx=0) if kind == "learned" else None
        if self.table is not None:
            nn.init.uniform_(self.table.weight, -0.01, 0.01)  # Wang et al. §4.1: U(-ε, ε) for the aspect vectors
        self.output_dim = dim if kind == "learned" else word_dim

    def forward(self, aspect_ids: torch.Tensor, aspect_mask: torch.Tensor,
                word_table: nn.Embedding | None) -> torch.Tensor:
        if self.table is not None:
            return self.table(aspect_ids[:, 0])  # B x d_a
        return masked_mean(word_table(aspect_ids), aspect_mask)


class AspectAttentionPooler(Pooler):
    """AT-LSTM attention (Wang et al. 2016, §3.3, Eq. 1-4):

    Eq. 1   M = tanh([W_h H ; W_v v_a ⊗ e_N])        M in R^{(d + d_a) x N}
    Eq. 2   α = softmax(w^T M)                         over the N real words (padding gets 0)
    Eq. 3   r = H α^T
    Eq. 4   h* = tanh(W_p r + W_x h_N)                 the sentence vector given the aspect

    H are the encoder's states (d each), v_a the aspect vector (d_a); one attention head.

    Taken literally (``form="concat"``), Eq. 1-2 cannot see the aspect: w^T M splits into w_h^T tanh(W_h h_i), which
    varies over the words, plus w_v^T tanh(W_v v_a), which is the same for every word and cancels in the softmax.
    With Eq. 4 also aspect-free, AT-LSTM's answer then does not depend on the aspect at all (ATAE-LSTM still sees
    it through its input). The default ``form="additive"`` lets the aspect steer the attention by mixing it with
    each word before the tanh, M_i = tanh(W_h h_i + W_v v_a) (Bahdanau-style additive attention with the aspect as
    the query), and keeps Eq. 2-4.
    """

    uses_aspect = True

    @classmethod
    def wants_aspect(cls, options: dict) -> bool:
        return True

    def __init__(self, input_dim: int, aspect_dim: int, form: str = "additive"):
        super().__init__()
        if form not in ("additive", "concat"):
            raise ValueError(f"aspect attention form must be 'additive' or 'concat', not {form!r}")
        self.form = form
        self.W_h = nn.Linear(input_dim, input_dim, bias=False)
        aspect_out = aspect_dim if form == "concat" else input_dim
        self.W_v = nn.Linear(aspect_dim, aspect_out, bias=False)
        self.w = nn.Linear(input_dim + aspect_out if form == "concat" else input_dim, 1, bias=False)
        self.W_p = nn.Linear(input_dim, input_dim, bias=False)
        self.W_x = nn.Linear(input_dim, input_dim, bias=False)
        self.output_dim = input_dim

    def attention_parameter_count(self) -> int:
        return sum(p.numel() for p in (self.W_h.weight, self.W_v.weight, self.w.weight))

    def forward(self, states: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor,
                received: torch.Tensor | None = None) -> Pooled:
        words, query = self.W_h(states), self.W_v(aspect).unsqueeze(1)  # B x N x d, B x 1 x d_a (or d)
        if self.form == "concat":
            M = torch.tanh(torch.cat([words, query.expand(-1, states.size(1), -1)], dim=-1))  # Eq. 1
        else:
            M = torch.tanh(words + query)
        scores = self.w(M).transpose(1, 2)  # B x 1 x N
        attention = masked_softmax(scores, mask)
        r = (attention @ states).squeeze(1)  # B x d
        sentence = torch.tanh(self.W_p(r) + self.W_x(last_states(states, mask)))
        return Pooled(sentence, attention, scores)


def aspect_input(words: torch.Tensor, aspect: torch.Tensor) -> torch.Tensor:
    """AE-LSTM's input: [w_i ; v_a] for every word i (B x T x (d_w + d_a))."""
    return torch.cat([words, aspect.unsqueeze(1).expand(-1, words.size(1), -1)], dim=-1)

