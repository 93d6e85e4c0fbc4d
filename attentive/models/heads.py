"""Pooled representation -> class logits (LAMA paper Eq. 16-17: softmax(W_o d + b_o), optionally an MLP first)."""
from __future__ import annotations

import torch
from torch import nn

from .parts import Head


class MLPHead(Head):
    """Dropout -> [Linear -> ReLU -> Dropout] (when hidden > 0) -> Linear to the classes (`bias: false` drops the
    last layer's bias, as Sun & Lu's logit s = h^T W).

    `sigmoid: true` (two classes only) is Sun & Lu's binary form: one score s, P(second class) = σ(s). It is given
    as the logits (0, s), whose softmax is (1 - σ(s), σ(s)), so the cross-entropy is their binary log-loss."""

    def __init__(self, input_dim: int, classes: int, hidden: int = 0, dropout: float = 0.0, bias: bool = True,
                 sigmoid: bool = False):
        super().__init__()
        if sigmoid and classes != 2:
            raise ValueError(f"head.sigmoid is for two classes, not {classes}")
        self.sigmoid = sigmoid
        layers: list[nn.Module] = [nn.Dropout(dropout)]
        if hidden:
            layers += [nn.Linear(input_dim, hidden), nn.ReLU(), nn.Dropout(dropout)]
            input_dim = hidden
        layers.append(nn.Linear(input_dim, 1 if sigmoid else classes, bias=bias))
        self.net = nn.Sequential(*layers)

    def forward(self, pooled):
        return self.logits_and_hidden(pooled)[0]

    def logits_and_hidden(self, pooled) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The logits, and the hidden layer's input to its ReLU (W1 m + b1; None without a hidden layer), which
        `margin_gradient` reads: `net`'s own layers, in order."""
        hidden = None
        if len(self.net) == 2:
            logits = self.net(pooled)
        else:
            hidden = self.net[1](self.net[0](pooled))
            logits = self.net[4](self.net[3](self.net[2](hidden)))
        return (torch.cat([torch.zeros_like(logits), logits], dim=-1) if self.sigmoid else logits), hidden

    def margin_gradient(self, hidden: torch.Tensor | None, direction: torch.Tensor) -> torch.Tensor:
        """B x input: the gradient of the logits' `direction` (B x classes: +1 at the label ranked first, −1 at the
        runner-up) at each text's pooled vector m, in closed form (out of training, dropout is the identity):
        direction · W_out for a linear head, and W1ᵀ((direction · W2) ∘ 1[W1 m + b1 > 0]) through the hidden ReLU
        layer (`hidden`, W1 m + b1, from `logits_and_hidden`). A closed form, not autograd, and few operators, so
        that an exported graph computes it too, cheaply (attentive/models/linearised.py)."""
        out = self.net[-1].weight  # classes (1 for the sigmoid form) x hidden
        if self.sigmoid:  # the logits are (0, s)
            out = torch.cat([torch.zeros_like(out), out])
        gradient = direction @ out  # B x hidden
        if hidden is None:
            return gradient
        return (gradient * (hidden > 0).to(gradient.dtype)) @ self.net[1].weight


class PrunedMLPHead(Head):
    """Lin et al. 2017, Appendix A: a hidden layer whose connections follow the matrix embedding M (r x c).

    Row-wise groups: r groups of p units, group i connected only to row i of M (M^v, r x p).
    Column-wise groups: c groups of q units, group j connected only to column j of M (M^h, c x q).
    ReLU, both flattened and concatenated, then a linear softmax layer. Hidden-layer parameters:
    r*c*p + r*p (row-wise) + c*r*q + c*q (column-wise), instead of r*c*(r*p + c*q) for a full layer.
    """

    needs_rows = True

    def __init__(self, input_dim: int, classes: int, rows: int, p: int = 25, q: int = 20, dropout: float = 0.0):
        super().__init__()
        if input_dim % rows:
            raise ValueError(f"pruned head: pooled size {input_dim} is not {rows} rows")
        self.rows, self.cols = rows, input_dim // rows
        self.row_weight = nn.Parameter(torch.empty(rows, self.cols, p))
        self.row_bias = nn.Parameter(torch.zeros(rows, p))
        self.col_weight = nn.Parameter(torch.empty(self.cols, rows, q))
        self.col_bias = nn.Parameter(torch.zeros(self.cols, q))
        for weight in (self.row_weight, self.col_weight):
            nn.init.kaiming_uniform_(weight.view(weight.size(0), -1), a=5 ** 0.5)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(rows * p + self.cols * q, classes)

    def hidden_parameter_count(self) -> int:
        return sum(t.numel() for t in (self.row_weight, self.row_bias, self.col_weight, self.col_bias))

    def forward(self, pooled):
        m = self.dropout(pooled.view(-1, self.rows, self.cols))
        by_row = torch.relu(torch.einsum("brc,rcp->brp", m, self.row_weight) + self.row_bias)
        by_col = torch.relu(torch.einsum("brc,crq->bcq", m, self.col_weight) + self.col_bias)
        return self.out(self.dropout(torch.cat([by_row.flatten(1), by_col.flatten(1)], dim=1)))


class GatedPairHead(Head):
    """Lin et al. 2017, Appendix B (gated encoder): relate the matrix embeddings of two texts, then an MLP.

    F_h = batched_dot(M_h, W_fh), F_p = batched_dot(M_p, W_fp): row i of M (c values) times its own c x f matrix;
    F_r = F_h ∘ F_p (Eq. 12), flattened (r * f) into an MLP with a ReLU hidden layer.

    `normalise: true` layer-normalises each row of F_h and F_p (over its f factors, no learned gain; Ba et al. 2016)
    before the product. Without it the product of two small numbers is smaller still: M's entries are attention
    averages of states in [-1, 1], F's entries come out near 0.1 at Glorot initialisation, their product near 0.01,
    and the MLP's first layer then reads almost nothing but its biases.

    `same_start: true` starts W_fp as a copy of W_fh (they are still two parameters and train apart). With two
    independent random starts, Σ_f F_h[i,f] F_p[i,f] is a random bilinear form of the two rows, unrelated to
    whether the texts agree; from one start it is m_h W Wᵀ m_p, a similarity of the two texts' i-th rows, so the
    MLP reads from the first step how alike the two texts are, which entailment turns on (benchmarks/DECISIONS.md,
    "Aspect and pair defaults", has what the options did).

    `offset: c` adds a learned bias per row and factor to each side, started at +c on F_h and -c on F_p. A product
    of factors alone cannot say which of two texts has what the other lacks; offset factors can:
    (c + x)(y - c) = c (y - x) + x y - c², so the MLP reads the difference of the two texts' factors linearly (its
    ReLU layer can make |y - x| of it) beside their product. c = 0 (the default) is the paper's form.
    """

    takes_pair, needs_rows = True, True

    def __init__(self, input_dim: int, classes: int, rows: int, factors: int = 50, hidden: int = 300,
                 dropout: float = 0.0, normalise: bool = False, same_start: bool = False, offset: float = 0.0):
        super().__init__()
        if input_dim % rows:
            raise ValueError(f"pair head: pooled size {input_dim} is not {rows} rows")
        self.rows, cols = rows, input_dim // rows
        self.W_fh = nn.Parameter(torch.empty(rows, cols, factors))
        self.W_fp = nn.Parameter(torch.empty(rows, cols, factors))
        for weight in (self.W_fh, self.W_fp):
            for row in weight.data:  # Glorot for each row's own c x f matrix (a 3-d init would use r*f as fan-out)
                nn.init.xavier_uniform_(row)
        if same_start:
            self.W_fp.data.copy_(self.W_fh.data)
        self.norm = nn.LayerNorm(factors, elementwise_affine=False) if normalise else nn.Identity()
        self.offset_h = self.offset_p = None
        if offset:
            self.offset_h = nn.Parameter(torch.full((rows, factors), float(offset)))
            self.offset_p = nn.Parameter(torch.full((rows, factors), -float(offset)))
        self.mlp = MLPHead(rows * factors, classes, hidden, dropout)

    def forward(self, premise, hypothesis):
        m_p = premise.view(premise.size(0), self.rows, -1)
        m_h = hypothesis.view(hypothesis.size(0), self.rows, -1)
        f_p = self.norm(torch.einsum("brc,rcf->brf", m_p, self.W_fp))
        f_h = self.norm(torch.einsum("brc,rcf->brf", m_h, self.W_fh))
        if self.offset_h is not None:
            f_h, f_p = f_h + self.offset_h, f_p + self.offset_p
        return self.mlp((f_h * f_p).flatten(1))


class MatchingPairHead(Head):
    """Sentence-pair matching features (Mou et al. 2016; Conneau et al. 2017, InferSent): the two pooled vectors
    u and v, |u - v| and u ∘ v, concatenated into an MLP. The difference carries what the gated encoder's product
    alone does not: which words one text has and the other lacks.

    `features` keeps some of the four ("u,v,difference,product" by default), to measure what each carries.
    """

    takes_pair = True
    FEATURES = {"u": lambda u, v: u, "v": lambda u, v: v, "difference": lambda u, v: (u - v).abs(),
                "product": lambda u, v: u * v}

    def __init__(self, input_dim: int, classes: int, hidden: int = 300, dropout: float = 0.0,
                 features: str = "u,v,difference,product"):
        super().__init__()
        self.features = [name.strip() for name in features.split(",")]
        unknown = [name for name in self.features if name not in self.FEATURES]
        if unknown or not self.features:
            raise ValueError(f"head.features: unknown {unknown}; known: {', '.join(self.FEATURES)}")
        self.mlp = MLPHead(len(self.features) * input_dim, classes, hidden, dropout)

    def forward(self, premise, hypothesis):
        return self.mlp(torch.cat([self.FEATURES[name](premise, hypothesis) for name in self.features], dim=1))


HEADS = {"mlp": MLPHead, "pruned": PrunedMLPHead, "gated_pair": GatedPairHead, "matching_pair": MatchingPairHead}
