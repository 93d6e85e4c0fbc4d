"""Loss terms: what the training loop adds up into the loss it minimises.

A term is an object with a `name` and `__call__(out, target, inputs) -> scalar tensor`, where `out` is the network's
output (logits, attention, pair attention), `target` the batch's label ids and `inputs` the collated batch (ids,
mask, pair_mask, ...). A term that keeps state across steps returns it from `state_dict()` and takes it back in
`load_state_dict()`; the checkpoint stores it under the term's name, so a resumed run continues it. The loop
(attentive/training/loop.py) names no loss: the recipe's terms come from `terms_from`, a caller's are added to them.
`inputs["rows"]` holds the batch's row numbers in the training set, for a term that keeps something per row (the
teacher's probabilities of `SoftTargets`). A transfer text (distillation) has the label id `UNLABELLED`: the data
term skips it, and only a term that `uses_unlabelled` learns from it.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import AttentiveError
from ..recipes.types import Train
from .regularisers import regulariser_from

UNLABELLED = -100  # the label id of a text without a label (a distillation transfer text)


class LossTerm:
    """One summand of the training loss. Subclasses set `name` and define `__call__`; `penalty` says whether the
    per-epoch record counts the term's mean in its `penalty` (every term but the data term does)."""

    name: str = "term"
    penalty: bool = True
    uses_unlabelled: bool = False

    def __call__(self, out, target: torch.Tensor, inputs: dict) -> torch.Tensor:
        raise NotImplementedError

    def state_dict(self) -> dict:
        """What a resumed run needs to continue the term (tensors or JSON values); none by default."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Take back what `state_dict` gave."""


class CrossEntropy(LossTerm):
    """Cross-entropy of the logits against the labels (LAMA paper Eq. 18): the data term, averaged over the batch's
    labelled rows (0 for a batch of transfer texts alone).

    With `class_weights` (one weight per class, `train.class_weight`), each row's cross-entropy is multiplied by its
    gold class's weight before the mean over the labelled rows: (1/m) sum_i w[y_i] * CE_i, the per-sample weights of
    scikit-learn's `class_weight`. (The mean is over rows, not over the weights as in torch's `weight=`, so that
    balanced weights, which average 1 over the training set, keep the loss's scale.)"""

    name, penalty = "cross_entropy", False

    def __init__(self, class_weights: torch.Tensor | None = None):
        self.class_weights = None if class_weights is None else torch.as_tensor(class_weights, dtype=torch.float32)

    def __call__(self, out, target, inputs):
        labelled = target != UNLABELLED
        logits = out.logits
        if not bool(labelled.all()):
            if not bool(labelled.any()):
                return logits.sum() * 0.0
            logits, target = logits[labelled], target[labelled]
        if self.class_weights is None:
            return F.cross_entropy(logits, target)
        weights = self.class_weights.to(logits.device)[target]
        return (F.cross_entropy(logits, target, reduction="none") * weights).mean()


class BinaryCrossEntropy(LossTerm):
    """The data term of a multi-label model: each label an independent sigmoid output, each row's loss the sum over
    the labels of the binary cross-entropy -[y log sigmoid(z) + (1 - y) log(1 - sigmoid(z))] (fastText's one-vs-all
    loss), averaged over the batch's rows. Summed over the labels, not averaged, so that every label's output learns
    at the step size of a single-label model's, whatever the number of labels.

    The targets are the training set's label sets as a rows x labels 0/1 matrix (`multi_hot`), looked up by the
    batch's row numbers (`inputs["rows"]`), as `SoftTargets` looks up its teacher's probabilities: the loop's label
    ids stay one per row, and a multi-label run gives every row `UNLABELLED`, so that the cross-entropy term adds
    nothing."""

    name, penalty, uses_unlabelled = "binary_cross_entropy", False, True

    def __init__(self, multi_hot: np.ndarray):
        self.targets = torch.as_tensor(np.asarray(multi_hot), dtype=torch.float32)  # rows x labels, training order

    def __call__(self, out, target, inputs):
        logits = out.logits.float()
        gold = self.targets[inputs["rows"].cpu()].to(logits.device)
        return F.binary_cross_entropy_with_logits(logits, gold, reduction="none").sum(-1).mean()


class SoftTargets(LossTerm):
    """Knowledge distillation's soft loss: the student's logits against a teacher's probabilities for each training
    row. `loss="kl"`: KL(teacher || student) at temperature T, times T^2 so that its gradients keep their size as T
    changes (Hinton et al. 2015, §2); `loss="mse"`: the squared distance between the student's and the teacher's
    logits (Tang et al. 2019, Eq. 3), each centred over the classes, since probabilities fix logits only up to a
    constant per row. Times `weight`; the hard-label cross-entropy stays beside it at weight 1, on labelled rows."""

    name, penalty, uses_unlabelled = "distillation", False, True

    def __init__(self, teacher: np.ndarray, temperature: float = 2.0, weight: float = 1.0, loss: str = "kl"):
        if loss not in ("kl", "mse"):
            raise AttentiveError(f"distillation loss must be 'kl' or 'mse', not {loss!r}")
        if not temperature > 0 or not weight >= 0:
            raise AttentiveError(f"distillation needs a temperature > 0 and a weight ≥ 0, not {temperature}, {weight}")
        probabilities = torch.as_tensor(np.asarray(teacher), dtype=torch.float32)
        self.log_teacher = probabilities.clamp_min(1e-30).log()  # rows x classes, in training order
        self.temperature, self.weight, self.loss = float(temperature), float(weight), loss

    def __call__(self, out, target, inputs):
        teacher = self.log_teacher[inputs["rows"].cpu()].to(out.logits.device)
        logits = out.logits.float()
        if self.loss == "mse":
            value = F.mse_loss(logits - logits.mean(-1, keepdim=True), teacher - teacher.mean(-1, keepdim=True))
        else:
            t = self.temperature
            value = F.kl_div(F.log_softmax(logits / t, -1), F.log_softmax(teacher / t, -1), reduction="batchmean",
                             log_target=True) * t * t
        return self.weight * value


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


def terms_from(cfg: Train, class_weights: torch.Tensor | None = None) -> list[LossTerm]:
    """The loss terms a recipe's `train` section asks for: cross-entropy, and the attention regulariser if set.
    `class_weights` (one per class): the weights `train.class_weight` gives, which need the data's labels, so the
    pipeline computes them (attentive/training/pipeline.py `class_weights`); None: every class weighs 1."""
    terms: list[LossTerm] = [CrossEntropy(class_weights)]
    regularise = regulariser_from(cfg.regulariser)
    if regularise is not None:
        terms.append(AttentionPenalty(regularise))
    return terms
