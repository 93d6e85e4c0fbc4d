"""Self-attention encoders with a choice of position information: SSAN (Ambartsoumian & Popowich 2018) and the
Transformer encoder (Vaswani et al. 2017).

Positions (`positions` option of both):
- ``none``: no position information (self-attention alone is order-blind),
- ``sinusoidal``: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(...) added to the input (Vaswani §3.5),
- ``learned``: a trained vector per absolute position added to the input (Gehring et al. 2017), up to
  `max_positions`,
- ``rpr``: relative position representations (Shaw et al. 2018, Eq. 3-5): learned vectors a^K_ij and a^V_ij for
  the clipped distance clip(j - i, -k, k) enter the attention itself,
  e_ij = q_i (k_j + a^K_ij)^T / sqrt(d),  z_i = Σ_j α_ij (v_j + a^V_ij).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .parts import Encoded, Encoder

POSITIONS = ("none", "sinusoidal", "learned", "rpr")


def sinusoidal_positions(length: int, dim: int) -> torch.Tensor:
    """Vaswani et al. (2017) §3.5: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d))."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    rate = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)[:, : dim // 2]
    return table


class AbsolutePositions(nn.Module):
    """Adds sinusoidal or learned absolute position vectors to the input; nothing for ``none`` and ``rpr``."""

    def __init__(self, kind: str, dim: int, max_positions: int = 512):
        super().__init__()
        if kind not in POSITIONS:
            raise ValueError(f"positions must be one of {', '.join(POSITIONS)}, not {kind!r}")
        self.kind = kind
        self.table = nn.Embedding(max_positions, dim) if kind == "learned" else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.kind == "sinusoidal":
            return x + sinusoidal_positions(x.size(1), x.size(2)).to(x.device, x.dtype)
        if self.kind == "learned":
            if x.size(1) > self.table.num_embeddings:
                raise ValueError(f"a text of {x.size(1)} tokens is longer than the {self.table.num_embeddings} "
                                 "learned positions (encoder.max_positions)")
            return x + self.table.weight[: x.size(1)].unsqueeze(0)
        return x


class RelativePositions(nn.Module):
    """Shaw et al. (2018): one learned vector per clipped relative distance j - i in [-k, k]."""

    def __init__(self, k: int, dim: int):
        super().__init__()
        self.k = k
        self.table = nn.Embedding(2 * k + 1, dim)
        nn.init.normal_(self.table.weight, std=dim ** -0.5)

    def forward(self, length: int) -> torch.Tensor:
        steps = torch.arange(length, device=self.table.weight.device)
        distance = (steps.unsqueeze(0) - steps.unsqueeze(1)).clamp(-self.k, self.k) + self.k  # [i, j] -> j - i
        return self.table(distance)  # T x T x d


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor,
           relative_keys: torch.Tensor | None = None, relative_values: torch.Tensor | None = None,
           with_weights: bool = False):
    """Scaled dot-product attention of every position over the real tokens (B x H x T x d inputs, mask B x T),
    with Shaw et al.'s relative terms when given (T x T x d). `with_weights` also returns the weights
    (B x H x T x T, each row summing to 1 over the real keys)."""
    if relative_keys is None and relative_values is None and not with_weights:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
    scores = q @ k.transpose(-1, -2)
    if relative_keys is not None:
        scores = scores + torch.einsum("bhid,ijd->bhij", q, relative_keys)
    scores = (scores / math.sqrt(q.size(-1))).masked_fill(~mask[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    if relative_values is not None:
        out = out + torch.einsum("bhij,ijd->bhid", weights, relative_values)
    return (out, weights) if with_weights else out


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    batch, length, dim = x.shape
    return x.view(batch, length, heads, dim // heads).transpose(1, 2)  # B x H x T x d/H


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    batch, heads, length, dim = x.shape
    return x.transpose(1, 2).reshape(batch, length, heads * dim)


class SelfAttention(nn.Module):
    """Multi-head self-attention; `relu=True` gives SSAN's Q, K, V, each a ReLU feed-forward layer of the input.
    With `relative_k`, Shaw et al.'s relative position vectors (shared by the heads) enter Eq. 3-5. Returns the new
    vectors and, out of training, how much attention each word received (`received_attention`, B x H x T; None in
    training), not the B x H x T x T weights themselves."""

    def __init__(self, dim: int, heads: int = 1, relu: bool = False, relative_k: int | None = None):
        super().__init__()
        if dim % heads:
            raise ValueError(f"the model width {dim} must be a multiple of the {heads} heads")
        self.heads, self.relu = heads, relu
        self.query, self.key, self.value = (nn.Linear(dim, dim) for _ in range(3))
        self.relative_keys = RelativePositions(relative_k, dim // heads) if relative_k else None
        self.relative_values = RelativePositions(relative_k, dim // heads) if relative_k else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        activate = torch.relu if self.relu else (lambda t: t)
        q, k, v = (split_heads(activate(layer(x)), self.heads) for layer in (self.query, self.key, self.value))
        length = x.size(1)
        relative = {} if self.relative_keys is None else {"relative_keys": self.relative_keys(length),
                                                          "relative_values": self.relative_values(length)}
        if self.training:
            return merge_heads(attend(q, k, v, mask, **relative)), None
        out, weights = attend(q, k, v, mask, **relative, with_weights=True)
        return merge_heads(out), received_attention(weights, mask)


def received_attention(weights: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """How much attention each word receives, per head: the attention rows of the real words averaged (B x H x T).
    Each row of the weights sums to 1 over the real words, so their mean does too, and padding receives 0. It is
    the attention view of models that pool by averaging (SSAN, the Transformer)."""
    real = mask[:, None, :, None].to(weights.dtype)  # B x 1 x T(queries) x 1
    return (weights * real).sum(2) / real.sum(2).clamp(min=1.0)


class SSANEncoder(Encoder):
    """SSAN (Ambartsoumian & Popowich 2018, §4, Fig. 1): per layer, three ReLU feed-forward layers give Q, K, V of
    the word vectors, one scaled dot-product self-attention (a single head), then a ReLU feed-forward layer and
    dropout; `layers=2` stacks two (the second reads the first's output). d_model = the word-vector size."""

    def __init__(self, input_dim: int, layers: int = 1, positions: str = "none", k: int = 10, dropout: float = 0.7,
                 max_positions: int = 512):
        super().__init__()
        self.positions = AbsolutePositions(positions, input_dim, max_positions)
        relative_k = k if positions == "rpr" else None
        self.attention = nn.ModuleList(SelfAttention(input_dim, 1, relu=True, relative_k=relative_k)
                                       for _ in range(layers))
        self.feed_forward = nn.ModuleList(nn.Linear(input_dim, input_dim) for _ in range(layers))
        self.dropout = nn.Dropout(dropout)
        self.output_dim = input_dim

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        """The token vectors, and the attention each word received in the last layer (out of training)."""
        x, received = self.positions(x), None
        for attention, feed_forward in zip(self.attention, self.feed_forward):
            attended, received = attention(x, mask)
            x = self.dropout(torch.relu(feed_forward(attended))) * mask.unsqueeze(-1)
        return Encoded(x, received)


class TransformerLayer(nn.Module):
    """Vaswani et al. (2017) §3.1 encoder layer: self-attention and a ReLU feed-forward network, each with dropout,
    a residual connection and layer normalisation (post-norm)."""

    def __init__(self, dim: int, heads: int, ff: int, dropout: float, relative_k: int | None):
        super().__init__()
        self.attention = SelfAttention(dim, heads, relative_k=relative_k)
        self.output = nn.Linear(dim, dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(ff, dim))
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.dropout = nn.Dropout(dropout)

    def attention_parameter_count(self) -> int:
        """Q, K, V and output projections (and relative position vectors, if any): the LAMA paper's Fig. 4 count."""
        return sum(p.numel() for p in (*self.attention.parameters(), *self.output.parameters()))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        attended, received = self.attention(x, mask)
        x = self.norm1(x + self.dropout(self.output(attended)))
        return self.norm2(x + self.dropout(self.feed_forward(x))), received


class TransformerEncoder(Encoder):
    """Transformer encoder layers over the word vectors, projected first to `d_model` when the sizes differ (16
    heads need a multiple of 16: 100-d vectors -> 128). The LAMA paper's TE baseline: one layer, 16 heads,
    sinusoidal positions; the SSAN paper's: two layers with PE or RPR."""

    def __init__(self, input_dim: int, layers: int = 1, heads: int = 16, d_model: int | None = None,
                 ff: int | None = None, dropout: float = 0.1, positions: str = "sinusoidal", k: int = 10,
                 max_positions: int = 512):
        super().__init__()
        d_model = d_model or input_dim
        self.project = nn.Linear(input_dim, d_model) if d_model != input_dim else nn.Identity()
        self.positions = AbsolutePositions(positions, d_model, max_positions)
        relative_k = k if positions == "rpr" else None
        self.layers = nn.ModuleList(TransformerLayer(d_model, heads, ff or 4 * d_model, dropout, relative_k)
                                    for _ in range(layers))
        self.dropout = nn.Dropout(dropout)
        self.output_dim = d_model

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Encoded:
        """The token vectors, and the attention each word received, per head, in the last layer (out of training)."""
        x, received = self.dropout(self.positions(self.project(x))), None
        for layer in self.layers:
            x, received = layer(x, mask)
        return Encoded(x * mask.unsqueeze(-1), received)
