"""Multi-label data: a text's label field holding several labels, as a JSON list (`"labels": ["food", "service"]`) or
as one string cut by a separator (`--label-separator "|"`: `food|service`).

A label set is a sorted tuple of distinct, stripped, non-empty label strings; it may be empty (a JSON `[]`: none of
the labels applies). Numbers in a JSON list are read as their `str()`, as single labels are. Each bad set is a
DataError naming the file, the line and the problem: an item that is not a string or number, an empty item (two
separators in a row, a trailing separator), a label given twice; and lone surrogates (a `\\ud800` escape). A file is
multi-label throughout or not at all: label sets on some rows beside single labels on others are refused
(attentive/data/readers/generic.py), unless a separator is given (every label a set, a single one a set of one).
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from attentive.data.example import Example
from attentive.errors import DataError
from attentive.util.checks import unicode_problem


def _item(path: Path, item, column: str, number: int) -> str:
    """One label of a JSON list, as a string; else DataError."""
    if isinstance(item, float) and not math.isfinite(item):
        raise DataError(path, f"column {column!r} holds {json.dumps(item)} in its list, which is not a label", number)
    if isinstance(item, str) and (problem := unicode_problem(item)) is not None:
        raise DataError(path, f"column {column!r} holds a label in its list that is {problem}", number)
    if isinstance(item, (str, int, float)) and not isinstance(item, bool):
        return str(item).strip()
    kind = "null" if item is None else type(item).__name__
    raise DataError(path, f"column {column!r} holds a list with a {kind} in it; each label must be a string",
                    number)


def label_set(path: Path, value, column: str, number: int, separator: str | None) -> tuple[str, ...]:
    """The labels of one row's label field: a list's items, or a string cut at `separator` (a string without a
    separator given is a set of one). DataError for an empty label or one given twice."""
    if isinstance(value, list):
        items = [_item(path, item, column, number) for item in value]
        where = "an empty string in its list"
    else:
        text = "" if value is None else str(value)
        items = [part.strip() for part in (text.split(separator) if separator else [text])]
        where = (f"an empty label (nothing between two {separator!r}, or before or after one)" if separator
                 else "an empty label")
    if any(not item for item in items):
        raise DataError(path, f"column {column!r} holds {where}", number)
    twice = sorted({item for item in items if items.count(item) > 1})
    if twice:
        raise DataError(path, f"column {column!r} names label {twice[0]!r} twice", number)
    return tuple(sorted(items))


def multi_hot(examples: Sequence[Example], labels: Sequence[str]) -> np.ndarray:
    """Texts x labels, 1.0 where the text's set holds the label (in the order of `labels`); a label no column
    names is a ValueError (the callers check labels first)."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(examples), len(labels)), dtype=np.float32)
    for row, ex in enumerate(examples):
        for label in ex.labels or ():
            matrix[row, index[label]] = 1.0
    return matrix
