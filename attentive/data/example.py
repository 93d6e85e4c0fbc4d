"""The unit every reader produces and every model consumes."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """One labelled text. `aspect` is set for aspect-level data, `text_pair` for pair tasks (premise/hypothesis).

    A multi-label text (a JSONL list of labels, or a label field split by `--label-separator`) has its labels in
    `labels`, a sorted tuple that may be empty (none of the labels applies), and `label` None; a single-label text has
    `labels` None (attentive/data/label_sets.py).

    A text read from the user's file knows where it came from: `line`, the line of the file its row starts on, and
    `id`, the value of the file's id column (`id_column`, or a column named `id`), else None. Neither takes part in
    comparing or hashing examples: two rows of the same text and label are equal wherever they stand."""

    text: str
    label: str | None = None
    aspect: str | None = None
    text_pair: str | None = None
    labels: tuple[str, ...] | None = None
    line: int | None = field(default=None, compare=False)
    id: str | None = field(default=None, compare=False)

    @property
    def is_labelled(self) -> bool:
        """Whether the text has a label (single-label) or a label set, even an empty one (multi-label)."""
        return self.label is not None or self.labels is not None


@dataclass
class Dataset:
    """Named splits of examples plus the label set.

    `labels` fixes the class order (index = class id). `skipped` counts rows a reader dropped per split,
    with the reason in `notes`, so that nothing disappears silently; `notes` also says how many rows span several
    lines. `warnings` holds what looks wrong but does not stop a load (labels of dev/test that train never shows).
    `reading`: for the user's files, how they were read (attentive/data/reading.py; a trained model keeps it).
    """

    name: str
    splits: dict[str, list[Example]]
    labels: list[str]
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reading: dict | None = None

    @property
    def multi_label(self) -> bool:
        """Whether the texts carry label sets (multi-label) rather than one label each."""
        return any(ex.labels is not None for part in self.splits.values() for ex in part)

    def label_counts(self, split: str) -> dict[str, int]:
        """Texts per label in `split` (for multi-label data, the texts whose set holds the label)."""
        counts = Counter(label for ex in self.splits[split]
                         for label in (ex.labels if ex.labels is not None else (ex.label,)))
        return {label: counts.get(label, 0) for label in self.labels}
