"""SemEval-2013 Task 2 Twitter sentiment as shipped by Barnes et al. (2017): `semeval/{train,dev,test}.tsv`.

Four TAB-separated columns `tweet_id, user_id, label, text`. The label is in double quotes in train/dev and bare in
test.
As in Barnes et al.'s loader, neutral / objective / objective-OR-neutral form one class "neutral" (3 classes).
"""
from __future__ import annotations

from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import iter_lines
from attentive.errors import DataError

LABELS = {
    "positive": "positive",
    "negative": "negative",
    "neutral": "neutral",
    "objective": "neutral",
    "objective-OR-neutral": "neutral",
}


def read_semeval2013(path: str | Path) -> list[Example]:
    examples = []
    for number, line in iter_lines(path):
        fields = line.split("\t", 3)
        if len(fields) != 4:
            raise DataError(path, f"expected 4 TAB-separated columns, found {len(fields)}", number)
        raw_label, text = fields[2].strip().strip('"'), fields[3].strip()
        if raw_label not in LABELS:
            raise DataError(path, f"unknown label {fields[2]!r}", number)
        if not text:
            raise DataError(path, "empty tweet text", number)
        examples.append(Example(text=text, label=LABELS[raw_label]))
    return examples
