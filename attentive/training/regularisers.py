"""Attention regularisers added to the loss, for any pooler that returns attention (B x heads x T).

- ``frobenius``: Lin et al. 2017, Eq. 8: P = ||A A^T - I||_F^2, pushing the hops apart (mean over the batch).
- ``frobenius_norm``: the same without the square, ||A A^T - I||_F, as the authors' released code computes it. With
  r = 30 hops over near-uniform attention the squared form is about 30 per text against the norm's 5.5, and its
  gradient grows with the distance from orthogonality, so at weight 1 it can swamp the cross-entropy.
- ``std``: Bao et al. 2019: R(α) = std(α) over the real words of each head (mean over heads and batch).
- ``neg_entropy``: Bao et al. 2019: R(α) = Σ α log α over the real words (mean over heads and batch).

The recipe's ``train.regulariser: {type: frobenius, weight: 1.0}`` adds ``weight * R(A)`` to the cross-entropy.
"""
from __future__ import annotations

import torch

from ..recipes.types import REGULARISERS, AttentionPenalty


def _squared_distance_from_orthogonal(attention: torch.Tensor) -> torch.Tensor:
    """||A A^T - I||_F^2 of each text (B)."""
    gram = attention @ attention.transpose(1, 2)  # B x r x r
    identity = torch.eye(gram.size(-1), device=gram.device, dtype=gram.dtype)
    return ((gram - identity) ** 2).sum(dim=(1, 2))


def frobenius_penalty(attention: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    return _squared_distance_from_orthogonal(attention).mean()


def frobenius_norm_penalty(attention: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    return (_squared_distance_from_orthogonal(attention) + 1e-10).sqrt().mean()


def attention_std(attention: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    real = mask.unsqueeze(1).to(attention.dtype)  # B x 1 x T
    count = real.sum(-1).clamp(min=1.0)
    mean = (attention * real).sum(-1) / count
    variance = (((attention - mean.unsqueeze(-1)) ** 2) * real).sum(-1) / count
    return variance.clamp(min=0).sqrt().mean()


def negative_entropy(attention: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    real = mask.unsqueeze(1).expand_as(attention)
    terms = torch.where(real & (attention > 0), attention * torch.log(attention.clamp(min=1e-12)),
                        torch.zeros_like(attention))
    return terms.sum(-1).mean()


# train.regulariser.type -> its penalty, in the order of recipe_types.REGULARISERS: the names are the recipe's, and
# the typed recipe, a layer below training, refuses any other when the recipe is loaded
PENALTIES = dict(zip(REGULARISERS, (frobenius_penalty, frobenius_norm_penalty, attention_std, negative_entropy),
                     strict=True))


def regulariser_from(config: AttentionPenalty | None):
    """A function (attention, mask) -> weighted penalty, or None when the recipe asks for none. The recipe was
    checked when it was loaded: a weighted penalty names one of PENALTIES."""
    if config is None or not config.weight:
        return None
    penalty, weight = PENALTIES[config.type], float(config.weight)
    return lambda attention, mask: weight * penalty(attention, mask)
