"""Benchmark sets written as JSON Lines, one `{"text", "label"}` object a line, with a known set of labels: TweetEval
(emotion, irony, offensive: Barbieri et al. 2020) and CLINC150 (Larson et al. 2019), in-scope and out-of-scope.

The rows are read as a user's JSONL file is (`read_table`: blank texts dropped and counted, a bad line a DataError
naming it); on top of that, a label outside the set the source publishes is a DataError at its line, so that a
mislabelled or misplaced file (an in-scope file given as the out-of-scope one) stops at once.
"""
from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from attentive.data.readers._common import Rows
from attentive.data.readers.generic import jsonl_rows, read_table
from attentive.errors import DataError

TWEETEVAL_LABELS = {
    "emotion": ("anger", "joy", "optimism", "sadness"),
    "irony": ("irony", "non_irony"),
    "offensive": ("not-offensive", "offensive"),
}
OUT_OF_SCOPE = "oos"  # CLINC150's label of the queries that no intent covers


def read_labelled_jsonl(path: str | Path, labels: Collection[str] | None = None, refused: Collection[str] = ()) -> Rows:
    """The file's texts and labels; with `labels`, any other label is a DataError naming its line, as is a label in
    `refused` (the out-of-scope label in an in-scope file)."""
    rows = read_table(path, format="jsonl")
    if any((labels is not None and ex.label not in labels) or ex.label in refused for ex in rows.examples):
        for number, row, _ in jsonl_rows(Path(path)):
            label = str(row.get("label", "")).strip()
            if label in refused:
                raise DataError(path, f"label {label!r} does not belong in this file", number)
            if labels is not None and label not in labels:
                allowed = ", ".join(sorted(labels))
                raise DataError(path, f"label {label!r} is not one of this set's ({allowed})"[:300], number)
    return rows


def read_in_scope(path: str | Path) -> Rows:
    """CLINC150's in-scope queries (150 intents): an `oos` label here is a DataError (the out-of-scope queries are
    files of their own)."""
    return read_labelled_jsonl(path, refused={OUT_OF_SCOPE})


def read_out_of_scope(path: str | Path) -> Rows:
    """CLINC150's out-of-scope queries: every label must be `oos`."""
    return read_labelled_jsonl(path, {OUT_OF_SCOPE})
