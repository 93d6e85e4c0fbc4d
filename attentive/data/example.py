"""The unit every reader produces and every model consumes."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """One labelled text. `aspect` is set for aspect-level data, `text_pair` for pair tasks (premise/hypothesis)."""

    text: str
    label: str | None = None
    aspect: str | None = None
    text_pair: str | None = None


@dataclass
class Dataset:
    """Named splits of examples plus the label set.

    `labels` fixes the class order (index = class id). `skipped` counts rows a reader dropped per split,
    with the reason in `notes`, so that nothing disappears silently; `notes` also says how many rows span several
    lines. `warnings` holds what looks wrong but does not stop a load (labels of dev/test that train never shows).
    """

    name: str
    splits: dict[str, list[Example]]
    labels: list[str]
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def label_counts(self, split: str) -> dict[str, int]:
        counts = Counter(ex.label for ex in self.splits[split])
        return {label: counts.get(label, 0) for label in self.labels}
