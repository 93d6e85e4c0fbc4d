"""Temperature scaling (Guo et al. 2017, §4.2): one temperature T > 0 for all classes, fitted after training on the
dev split's logits by minimising their negative log-likelihood; the model then answers softmax(logits / T)
(attentive/answer/inference.py `temperature_of`). Dividing every logit by the same T > 0 keeps each row's argmax, so no
predicted label changes, only how confident the probabilities are.

The problem is one-dimensional and smooth in log T, so a bounded scalar search (scipy's Brent) over
log T in [log 0.01, log 100] solves it; T = 1 is kept when the search finds nothing better, so the dev NLL after is
never above the NLL before.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..answer.metrics import expected_calibration_error, negative_log_likelihood

LOWEST, HIGHEST = 0.01, 100.0  # the temperatures searched


def _softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    scaled -= scaled.max(1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(1, keepdims=True)


def fit_temperature(logits: np.ndarray, gold: Sequence[int]) -> dict:
    """The temperature minimising the NLL of `logits` (rows x classes) against the `gold` class ids, with the dev NLL
    and expected calibration error (15 bins) before (T = 1) and after: what config.json keeps as `calibration`."""
    from scipy.optimize import minimize_scalar

    logits = np.asarray(logits, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.int64)
    before = negative_log_likelihood(logits, gold)
    found = minimize_scalar(lambda log_t: negative_log_likelihood(logits, gold, math.exp(log_t)),
                            bounds=(math.log(LOWEST), math.log(HIGHEST)), method="bounded",
                            options={"xatol": 1e-5})
    temperature = float(math.exp(found.x))
    after = negative_log_likelihood(logits, gold, temperature)
    if not math.isfinite(after) or after > before:
        temperature, after = 1.0, before
    return {"temperature": temperature, "dev_nll_before": before, "dev_nll_after": after,
            "dev_ece_before": expected_calibration_error(_softmax(logits, 1.0), gold),
            "dev_ece_after": expected_calibration_error(_softmax(logits, temperature), gold)}
