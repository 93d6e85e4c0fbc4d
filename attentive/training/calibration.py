"""Temperature scaling (Guo, Pleiss, Sun & Weinberger 2017, "On Calibration of Modern Neural Networks", §4.2): one
temperature T > 0 for all classes, fitted after training on the dev split's logits by minimising their negative
log-likelihood; the model then answers softmax(logits / T) (attentive/answer/inference.py `temperature_of`). Dividing
every logit by the same T > 0 keeps each row's argmax, so no predicted label changes, only how confident the
probabilities are.

The problem is one-dimensional and smooth in log T, so a bounded scalar search (scipy's Brent) over log T solves it;
T = 1 is kept when the search finds nothing better, so the dev NLL after is never above the NLL before.

What a small dev split can support. Where every dev text is answered right (dev is perfectly separated), the dev NLL
falls without bound as T → 0: the fit would sharpen every answer towards p = 1 and says nothing of the errors unseen
texts will bring. A fit on a few dozen texts, or on a handful of wrong answers, sharpens on noise the same way. So
the fit is bounded by what dev holds (`bounds`):

- dev answered all right: the fit is left off, T = 1 (the network's own probabilities), and the entry says so;
- fewer than `SMALL_DEV` dev texts, or fewer than `FEW_WRONG` wrong dev answers: T is searched in [1, 100] only, so
  calibration may soften the answers but never sharpens them;
- otherwise: T is searched in [0.01, 100], as temperature scaling is.

config.json's `calibration` entry keeps the temperature with the dev NLL and expected calibration error before and
after (the keys a loader reads), and says how it was reached: `rule` ("fitted", "bounded" or "left off"),
`dev_texts`, `dev_wrong`, `lowest` (the smallest temperature searched; absent where left off) and `note` (a line
saying why, which `attentive train` prints).

The same size decides `small_dev_warning`: the line `attentive train` and `attentive tune` (and their Python API, as
a `SmallDevWarning`) give where dev holds fewer than `SMALL_DEV` texts, naming what one text and one standard error
of a dev accuracy are worth there, and what to do instead.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Sequence

import numpy as np

from ..answer.metrics import expected_calibration_error, negative_log_likelihood

LOWEST, HIGHEST = 0.01, 100.0  # the temperatures searched where dev supports a full fit
SMALL_DEV = 200  # dev texts under which T is never fitted below 1, and `small_dev_warning` speaks
FEW_WRONG = 10  # wrong dev answers under which T is never fitted below 1


class SmallDevWarning(UserWarning):
    """Dev holds too few texts to choose an epoch, a temperature or a tuning trial on (`small_dev_warning`)."""


def _softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    scaled -= scaled.max(1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(1, keepdims=True)


def bounds(texts: int, wrong: int) -> tuple[float, float] | None:
    """The temperatures the fit may choose from, for a dev split of `texts` texts of which `wrong` are answered
    wrong: None (left off, T = 1) where none is wrong; [1, HIGHEST] where dev is small or holds few errors; else
    [LOWEST, HIGHEST]."""
    if wrong == 0:
        return None
    if texts < SMALL_DEV or wrong < FEW_WRONG:
        return 1.0, HIGHEST
    return LOWEST, HIGHEST


def fit_temperature(logits: np.ndarray, gold: Sequence[int]) -> dict:
    """The temperature minimising the NLL of `logits` (rows x classes) against the `gold` class ids within `bounds`,
    with the dev NLL and expected calibration error (15 bins) before (T = 1) and after, and how it was reached (see
    the module's docstring): what config.json keeps as `calibration`."""
    from scipy.optimize import minimize_scalar

    logits = np.asarray(logits, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.int64)
    texts = len(gold)
    wrong = int((logits.argmax(1) != gold).sum()) if texts else 0
    before = negative_log_likelihood(logits, gold)
    searched = bounds(texts, wrong)
    temperature, after = 1.0, before
    if searched is not None:
        low, high = searched
        found = minimize_scalar(lambda log_t: negative_log_likelihood(logits, gold, math.exp(log_t)),
                                bounds=(math.log(low), math.log(high)), method="bounded", options={"xatol": 1e-5})
        candidate = float(math.exp(found.x))
        nll = negative_log_likelihood(logits, gold, candidate)
        if math.isfinite(nll) and nll <= before:
            temperature, after = candidate, nll
    entry = {"temperature": temperature, "dev_nll_before": before, "dev_nll_after": after,
             "dev_ece_before": expected_calibration_error(_softmax(logits, 1.0), gold),
             "dev_ece_after": expected_calibration_error(_softmax(logits, temperature), gold),
             "dev_texts": texts, "dev_wrong": wrong}
    if searched is None:
        entry.update(rule="left off", note=f"left off: dev's {texts} texts are all answered right, so the fit would "
                                           "only sharpen every answer towards p = 1; T = 1")
    elif searched[0] >= 1.0:
        entry.update(rule="bounded", lowest=searched[0],
                     note=f"T = {temperature:.3g}, never below 1: dev has {texts} texts, {wrong} answered wrong, "
                          f"too few to sharpen on (that needs {SMALL_DEV} texts and {FEW_WRONG} wrong)")
    else:
        entry.update(rule="fitted", lowest=searched[0],
                     note=f"T = {temperature:.3g}, fitted on dev's {texts} texts ({wrong} answered wrong)")
    return entry


def dev_standard_error(texts: int, accuracy: float | None = None) -> float:
    """One standard error of a dev accuracy measured on `texts` texts, √(p(1 − p)/n), with p the `accuracy` smoothed
    by Laplace's rule of succession ((right + 1)/(n + 2)), so that a dev answered all right still has one; at
    p = 0.5, the largest it can be, where `accuracy` is None."""
    if texts <= 0:
        return math.inf
    p = 0.5 if accuracy is None else (accuracy * texts + 1) / (texts + 2)
    return math.sqrt(p * (1 - p) / texts)


def small_dev_warning(texts: int, chooses: str = "an epoch or a temperature") -> str | None:
    """The line said where a dev split of `texts` texts (fewer than `SMALL_DEV`, at least one) is used to choose
    `chooses`: what one text and one standard error of its accuracy are worth, and what to do instead. None for a
    dev split large enough (or none)."""
    if texts <= 0 or texts >= SMALL_DEV:
        return None
    return (f"dev has {texts} texts: one text is {100 / texts:.1f} points of dev accuracy and a dev accuracy's "
            f"standard error is up to {100 * dev_standard_error(texts):.1f} points, too few to choose {chooses} on "
            f"(under {SMALL_DEV} dev texts the temperature is never fitted below 1); for figures to trust, "
            "cross-validate (attentive cv), add labelled data, or hold out a larger dev split (--dev FILE)")


def warn_small_dev(data, chooses: str = "an epoch or a temperature", stacklevel: int = 3) -> str | None:
    """`small_dev_warning` for the dev split of `data` (a Dataset), given as a `SmallDevWarning` naming the data;
    the line, or None where dev is large enough."""
    line = small_dev_warning(len(data.splits.get("dev") or ()), chooses)
    if line is not None:
        warnings.warn(f"{data.name}: {line}", SmallDevWarning, stacklevel=stacklevel)
    return line


@contextlib.contextmanager
def quiet_small_dev() -> Iterator[None]:
    """Inside: no `SmallDevWarning` (each fold of a cross-validation, each trial of a search that has said it once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallDevWarning)
        yield
