"""Loss terms: what the training loop adds up into the loss it minimises.

A term is an object with a `name` and `__call__(out, target, inputs) -> scalar tensor`, where `out` is the network's
output (logits, attention, pair attention), `target` the batch's label ids and `inputs` the collated batch (ids,
mask, pair_mask, ...). A term that keeps state across steps returns it from `state_dict()` and takes it back in
`load_state_dict()`; the checkpoint stores it under the term's name, so a resumed run continues it. The loop
(attentive/training/loop.py) names no loss: the recipe's terms come from `terms_from`, a caller's are added to them.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..errors import AttentiveError
from .regularisers import regulariser_from


class LossTerm:
    """One summand of the training loss. Subclasses set `name` and define `__call__`; `penalty` says whether the
    per-epoch record counts the term's mean in its `penalty` (every term but the data term does)."""

    name: str = "term"
    penalty: bool = True

    def __call__(self, out, target: torch.Tensor, inputs: dict) -> torch.Tensor:
        raise NotImplementedError

    def state_dict(self) -> dict:
        """What a resumed run needs to continue the term (tensors or JSON values); none by default."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Take back what `state_dict` gave."""


class CrossEntropy(LossTerm):
    """Cross-entropy of the logits against the labels (LAMA paper Eq. 18): the data term."""

    name, penalty = "cross_entropy", False

    def __call__(self, out, target, inputs):
        return F.cross_entropy(out.logits, target)


class AttentionPenalty(LossTerm):
    """The recipe's `train.regulariser` (attentive/training/regularisers.py), weighted, on the attention and, for a
    pair model, also on the pair attention."""

    name = "attention_regulariser"

    def __init__(self, regularise):
        self.regularise = regularise

    def __call__(self, out, target, inputs):
        if out.attention is None:
            raise AttentiveError("train.regulariser needs a pooler that returns attention")
        penalty = self.regularise(out.attention, inputs["mask"])
        if out.pair_attention is not None:
            penalty = penalty + self.regularise(out.pair_attention, inputs["pair_mask"])
        return penalty


def terms_from(cfg: dict) -> list[LossTerm]:
    """The loss terms a recipe's `train` section asks for: cross-entropy, and the attention regulariser if set."""
    terms: list[LossTerm] = [CrossEntropy()]
    regularise = regulariser_from(cfg.get("regulariser"))
    if regularise is not None:
        terms.append(AttentionPenalty(regularise))
    return terms
