"""Classification metrics: accuracy, macro-F1, per-class precision/recall/F1 and the confusion matrix (scikit-learn),
and how well the probabilities are calibrated: the expected calibration error (Guo et al. 2017, §2) and the negative
log-likelihood."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_recall_fscore_support

from .length import accuracy_by_length, text_length

ECE_BINS = 15  # equal-width confidence bins of the expected calibration error (Guo et al. 2017)


def macro_f1(gold: Sequence, predicted: Sequence, labels: Sequence) -> float:
    """The unweighted mean of the per-class F1 over `labels` (a class never predicted nor present counts 0)."""
    return float(f1_score(gold, predicted, labels=list(labels), average="macro", zero_division=0))


def paired_difference(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """Two models' answers to the same texts, each right or not (booleans): the mean per-text difference in
    correctness (ours minus theirs) and its paired standard error sd(Δ)/√n (infinite under two texts)."""
    difference = np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)
    noise = float(difference.std(ddof=1) / np.sqrt(len(difference))) if len(difference) > 1 else float("inf")
    return float(difference.mean()), noise


def expected_calibration_error(probabilities: np.ndarray, gold: Sequence[int], bins: int = ECE_BINS) -> float:
    """ECE: the confidences (each row's largest probability) cut into `bins` equal-width bins (lo, hi] of [0, 1];
    the mean over rows of |accuracy - mean confidence| of each row's bin (Guo et al. 2017, Eq. 3). 0 for no rows."""
    probabilities, gold = np.asarray(probabilities, dtype=np.float64), np.asarray(gold)
    if len(gold) == 0:
        return 0.0
    confidence = probabilities.max(1)
    correct = (probabilities.argmax(1) == gold).astype(np.float64)
    which = np.clip(np.ceil(confidence * bins).astype(int) - 1, 0, bins - 1)  # (lo, hi]; a confidence of 0 in the first
    total = 0.0
    for b in range(bins):
        in_bin = which == b
        if in_bin.any():
            total += in_bin.sum() * abs(correct[in_bin].mean() - confidence[in_bin].mean())
    return float(total / len(gold))


def negative_log_likelihood(logits: np.ndarray, gold: Sequence[int], temperature: float = 1.0) -> float:
    """The mean of -log softmax(logits / temperature)[gold] over rows, in float64 (0 for no rows)."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    gold = np.asarray(gold, dtype=np.int64)
    if len(gold) == 0:
        return 0.0
    top = scaled.max(1, keepdims=True)
    log_norm = top[:, 0] + np.log(np.exp(scaled - top).sum(1))
    return float((log_norm - scaled[np.arange(len(gold)), gold]).mean())


def compute_metrics(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str],
                    probabilities: np.ndarray | None = None, texts: Sequence[str] | None = None) -> dict:
    """Metrics of `predicted` against `gold`, both given as label strings; `labels` fixes the class order. With
    `probabilities` (rows x labels, in `labels`' order) also `ece`, the expected calibration error; with the `texts`
    also `by_length`, the accuracy by length bucket (attentive/answer/length.py), so that a model and a peer scored
    on the same texts compare bucket by bucket."""
    labels = list(labels)
    precision, recall, f1, support = precision_recall_fscore_support(
        gold, predicted, labels=labels, zero_division=0
    )
    metrics = {
        "n": len(gold),
        "accuracy": float(accuracy_score(gold, predicted)),
        "macro_f1": macro_f1(gold, predicted, labels),
        "per_class": {
            label: {
                "precision": float(precision[i]),
                "recall": float(recall[i]),
                "f1": float(f1[i]),
                "support": int(support[i]),
            }
            for i, label in enumerate(labels)
        },
        "labels": labels,
        "confusion": confusion_matrix(gold, predicted, labels=labels).tolist(),
    }
    if probabilities is not None:
        index = {label: i for i, label in enumerate(labels)}
        metrics["ece"] = expected_calibration_error(probabilities, [index[label] for label in gold])
    if texts is not None:
        metrics["by_length"] = accuracy_by_length([text_length(text) for text in texts],
                                                  [g == p for g, p in zip(gold, predicted)])
    return metrics


def sigmoid(logits: np.ndarray) -> np.ndarray:
    """The logistic function, elementwise, in float32 (a multi-label model's probabilities: one independent
    sigmoid per label)."""
    logits = np.asarray(logits, dtype=np.float32)
    return (1.0 / (1.0 + np.exp(-np.clip(logits, -60.0, 60.0)))).astype(np.float32)


DEFAULT_THRESHOLD = 0.5  # a label's threshold where dev has no text with that label


def choose_thresholds(probabilities: np.ndarray, gold: np.ndarray, labels: Sequence[str]) -> dict[str, float]:
    """Per label, the threshold on its probability that maximises its F1 on these (dev) rows: the texts are ranked
    by the label's probability, every cut between two different probabilities is tried (the top k predicted), and
    the threshold is the midpoint between the last probability kept and the next one below (0 below the last), so
    that a probability that moves a little (float rounding in an exported graph) stays on its side. The smallest k
    wins a tie. A label with no positive row gets `DEFAULT_THRESHOLD`. `gold`: rows x labels, 0/1."""
    probabilities, gold = np.asarray(probabilities, dtype=np.float64), np.asarray(gold) > 0
    thresholds = {}
    for column, label in enumerate(labels):
        positives = int(gold[:, column].sum())
        if positives == 0 or len(gold) == 0:
            thresholds[label] = DEFAULT_THRESHOLD
            continue
        order = np.argsort(-probabilities[:, column], kind="stable")
        ranked, hits = probabilities[order, column], np.cumsum(gold[order, column])
        below = np.append(ranked[1:], 0.0)
        cuts = np.flatnonzero(ranked > below)  # the k - 1 where the top k can be told from the rest
        if not len(cuts):
            thresholds[label] = float(ranked[0] / 2)
            continue
        f1 = 2 * hits[cuts] / (cuts + 1 + positives)
        best = cuts[int(np.argmax(f1))]
        thresholds[label] = float((ranked[best] + below[best]) / 2)
    return thresholds


def predicted_sets(probabilities: np.ndarray, thresholds: dict[str, float], labels: Sequence[str]) -> np.ndarray:
    """Rows x labels, True where a label's probability is at least its threshold (multi-label prediction)."""
    cut = np.asarray([thresholds[label] for label in labels], dtype=np.float64)
    return np.asarray(probabilities, dtype=np.float64) >= cut


def multilabel_metrics(gold: np.ndarray, predicted: np.ndarray, labels: Sequence[str]) -> dict:
    """Multi-label metrics of `predicted` against `gold` (both rows x labels, 0/1): micro-F1 (one F1 over every
    (text, label) decision), macro-F1 (the unweighted mean of the per-label F1), per-label precision/recall/F1 and
    support, subset accuracy (texts whose whole set is right) and the Hamming loss (wrong decisions per decision)."""
    gold, predicted = np.asarray(gold) > 0, np.asarray(predicted) > 0
    labels = list(labels)
    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, zero_division=0)
    return {
        "n": int(len(gold)),
        "micro_f1": float(f1_score(gold, predicted, average="micro", zero_division=0)) if len(gold) else 0.0,
        "macro_f1": float(np.mean(f1)) if len(gold) else 0.0,
        "subset_accuracy": float((gold == predicted).all(1).mean()) if len(gold) else 0.0,
        "hamming_loss": float((gold != predicted).mean()) if gold.size else 0.0,
        "per_class": {label: {"precision": float(precision[i]), "recall": float(recall[i]), "f1": float(f1[i]),
                              "support": int(support[i])} for i, label in enumerate(labels)},
        "labels": labels,
    }
