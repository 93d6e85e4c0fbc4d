"""Token vectors + mask -> one vector per text, and the attention that produced it (B x heads x T); the Pooler
contract is in attentive/models/parts.py. Poolers without attention of their own pass on the encoder's `received`."""
from __future__ import annotations

import torch
from torch import nn

from .attention import Pooled, masked_softmax
from .parts import Pooler


def masked_mean(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mean of each text's token vectors (B x D), as one batched product with the mask (cheaper in ONNX Runtime
    than a broadcast product and a sum over B x T x D)."""
    weights = mask.to(states.dtype).unsqueeze(1)  # B x 1 x T
    return (weights @ states).squeeze(1) / weights.sum(-1).clamp(min=1.0)


class LamaPooler(Pooler):
    """LAMA: low-rank factorised bilinear multi-head attention (Mehta et al., LAMA paper §3.2-3.3).

    Eq. 7       u_i = tanh(W_w h_i + b_w)
    Eq. 10-11   a_i = P^T u_i ∘ Q^T c  in R^m   (the bilinear W ≈ P Q^T with rank 1 per head; P, Q in R^{2d x m})
    Eq. 12-13   a_i <- L2-normalise_m(tanh(a_i)); A = softmax over the words, per head (padding gets exactly 0)
    Eq. 14-15   M = A H in R^{m x 2d}, flattened into the document vector d of size m * 2d.

    Context vector c:
    - ``context="global"`` (LAMA): one learned vector c in R^{2d}. The paper initialises it with the mean annotation;
      here `initialise` sets it, before training, to the masked mean annotation of the first training texts (in
      data order, so every process computes the same), then it is learned.
    - ``context="document"`` (LAMA+Ctx): c is computed from each document itself as the masked mean of its own
      annotations h_i (no extra parameters), so every text gets its own context.
    - ``context="aspect"`` (aspect-level data): c is the example's aspect vector v_a, mapped linearly to 2d, so the
      heads look for what concerns that aspect.

    Attention-layer parameters (§3.3.2): P and Q, 2 * (2d * m), plus c (2d) for the global variant.
    `score_scale` multiplies the normalised scores before the softmax (1.0 = the paper; a larger value sharpens the
    distributions, cf. Sun & Lu's scaling λ).
    """

    pools_states = True  # the text vector is M = A H flattened (see TextClassifier.word_polarity)

    def __init__(self, input_dim: int, heads: int = 10, context: str = "global", score_scale: float = 1.0,
                 aspect_dim: int | None = None):
        super().__init__()
        if context not in ("global", "document", "aspect"):
            raise ValueError(f"LAMA context must be 'global', 'document' or 'aspect', not {context!r}")
        if (context == "aspect") != (aspect_dim is not None):
            raise ValueError("LAMA context 'aspect' needs a recipe aspect section (and only it takes one)")
        self.context, self.heads, self.score_scale = context, heads, score_scale
        self.word_mlp = nn.Linear(input_dim, input_dim)  # W_w, b_w of Eq. 7
        self.P = nn.Parameter(torch.empty(input_dim, heads))
        self.Q = nn.Parameter(torch.empty(input_dim, heads))
        nn.init.xavier_uniform_(self.P)
        nn.init.xavier_uniform_(self.Q)
        if context == "global":
            self.c = nn.Parameter(torch.zeros(input_dim))
            self.register_buffer("c_initialised", torch.tensor(False))
        if context == "aspect":
            self.uses_aspect = True
            self.aspect_project = nn.Linear(aspect_dim, input_dim)
        self.output_dim = heads * input_dim

    @classmethod
    def wants_aspect(cls, options: dict) -> bool:
        return options.get("context") == "aspect"

    def attention_parameter_count(self) -> int:
        params = [self.P, self.Q] + ([self.c] if self.context == "global" else [])
        return sum(p.numel() for p in params)

    @torch.no_grad()
    def initialise(self, states: torch.Tensor, mask: torch.Tensor) -> None:
        if self.context == "global":
            self.c.copy_(masked_mean(states, mask).mean(0))
            self.c_initialised.fill_(True)

    def context_vector(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if self.context == "document":
            return masked_mean(states, mask)  # B x 2d
        return self.c.unsqueeze(0)  # 1 x 2d

    def word_keys(self, states: torch.Tensor) -> torch.Tensor:
        """P^T u_i of Eq. 7 and 10 (... x m): what each word offers the heads, a function of that word's own state
        alone. Over word vectors (no encoder) it is a per-vocabulary table, which an export looks up instead of
        computing (attentive/models/folding.py)."""
        return torch.tanh(self.word_mlp(states)) @ self.P

    def forward(self, states: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor | None = None,
                received: torch.Tensor | None = None, keys: torch.Tensor | None = None) -> Pooled:
        """`keys`: `word_keys(states)` when the caller has them already (B x T x m)."""
        keys = self.word_keys(states) if keys is None else keys
        c = self.aspect_project(aspect) if self.context == "aspect" else self.context_vector(states, mask)
        alignment = keys * (c @ self.Q).unsqueeze(1)  # B x T x m   (P^T u_i ∘ Q^T c)
        scores = torch.tanh(alignment)  # normalised over the heads, as F.normalize does, without its expand
        scores = scores / scores.norm(dim=-1, keepdim=True).clamp_min(1e-12) * self.score_scale
        scores = scores.transpose(1, 2)  # B x m x T
        attention = masked_softmax(scores, mask)
        pooled = attention @ states  # B x m x 2d
        return Pooled(pooled.flatten(1), attention, scores)


class StructuredSelfAttentionPooler(Pooler):
    """Structured self-attention (Lin et al. 2017, §2, Eq. 5-6): A = softmax(W_s2 tanh(W_s1 H^T)), M = A H.

    W_s1 in R^{d_a x 2u}, W_s2 in R^{r x d_a} (no biases, as in the paper); r hops, each a distribution over the
    words (padding gets 0). M (r x 2u) is flattened. Attention-layer parameters: d_a * 2u + r * d_a.
    The penalty ||A A^T - I||_F^2 (Eq. 8) is a training regulariser (attentive.training.regularisers), not part of it.
    """

    pools_states = True  # the text vector is M = A H flattened (see TextClassifier.word_polarity)

    def __init__(self, input_dim: int, hops: int = 30, hidden: int = 350):
        super().__init__()
        self.W_s1 = nn.Linear(input_dim, hidden, bias=False)
        self.W_s2 = nn.Linear(hidden, hops, bias=False)
        self.heads = hops
        self.output_dim = hops * input_dim

    def attention_parameter_count(self) -> int:
        return self.W_s1.weight.numel() + self.W_s2.weight.numel()

    def forward(self, states: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor | None = None,
                received: torch.Tensor | None = None) -> Pooled:
        scores = self.W_s2(torch.tanh(self.W_s1(states))).transpose(1, 2)  # B x r x T
        attention = masked_softmax(scores, mask)
        return Pooled((attention @ states).flatten(1), attention, scores)


class DotAttentionPooler(Pooler):
    """Sun & Lu (2020): one head, a_j = h_j^T V / λ with a learned context vector V and a scaling λ (their default
    10), α = softmax(a), h = Σ_j α_j h_j. With a bias-free linear head (logit s = h^T W) the logit decomposes into
    s = Σ_j α_j s_j, where s_j = h_j^T W is word j's polarity score (see attentive.explain)."""

    pools_states = True  # the text vector is M = A H flattened (see TextClassifier.word_polarity)

    def __init__(self, input_dim: int, scale: float = 10.0):
        super().__init__()
        self.V = nn.Parameter(torch.empty(input_dim).uniform_(-0.1, 0.1))
        self.scale = scale
        self.heads = 1
        self.output_dim = input_dim

    def attention_parameter_count(self) -> int:
        return self.V.numel()

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        scores = (states @ self.V / self.scale).unsqueeze(1)  # B x 1 x T
        attention = masked_softmax(scores, mask)
        return Pooled((attention @ states).squeeze(1), attention, scores)


class AdditiveAttentionPooler(Pooler):
    """Single-head additive attention (Bahdanau et al. 2015; Sun & Lu's other scoring function):
    a_j = v^T tanh(W h_j + b), α = softmax(a), h = Σ_j α_j h_j."""

    pools_states = True  # the text vector is M = A H flattened (see TextClassifier.word_polarity)

    def __init__(self, input_dim: int, hidden: int = 100):
        super().__init__()
        self.project = nn.Linear(input_dim, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.heads = 1
        self.output_dim = input_dim

    def attention_parameter_count(self) -> int:
        return sum(p.numel() for p in (*self.project.parameters(), *self.v.parameters()))

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        scores = self.v(torch.tanh(self.project(states))).transpose(1, 2)  # B x 1 x T
        attention = masked_softmax(scores, mask)
        return Pooled((attention @ states).squeeze(1), attention, scores)


class MaxPooler(Pooler):
    """Max over time of the (masked) token vectors (the BiGRU and CNN baselines)."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        return Pooled(states.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(1).values, received)


class MeanPooler(Pooler):
    """Mean of the token vectors over real tokens (the AVG baseline, the TE encoder's output)."""

    def __init__(self, input_dim: int):
        super().__init__()
        self.output_dim = input_dim

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        return Pooled(masked_mean(states, mask), received)


def last_states(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """h_N: each text's state at its last real token (B x D)."""
    last = (mask.sum(1) - 1).clamp(min=0)
    return states[torch.arange(states.size(0), device=states.device), last]


class LastStatePooler(Pooler):
    """The LSTM baseline's sentence vector: the last hidden state h_N (Wang et al. §3.1). No attention.
    `directions=2` (a bidirectional encoder, Barnes et al.'s BiLSTM): each direction's final state, the forward
    half at the last word and the backward half at the first, concatenated."""

    def __init__(self, input_dim: int, directions: int = 1):
        super().__init__()
        if directions not in (1, 2):
            raise ValueError(f"last-state pooler directions must be 1 or 2, not {directions}")
        self.directions = directions
        self.output_dim = input_dim

    def forward(self, states, mask, aspect=None, received=None) -> Pooled:
        last = last_states(states, mask)
        if self.directions == 1:
            return Pooled(last, received)
        half = states.size(-1) // 2
        return Pooled(torch.cat([last[:, :half], states[:, 0, half:]], dim=-1), received)


POOLERS = {"lama": LamaPooler, "san": StructuredSelfAttentionPooler, "dot": DotAttentionPooler,
           "additive": AdditiveAttentionPooler, "max": MaxPooler, "mean": MeanPooler,
           "last": LastStatePooler}
