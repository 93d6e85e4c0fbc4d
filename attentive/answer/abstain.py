"""Abstaining: a single-label model answers "none of these" (label None, `abstained` true) where its most probable
label's probability is below a threshold, as Larson et al. (2019, "An Evaluation Dataset for Intent Classification
and Out-of-Scope Prediction") do with the max softmax probability. The probabilities are still given.

The threshold is given per call (`predict(..., abstain_below=P)`, `attentive predict --abstain-below P`, the server's
`"abstain_below"`) or kept in the model folder's config.json (`abstain`: {"below": P, "chosen_on": ...}), which
predict, the CLI and the server use when the call gives none, and `attentive export` copies. `attentive abstain`
chooses it on dev (`choose_threshold`): the lowest threshold under which at least the target share of the dev
out-of-scope texts fall (their out-of-scope recall), so that as few in-scope texts as that allows are refused; its
record says what it gave on dev, in-scope accuracy (a refused in-scope text counts as wrong) beside the out-of-scope
recall (`abstain_metrics`). A threshold of 0 never abstains.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import AttentiveError
from ..util.checks import ArgumentError
from .types import Prediction

ABSTAIN = "abstain"  # config.json's entry: {"below": P, "chosen_on": {...} or None}
NONE_OF_THESE = "none of these"


def check_abstain_below(value, name: str = "abstain_below") -> None:
    """ArgumentError unless `value` is None or a number from 0 to 1."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or not 0 <= value <= 1):
        raise ArgumentError(f"{name}={value!r}: must be None or a number from 0 to 1")


def abstain_of(config: dict, where) -> float | None:
    """The threshold config.json keeps (`abstain: {below: P}`), None where it keeps none; an entry that is not an object
    holding a number from 0 to 1, or one in a multi-label model's config, is one line naming `where`."""
    entry = config.get(ABSTAIN) if isinstance(config, dict) else None
    if entry is None:
        return None
    below = entry.get("below") if isinstance(entry, dict) else None
    if isinstance(below, bool) or not isinstance(below, numbers.Real) or not 0 <= below <= 1:
        raise AttentiveError(f"{where}: {ABSTAIN!r} must be an object whose 'below' is a number from 0 to 1, not "
                             f"{str(entry)[:60]!r}")
    if config.get("multi_label") is True:
        raise AttentiveError(f"{where}: {ABSTAIN!r} is for models that answer one label per text; this one is "
                             "multi-label (its answers may hold no label already: its thresholds)")
    return float(below)


def abstain(predictions: list[Prediction], below: float | None) -> list[Prediction]:
    """Each single-label answer's label None and `abstained` true where its most probable label's probability is
    below `below`; the others keep that label, `abstained` false. `below` None changes nothing; 0 answers every text
    (no `abstained`, as without a threshold). Multi-label answers are left as they are."""
    if below is None:
        return predictions
    for prediction in predictions:
        if prediction.labels is not None or not prediction.probabilities:
            continue
        best = max(prediction.probabilities, key=prediction.probabilities.get)  # the first of ties, as argmax
        refused = prediction.probabilities[best] < below
        prediction.label = None if refused else best
        prediction.abstained = refused if below > 0 else None
    return predictions


def choose_threshold(in_scope: np.ndarray, out_of_scope: np.ndarray, recall: float) -> float:
    """The lowest threshold under which at least `recall` of the out-of-scope texts' max probabilities fall: the
    midpoint between the last of them it must refuse and the next higher max probability of any dev text (in-scope
    or out-of-scope), so that every in-scope text above that is still answered. 0 where `recall` is 0; 1 where the
    texts it must refuse have probability 1 (the recall cannot be reached: `abstain_metrics` says what it gives)."""
    if isinstance(recall, bool) or not isinstance(recall, numbers.Real) or not 0 <= recall <= 1:
        raise ArgumentError(f"recall={recall!r}: must be a number from 0 to 1")
    refused = np.sort(np.asarray(out_of_scope, dtype=np.float64))
    if not len(refused):
        raise ArgumentError("no out-of-scope texts to choose the threshold on")
    needed = math.ceil(round(recall * len(refused), 9))
    if needed == 0:
        return 0.0
    last = refused[needed - 1]
    scores = np.concatenate([np.asarray(in_scope, dtype=np.float64), refused])
    above = scores[scores > last]
    return float(min(1.0, (last + above.min()) / 2 if above.size else (last + 1) / 2))


def abstain_metrics(in_scope: np.ndarray, gold: np.ndarray, out_of_scope: np.ndarray, below: float) -> dict:
    """Larson et al.'s two numbers at threshold `below`: in-scope accuracy (the share of in-scope texts answered
    with their gold label; a refused one is wrong) and out-of-scope recall (the share of out-of-scope texts
    refused), with the share of in-scope texts refused. `in_scope` (texts x labels) and `out_of_scope` are
    probabilities; `gold` the in-scope texts' label indices."""
    in_scope, out_of_scope = np.asarray(in_scope, dtype=np.float64), np.asarray(out_of_scope, dtype=np.float64)
    refused = in_scope.max(1) < below
    correct = (in_scope.argmax(1) == np.asarray(gold)) & ~refused
    return {"below": float(below), "in_scope_accuracy": float(correct.mean()) if len(correct) else None,
            "out_of_scope_recall": float((out_of_scope.max(1) < below).mean()) if len(out_of_scope) else None,
            "in_scope_refused": float(refused.mean()) if len(refused) else None,
            "n_in_scope": int(len(in_scope)), "n_out_of_scope": int(len(out_of_scope))}


def choose(model, texts: list[str], labels: list[str], out_of_scope: list[str], recall: float,
           batch_size: int = 128) -> dict:
    """config.json's `abstain` record for `model` (a saved or exported one), chosen on dev: its in-scope `texts`
    with their `labels` and the `out_of_scope` texts (Larson et al.: the threshold on the max probability reaching
    `recall` of the out-of-scope texts, `choose_threshold`), with what it gives on them (`abstain_metrics`)."""
    if model.thresholds is not None:
        raise ArgumentError("abstaining is for models that answer one label per text; this one is multi-label (its "
                            "answers may hold no label already: its thresholds)")
    unknown = sorted(set(labels) - set(model.labels))
    if unknown:
        raise ArgumentError(f"in-scope label(s) {', '.join(map(repr, unknown[:5]))} unknown to this model")
    if not texts or not out_of_scope:
        raise ArgumentError("give in-scope and out-of-scope dev texts (at least one of each)")
    inside = model.predict_proba(texts, batch_size=batch_size)
    outside = model.predict_proba(out_of_scope, batch_size=batch_size)
    below = choose_threshold(inside.max(1), outside.max(1), recall)
    gold = np.array([model.labels.index(label) for label in labels])
    return {"below": below, "chosen_on": {"target_recall": float(recall),
                                          **abstain_metrics(inside, gold, outside, below)}}
