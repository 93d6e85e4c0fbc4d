"""`attentive train --pick`: the user's data chooses between the compact default and `opinion`, within a time budget.

The compact default is trained first, and its linear model over the n-grams is kept or left out by dev already
(attentive/training/prior.py). Then `opinion`, which reads word order with a biGRU and costs several times as much
to train and to answer, is trained on the same splits while the budget allows: after each epoch the time the rest
would take (the slowest epoch so far times the epochs left) is set against the budget left, and training stops there
when it would overrun, the compact model kept. Both are then scored on the same dev texts, and `opinion` is picked
only where it answers more of them right by more than the noise of that difference: its paired standard error,
sd(Δ)/√n, Δ each dev text's difference in correctness. Within noise the compact model is kept, since it answers
faster from a smaller export. The winner is saved to `out` with a `pick` entry in its config.json that says what was
picked, why, and what each candidate cost.

Both candidates are trained in memory and only the winner is written: the folder holds no metrics log or checkpoint
of the candidates, and a killed pick starts again.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ..answer.metrics import paired_difference
from ..data.example import Dataset
from ..errors import AttentiveError
from ..folders.output import check_claimable, claim
from ..recipes.for_data import recipe_for_data
from ..training.pipeline import TRAINING_RUN
from ..training.pipeline import train as train_recipe
from ..util.run_settings import RunSettings

COMPACT, WORD_ORDER = "default", "opinion"


class OverBudget(AttentiveError):
    """Raised from an epoch's callback to stop a candidate whose remaining epochs would overrun the budget."""


@dataclass
class Candidate:
    name: str
    model: object | None = None
    seconds: float = 0.0
    stopped: str | None = None  # why it was not trained to the end


def dev_correctness(model, data: Dataset) -> np.ndarray:
    """Whether the model answers each dev text right (its ranked label against the given one)."""
    dev = data.splits["dev"]
    probabilities = model.predict_proba([example.text for example in dev])
    answers = np.asarray(model.labels)[probabilities.argmax(1)]
    return answers == np.asarray([example.label for example in dev])


def _budget_guard(started: float, budget_s: float, epochs: int):
    """An `on_epoch` callback that stops training once the epochs left, at the slowest epoch's pace, would end after
    the budget."""
    slowest = [0.0]

    def guard(record: dict) -> None:
        slowest[0] = max(slowest[0], float(record.get("seconds", 0.0)))
        left = epochs - int(record["epoch"])
        if left > 0 and time.perf_counter() - started + left * slowest[0] > budget_s:
            raise OverBudget(f"{left} more epochs at {slowest[0]:.0f} s each would overrun the budget")

    return guard


def _train_candidate(name: str, data: Dataset, overrides, settings: RunSettings, started: float,
                     budget_s: float | None) -> Candidate:
    recipe = recipe_for_data(data, name, overrides)
    guard = _budget_guard(started, budget_s, recipe.train.epochs) if budget_s is not None else None
    began = time.perf_counter()
    try:
        model = train_recipe(data, recipe, replace(settings, out=None), on_epoch=guard)
    except OverBudget as stop:
        return Candidate(name, None, time.perf_counter() - began, str(stop))
    return Candidate(name, model, time.perf_counter() - began)


def pick(data: Dataset, settings: RunSettings, budget_s: float = 900.0, overrides=()) -> object:
    """Train the compact default and, within `budget_s` seconds in all, `opinion`; keep the one dev says (see the
    module's docstring), saved to `settings.out` if given. Returns the picked model, its config's `pick` entry set."""
    if settings.resume:
        raise AttentiveError("--pick trains its candidates afresh: it cannot resume (train without --pick to resume)")
    if settings.out is not None:
        check_claimable(settings.out, TRAINING_RUN, settings.overwrite)
    started = time.perf_counter()
    compact = _train_candidate(COMPACT, data, overrides, settings, started, None)
    left = budget_s - (time.perf_counter() - started)
    if left <= 0:
        word_order = Candidate(WORD_ORDER, stopped="the compact model used the whole budget")
    else:
        word_order = _train_candidate(WORD_ORDER, data, overrides, settings, started, budget_s)
    entry = {"candidates": {COMPACT: {"seconds": round(compact.seconds, 1)},
                            WORD_ORDER: {"seconds": round(word_order.seconds, 1)}},
             "budget_s": budget_s}
    picked = compact
    if word_order.model is None:
        entry["candidates"][WORD_ORDER]["stopped"] = word_order.stopped
        entry["why"] = f"{WORD_ORDER} was not trained to the end: {word_order.stopped}"
    else:
        fast, slow = dev_correctness(compact.model, data), dev_correctness(word_order.model, data)
        gain, noise = paired_difference(slow, fast)
        entry["candidates"][COMPACT]["dev_accuracy"] = float(fast.mean())
        entry["candidates"][WORD_ORDER]["dev_accuracy"] = float(slow.mean())
        entry["dev_gain"], entry["noise"] = gain, noise
        if gain > noise:
            picked = word_order
            entry["why"] = (f"{WORD_ORDER} answered {gain:+.4f} of the dev texts right, more than the noise "
                            f"({noise:.4f})")
        else:
            entry["why"] = f"{WORD_ORDER}'s dev gain {gain:+.4f} is within the noise ({noise:.4f}): the faster model"
    entry["picked"] = picked.name
    model = picked.model
    model.config["pick"] = entry
    if settings.out is not None:
        with claim(settings.out, TRAINING_RUN, overwrite=settings.overwrite):
            model.save(settings.out)
        model.folder = settings.out_path
    return model
