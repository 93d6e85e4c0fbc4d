"""Classification metrics: accuracy, macro-F1, per-class precision/recall/F1 and the confusion matrix (scikit-learn)."""
from __future__ import annotations

from collections.abc import Sequence

from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_recall_fscore_support


def compute_metrics(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict:
    """Metrics of `predicted` against `gold`, both given as label strings; `labels` fixes the class order."""
    labels = list(labels)
    precision, recall, f1, support = precision_recall_fscore_support(
        gold, predicted, labels=labels, zero_division=0
    )
    return {
        "n": len(gold),
        "accuracy": float(accuracy_score(gold, predicted)),
        "macro_f1": float(f1_score(gold, predicted, labels=labels, average="macro", zero_division=0)),
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
