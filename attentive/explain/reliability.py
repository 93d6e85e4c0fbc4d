"""The reliability diagram of `attentive analyze` (Guo et al. 2017, §2 and Fig. 1; DeGroot & Fienberg 1983): the
texts' confidences (each one's largest class probability) cut into ECE_BINS equal-width bins (lo, hi] of [0, 1], and
per bin the accuracy against the mean confidence, with the number of texts in it. A calibrated model's bars lie on
the diagonal; the expected calibration error (ECE, Guo et al. Eq. 3) is the count-weighted mean gap, computed by
attentive/answer/metrics.py `expected_calibration_error`, the function temperature scaling reports its dev ECE with
(attentive/training/calibration.py), so the numbers here and config.json's `calibration` agree on the same texts.

Drawn twice: before (T = 1, the raw logits) and after the temperature stored in config.json (`calibration`), the
second panel left out for a model saved without one. A text whose gold label the model does not know counts as
answered wrongly (no prediction of the model's can be right), never left out.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..answer.metrics import ECE_BINS, expected_calibration_error


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """softmax(logits / temperature) per row, in float64 (as temperature scaling fits it)."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    scaled -= scaled.max(1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(1, keepdims=True)


def reliability_bins(probabilities: np.ndarray, gold: Sequence[int], bins: int = ECE_BINS) -> list[dict]:
    """One row per bin (lo, hi]: its bounds, the number of texts, their accuracy and mean confidence (None for an
    empty bin). Bins as `expected_calibration_error` cuts them (a confidence of 0 in the first)."""
    probabilities, gold = np.asarray(probabilities, dtype=np.float64), np.asarray(gold)
    confidence = probabilities.max(1) if len(gold) else np.zeros(0)
    correct = (probabilities.argmax(1) == gold) if len(gold) else np.zeros(0, dtype=bool)
    which = np.clip(np.ceil(confidence * bins).astype(int) - 1, 0, bins - 1)
    rows = []
    for b in range(bins):
        in_bin = which == b
        count = int(in_bin.sum())
        rows.append({"bin": b + 1, "lo": round(b / bins, 6), "hi": round((b + 1) / bins, 6), "count": count,
                     "accuracy": float(correct[in_bin].mean()) if count else None,
                     "confidence": float(confidence[in_bin].mean()) if count else None})
    return rows


def reliability(logits: np.ndarray, gold: Sequence[int], temperature: float | None) -> list[dict]:
    """The diagram's panels: (`temperature` None) the raw logits alone, else also at `temperature`; each panel
    its temperature, ECE and bins."""
    panels = []
    for name, t in (("before", 1.0), ("after", temperature)):
        if t is None:
            continue
        probabilities = softmax(logits, t)
        panels.append({"panel": name, "temperature": float(t), "ece": expected_calibration_error(probabilities, gold),
                       "bins": reliability_bins(probabilities, gold)})
    return panels


def panel_title(panel: dict) -> str:
    """What a panel's title says: which temperature, and its ECE."""
    which = "before temperature scaling (T = 1)" if panel["panel"] == "before" else \
        f"after temperature scaling (T = {panel['temperature']:.3f})"
    return f"{which}: ECE {panel['ece']:.4f}"


def plot_reliability(panels: list[dict], path: Path, figure, save) -> None:
    """The panels side by side: accuracy bars per confidence bin over the diagonal, the gap to it shaded, each bar
    labelled with its count; below, the counts. `figure(rows, cols, size)` and `save(plt, fig, path)` are the
    report's (attentive/explain/report.py: Agg backend, atomic write)."""
    plt, fig, axes = figure(2, len(panels), (5.2 * len(panels), 6.4))
    for column, panel in enumerate(panels):
        top, bottom = axes[0][column], axes[1][column]
        bins = panel["bins"]
        width = bins[0]["hi"] - bins[0]["lo"]
        centres = [(b["lo"] + b["hi"]) / 2 for b in bins]
        filled = [(c, b) for c, b in zip(centres, bins) if b["count"]]
        top.plot([0, 1], [0, 1], linestyle="--", color="gray", linewidth=1, label="perfect calibration")
        top.bar([c for c, _ in filled], [b["accuracy"] for _, b in filled], width=width, color="tab:blue",
                edgecolor="black", linewidth=0.5, label="accuracy")
        top.bar([c for c, _ in filled], [b["confidence"] - b["accuracy"] for _, b in filled], width=width,
                bottom=[b["accuracy"] for _, b in filled], color="tab:red", alpha=0.3, label="gap to confidence")
        for centre, b in filled:
            top.text(centre, min(max(b["accuracy"], b["confidence"]), 0.97) + 0.01, str(b["count"]), ha="center",
                     fontsize=6)
        top.set_xlim(0, 1)
        top.set_ylim(0, 1.05)
        top.set_xlabel("confidence (largest probability)", fontsize=8)
        top.set_ylabel("accuracy", fontsize=8)
        top.set_title(panel_title(panel), fontsize=9)
        top.legend(fontsize=7, loc="upper left")
        bottom.bar(centres, [b["count"] for b in bins], width=width, color="tab:gray", edgecolor="black",
                   linewidth=0.5)
        bottom.set_xlim(0, 1)
        bottom.set_xlabel(f"confidence bin ({len(bins)} of width {width:.3f})", fontsize=8)
        bottom.set_ylabel("texts", fontsize=8)
    save(plt, fig, path)
