"""Training a multi-label model (texts with label sets) with the single-label loop.

The loop (attentive/training/loop.py) takes one label id per row and chooses the epoch by a dev score. A
multi-label run gives it:
- `UNLABELLED` for every training row, so that its cross-entropy adds nothing, and the data term
  `BinaryCrossEntropy` (attentive/training/terms.py) with the label sets;
- the dev score `MicroF1`: dev micro-F1 at the per-label thresholds chosen on dev that epoch (inside the loop's dev
  evaluation, so on the moving average where there is one). It chooses the best epoch and stops training, and its
  record adds micro- and macro-F1 and the subset accuracy (texts whose whole label set is right) as `dev_accuracy`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ..answer.inference import infer
from ..answer.metrics import choose_thresholds, multilabel_metrics, predicted_sets, sigmoid
from ..data.batching import Item


def dev_scores(network: torch.nn.Module, items: Sequence[Item], gold: np.ndarray, labels: Sequence[str],
               device) -> tuple[dict, dict[str, float], np.ndarray]:
    """Dev metrics at the thresholds chosen on the same rows (multilabel_metrics), the thresholds, and the
    probabilities (sigmoids of the logits)."""
    probabilities = sigmoid(infer(network, items, device=device).logits)
    thresholds = choose_thresholds(probabilities, gold, labels)
    return multilabel_metrics(gold, predicted_sets(probabilities, thresholds, labels), labels), thresholds, \
        probabilities


class MicroF1:
    """The loop's dev score for label sets (a `loop.DevScore`): micro-F1 at thresholds chosen on dev; `thresholds`
    holds those of the epoch scored last, which a model saved at that epoch answers with."""

    def __init__(self, items: Sequence[Item], gold: np.ndarray, labels: Sequence[str], device):
        self.items, self.gold, self.labels, self.device = items, np.asarray(gold), list(labels), device
        self.thresholds: dict[str, float] = {}

    def __call__(self, network: torch.nn.Module) -> tuple[float, dict]:
        metrics, self.thresholds, _ = dev_scores(network, self.items, self.gold, self.labels, self.device)
        return metrics["micro_f1"], {"dev_accuracy": metrics["subset_accuracy"], "dev_micro_f1": metrics["micro_f1"],
                                     "dev_macro_f1": metrics["macro_f1"]}
