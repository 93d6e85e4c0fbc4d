"""Training a multi-label model (texts with label sets) with the single-label loop.

The loop (attentive/training/loop.py) takes one label id per row and chooses the epoch by dev accuracy of the
argmax. A multi-label run gives it:
- `UNLABELLED` for every training row, so that its cross-entropy adds nothing, and the data term
  `BinaryCrossEntropy` (attentive/training/terms.py) with the label sets;
- a stand-in dev set for its own accuracy and early stopping (`ranking_dev`): one row per (dev text, gold label), so
  that its "accuracy" is the share of gold labels that are their text's top-ranked label, which rises and falls
  with precision at 1;
- the step hook `BestMicroF1`, which inside the loop's dev evaluation (so on the moving average, where there is one)
  scores the real criterion, dev micro-F1 at the per-label thresholds chosen on dev that epoch, and keeps the weights
  of the best epoch; the pipeline puts them back after `fit`.
Early stopping still follows the stand-in (patience counts epochs without a better precision at 1): the loop offers
no hook for a criterion of the caller's.
"""
from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from ..data.batching import Item
from ..evaluate import choose_thresholds, multilabel_metrics, predicted_sets, sigmoid
from ..inference import infer
from .hooks import StepHook

WEIGHTS = "weights."  # the prefix of the best weights' tensors in the hook's checkpoint state


def dev_scores(network: torch.nn.Module, items: Sequence[Item], gold: np.ndarray, labels: Sequence[str],
               device) -> tuple[dict, dict[str, float], np.ndarray]:
    """Dev metrics at the thresholds chosen on the same rows (multilabel_metrics), the thresholds, and the
    probabilities (sigmoids of the logits)."""
    probabilities = sigmoid(infer(network, items, device=device).logits)
    thresholds = choose_thresholds(probabilities, gold, labels)
    return multilabel_metrics(gold, predicted_sets(probabilities, thresholds, labels), labels), thresholds, \
        probabilities


def ranking_dev(items: Sequence[Item], gold: np.ndarray) -> tuple[list[Item], list[int]]:
    """The loop's stand-in dev set: each dev item once per gold label, with that label's id (texts with an empty
    set are left out: no top label can be right for them)."""
    rows, columns = np.nonzero(np.asarray(gold) > 0)
    return [items[row] for row in rows], [int(column) for column in columns]


class BestMicroF1(StepHook):
    """Scores dev micro-F1 (at thresholds chosen on dev) inside each epoch's dev evaluation and keeps the weights of
    the best epoch so far (`best`), with its epoch number and metrics; its state goes into the checkpoint, so a
    resumed run keeps the best it had."""

    name = "multi_label_selection"

    def __init__(self, items: Sequence[Item], gold: np.ndarray, labels: Sequence[str], device):
        self.items, self.gold, self.labels, self.device = items, np.asarray(gold), list(labels), device
        self.epoch, self.best_epoch, self.best_score = 0, 0, -1.0
        self.best: dict | None = None
        self.thresholds: dict[str, float] = {}  # those chosen on dev in the last epoch scored
        self.scores: list[dict] = []  # per epoch: dev micro-F1 and macro-F1

    @contextlib.contextmanager
    def evaluation(self, model: torch.nn.Module) -> Iterator[None]:
        self.epoch += 1
        metrics, self.thresholds, _ = dev_scores(model, self.items, self.gold, self.labels, self.device)
        self.scores.append({"epoch": self.epoch, "dev_micro_f1": metrics["micro_f1"],
                            "dev_macro_f1": metrics["macro_f1"]})
        if metrics["micro_f1"] > self.best_score:
            self.best_score, self.best_epoch = metrics["micro_f1"], self.epoch
            self.best = copy.deepcopy(model.state_dict())
        yield

    def state_dict(self) -> dict:
        state = {"epoch": self.epoch, "best_epoch": self.best_epoch, "best_score": self.best_score,
                 "scores": list(self.scores)}
        for key, tensor in (self.best or {}).items():
            state[WEIGHTS + key] = tensor
        return state

    def load_state_dict(self, state: dict) -> None:
        self.epoch, self.best_epoch = int(state["epoch"]), int(state["best_epoch"])
        self.best_score, self.scores = float(state["best_score"]), list(state["scores"])
        weights = {key[len(WEIGHTS):]: value for key, value in state.items() if key.startswith(WEIGHTS)}
        self.best = weights or None
