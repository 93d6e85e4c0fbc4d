"""Each token's linearised evidence for the label the model ranks first over the runner-up, computed in the forward
pass: what `predict`'s top words rank by, and an export's evidence for texts too long for occlusion
(attentive/onnx_format/on_demand.py runs it only when asked).

For labels f (first) and s (runner-up), token j's evidence is

    e_j = Σ_h α_hj · g_h·h_j  +  (n_j[f] − n_j[s])

with h_j the pooler's state of token j (a word vector in the default model, a biGRU state in `opinion`), α_hj its
attention in head h, g = ∂(logit_f − logit_s)/∂m the head's gradient at the text's pooled vector m = vec(A H)
(`MLPHead.margin_gradient`, from the hidden layer the forward pass computed), and n_j the token's exact share of the
n-gram channel's logits (`NgramChannel.word_scores`). It is the first-order split of the margin over the words with
the attention held fixed (Σ_j of the first term is g·m; for a linear head it is the exact decomposition
`TextClassifier._exact_parts` gives), a word's weight times what its vector carries towards the answer (Kobayashi et
al. 2020, "Attention is not only a weight"). Removing each text's words of most linearised evidence changes about
as many answers as removing those of most evidence by occlusion (the graph run once more per token), and more than
removing the most attended (benchmarks/DECISIONS.md, "`predict`'s top words by evidence"). Occlusion stays what
`explain` of an export gives where it can (texts of up to 512 tokens); the linearised evidence is given where it
cannot, and `predict`'s top words rank by it where the model has it, computed only when asked
(attentive/onnx_format/on_demand.py).
"""
from __future__ import annotations

import torch

from .heads import MLPHead

LINEARISED = "linearised"  # the evidence's `method` (attentive/answer/occlusion.py's, which imports no torch)


def ranked_pair(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The label each row ranks first and the runner-up (B x 1 each; the first twice for one label). `topk`, which
    an export traces to ONNX's TopK (ties in label order), where a stable sort does not export."""
    order = torch.topk(logits.detach(), min(2, logits.shape[1]), dim=-1).indices
    return order[:, :1], order[:, 1:2] if order.shape[1] > 1 else order[:, :1]


def margin_direction(logits: torch.Tensor) -> torch.Tensor:
    """B x classes: +1 at the label each row ranks first, −1 at the runner-up (all 0 for a single label), so that
    direction · logits is the margin."""
    first, second = ranked_pair(logits)
    labels = torch.arange(logits.shape[1], device=logits.device)
    return (labels == first).to(logits.dtype) - (labels == second).to(logits.dtype)


def head_output(head, vector: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """A head's logits for pooled vectors, and an MLP head's hidden layer before its ReLU (None for other heads),
    which the linearised evidence reads rather than computing it twice."""
    return head.logits_and_hidden(vector) if isinstance(head, MLPHead) else (head(vector), None)


def linearised_evidence(network, out) -> torch.Tensor | None:
    """B x T: each token's linearised evidence (see the module's docstring), zero on padding; None where the model
    has no such split: no attention over its states (`pools_states`), a head other than the MLP, text pairs or
    aspects. `out` is the network's Output. Written in few operators, each shape a constant, for the graph's sake
    (what it costs: benchmarks/DECISIONS.md, "`predict`'s top words by evidence")."""
    pooler, head = getattr(network, "pooler", None), getattr(network, "head", None)
    if (not getattr(pooler, "pools_states", False) or not isinstance(head, MLPHead) or out.attention is None
            or out.states is None or getattr(network, "is_pair", False) or getattr(network, "uses_aspect", False)
            or (out.head_hidden is None and len(head.net) > 2)):
        return None
    direction = margin_direction(out.logits)
    heads = pooler.heads  # the pooled vector is vec(A H): heads x state size
    gradient = head.margin_gradient(out.head_hidden, direction).reshape(-1, heads, pooler.output_dim // heads)
    per_head = out.states @ gradient.transpose(1, 2)  # B x T x heads; the small gradient transposed, not the states
    evidence = (per_head * out.attention.transpose(1, 2)).sum(-1)  # Σ_h α_hj g_h·h_j: B x T
    if out.wide_scores is not None:  # zero on padding, as the attention is
        evidence = evidence + (out.wide_scores * direction.unsqueeze(1)).sum(-1)
    return evidence


def attention_part(out, evidence: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The attention channel's share of the linearised `evidence` (B x T: less the n-gram channel's exact share, where
    the model has one) and that channel's margin (B: its logit of the first label less the runner-up's), which
    `explain` shows per channel; the shares add up to the evidence `predict` ranks its top words by."""
    direction = margin_direction(out.logits)
    deep = out.logits if out.wide_logits is None else out.logits - out.wide_logits
    if out.wide_scores is not None:
        evidence = evidence - (out.wide_scores * direction.unsqueeze(1)).sum(-1)
    return evidence, (deep.detach() * direction).sum(-1)
