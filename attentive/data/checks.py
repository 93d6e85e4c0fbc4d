"""Sanity checks on labels, so that a dataset that cannot train a useful classifier fails early with one line.

- `same_number(labels)`: two distinct label strings that denote the same number (`"1"` and `"1.0"`, `"01"`, `"1e0"`)
  would silently become two classes. `read_table` raises DataError for such a pair within one file, and
  `registry._assemble` raises AttentiveError for a pair across splits, on every load (evaluation files included).
- `label_warnings(data)`: labels of dev/test that train never shows; `registry._assemble` stores them in
  `Dataset.warnings`.
- `check_training_labels(data)`: what training needs (labelled rows of at least two classes); call it before training.
- `check_labels_given(labels, name)`: labels given in memory (`train(labels=...)`, the estimator's `y`) that are
  missing (None, NaN, pandas' NA), blank, infinite or not valid Unicode, which would otherwise become a class 'None',
  'nan' or 'inf' (or break config.json); `check_label_kinds`: a label set among single labels (or the reverse).
"""
from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from attentive.data.example import Dataset, Example
from attentive.errors import AttentiveError, DataError
from attentive.util.checks import ArgumentError, unicode_problem


def same_number(labels: Iterable[str]) -> tuple[str, str] | None:
    """The first pair of distinct labels that are equal as numbers (compared exactly, as decimals), or None."""
    seen: dict[Decimal, str] = {}
    for label in labels:
        try:
            value = Decimal(label)
        except (InvalidOperation, ValueError, TypeError):
            continue
        if value.is_nan():
            continue
        if seen.setdefault(value, label) != label:
            return seen[value], label
    return None


def check_label_numbers(path, first_line: dict[str, int]) -> None:
    """DataError naming the file and both lines when two labels of one file (label -> its first line) are one number."""
    clash = same_number(first_line)
    if clash:
        a, b = clash
        raise DataError(path, f"labels {a!r} (line {first_line[a]}) and {b!r} (line {first_line[b]}) are the same "
                              "number written two ways and would be two classes; write them one way", first_line[b])


def _names(labels: Iterable[str]) -> str:
    return ", ".join(repr(label) for label in sorted(labels))


def given_labels(ex: Example) -> tuple[str, ...]:
    """The labels an example is given: its label set (multi-label), its one label, or none."""
    return ex.labels if ex.labels is not None else () if ex.label is None else (ex.label,)


def label_warnings(data: Dataset) -> list[str]:
    """One line per dev/test split that holds labels train never shows, e.g.
    "dev: 4 rows with label(s) 'neutral' never seen in train"; none when train has no labels (evaluation files)."""
    seen = {label for ex in data.splits.get("train", []) for label in given_labels(ex)}
    if not seen:
        return []
    warnings = []
    for split, examples in data.splits.items():
        if split == "train":
            continue
        unseen = Counter(label for ex in examples for label in given_labels(ex) if label not in seen)
        if unseen:
            warnings.append(f"{split}: {sum(unseen.values())} rows with label(s) {_names(unseen)} never seen in train")
    return warnings


def check_training_labels(data: Dataset) -> list[str]:
    """Raise AttentiveError when `data.splits["train"]` cannot train a classifier (no labelled rows, or one class);
    otherwise return the warnings of `label_warnings` (the same strings `load_*` already put in `Dataset.warnings`)."""
    counts = Counter(label for ex in data.splits.get("train", []) for label in given_labels(ex))
    if not counts:
        raise AttentiveError(f"{data.name}: train has no labelled rows: a classifier needs labelled examples")
    if data.multi_label and len(counts) == 1:
        raise AttentiveError(f"{data.name}: train's label sets name one label, {next(iter(counts))!r}: a "
                             "multi-label classifier needs at least two")
    if len(counts) == 1:
        (label, count), = counts.items()
        raise AttentiveError(f"{data.name}: train has one label, {label!r} ({count} rows): "
                             "a classifier needs at least two")
    return label_warnings(data)


def is_missing(value) -> bool:
    """Whether `value` stands for no value: None, a NaN (float, numpy, Decimal), or pandas' NA or NaT."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and NaT are the only values not equal to themselves
    except TypeError:  # pandas.NA: its comparisons give NA, which has no truth value
        return True
    except ValueError:  # an array: not one missing value
        return False


LABEL_SETS = (list, tuple, set, frozenset)  # a label given in memory as one of these is a text's label set


def check_labels_given(labels: list, name: str = "labels") -> None:
    """ArgumentError naming the first missing or blank label (`name[i]`, counted from 0), as a string it would be a
    class of its own ('None', 'nan', ''); a number that is not finite (inf: a class 'inf'); a label that is not valid
    Unicode (config.json could not hold it); and in a label set (multi-label) an item that is any of these. A label
    set beside single labels is refused by `check_label_kinds`."""
    for index, label in enumerate(labels):
        if is_missing(label):
            raise ArgumentError(f"{name}[{index}] is {label!r}: every text needs a label (give it one or leave the "
                                "example out)")
        if not str(label).strip():
            raise ArgumentError(f"{name}[{index}] is blank ({label!r}): every text needs a label (give it one or "
                                "leave the example out)")
        for item in label if isinstance(label, LABEL_SETS) else (label,):
            problem = _label_problem(item)
            if problem is not None:
                where = f"{name}[{index}]" + (" holds a label that" if isinstance(label, LABEL_SETS) else "")
                raise ArgumentError(f"{where} is {problem}")


def _label_problem(label) -> str | None:
    """Why one label (or one item of a label set) is no label, or None."""
    if is_missing(label) or not str(label).strip():
        return f"{label!r}: each label of a set must be given (leave it out of the set instead)"
    if isinstance(label, (numbers.Real, Decimal)) and not isinstance(label, bool) and not math.isfinite(label):
        return f"{label}: not a label (a number label must be finite)"
    return unicode_problem(str(label))


def check_label_kinds(labels: list, name: str = "labels") -> None:
    """ArgumentError naming the first label whose kind differs from the first one's: a label set (a list) among
    single labels, or a single label among sets. Multi-label data gives every text a set; one set must not turn
    single-label data into multi-label silently."""
    kinds = [isinstance(label, LABEL_SETS) for label in labels]
    differs = next((index for index, kind in enumerate(kinds) if kind != kinds[0]), None)
    if differs is not None:
        what = {True: "a label set (a list)", False: "a single label"}
        raise ArgumentError(f"{name}[{differs}] is {what[kinds[differs]]} but {name}[0] is {what[kinds[0]]}: "
                            "give every text one label, or, for multi-label data, every text a list of labels "
                            "(['a'] for one)")


SMALL_CLASS = 5  # training rows a class needs to be split into dev and learned at all


def data_warnings(data: Dataset, respaced: dict | None = None) -> list[str]:
    """The data report's warnings, one line each: labels read without the spaces around them (`respaced`: split ->
    Counter of the labels as written), labels that differ only by case, texts that appear more than once within a
    split (with their label) or in two splits, and classes with fewer than SMALL_CLASS training rows. Said alike by
    the CLI (stderr), `attentive.train` and the scikit-learn estimator (Python warnings, `DataWarning`)."""
    said = []
    for split, counts in (respaced or {}).items():
        shown = ", ".join(f"{str(written)!r} ({count}x)" for written, count in sorted(counts.items())[:5])
        stripped = ", ".join(sorted({repr(written.strip()) for written in counts}))
        said.append(f"{split}: label(s) {shown} read without the spaces around them, as {stripped}")
    labels = sorted({label for part in data.splits.values() for ex in part for label in given_labels(ex)})
    by_case: dict[str, list[str]] = {}
    for label in labels:
        by_case.setdefault(label.casefold(), []).append(label)
    for same in by_case.values():
        if len(same) > 1:
            said.append(f"labels {', '.join(map(repr, same))} differ only by case: they are {len(same)} classes; "
                        "write them one way if they are one")
    first: dict[str, str] = {}
    for split, examples in data.splits.items():
        counts = Counter(ex.text for ex in examples)
        repeated = {text: count for text, count in counts.items() if count > 1}
        if repeated:
            text, count = next(iter(repeated.items()))
            said.append(f"{split}: {len(repeated)} duplicate text(s), e.g. {_cut(text)!r} {count} times")
        shared = Counter(first[text] for text in counts if text in first)
        for other, count in shared.items():
            example = next(text for text in counts if first.get(text) == other)
            said.append(f"{split}: {count} text(s) also in {other}, e.g. {_cut(example)!r}")
        for text in counts:
            first.setdefault(text, split)
    train_counts = Counter(label for ex in data.splits.get("train", []) for label in given_labels(ex))
    small = {label: count for label, count in train_counts.items() if count < SMALL_CLASS}
    if small and len(train_counts) > 1:
        named = ", ".join(f"{label!r} ({count} rows)" for label, count in sorted(small.items()))
        said.append(f"train: class(es) {named} too small to split or learn (under {SMALL_CLASS} training rows)")
    return said


def _cut(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."
