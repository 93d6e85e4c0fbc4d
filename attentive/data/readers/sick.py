"""SICK full release (Marelli et al. 2014), `SICK.txt.gz`: gzip TSV with a 12-column header.

text = sentence_A (premise), text_pair = sentence_B (hypothesis), label = entailment_label
(NEUTRAL / ENTAILMENT / CONTRADICTION). The split comes from SemEval_set: TRAIN -> train, TRIAL -> dev, TEST -> test.
"""
from __future__ import annotations

from pathlib import Path

from attentive.data.example import Example
from attentive.data.names import check_names
from attentive.data.readers._common import iter_lines
from attentive.errors import DataError

SPLIT_OF = {"TRAIN": "train", "TRIAL": "dev", "TEST": "test"}
LABELS = ("NEUTRAL", "ENTAILMENT", "CONTRADICTION")
NEEDED = ("sentence_A", "sentence_B", "entailment_label", "SemEval_set")


def read_sick(path: str | Path) -> dict[str, list[Example]]:
    """The three official splits, keyed "train", "dev", "test"."""
    splits: dict[str, list[Example]] = {name: [] for name in SPLIT_OF.values()}
    lines = iter_lines(path)
    header: list[str] | None = None
    for number, line in lines:
        header = line.split("\t")
        check_names(path, header, number)
        missing = [name for name in NEEDED if name not in header]
        if missing:
            raise DataError(path, f"header lacks the column(s) {', '.join(missing)}", number)
        break
    if header is None:
        raise DataError(path, "empty file (no header line)")
    a, b, lab, sem = (header.index(name) for name in NEEDED)
    for number, line in lines:
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataError(path, f"expected {len(header)} TAB-separated columns, found {len(fields)}", number)
        if fields[lab] not in LABELS or fields[sem] not in SPLIT_OF:
            raise DataError(path, f"bad entailment_label {fields[lab]!r} or SemEval_set {fields[sem]!r}", number)
        example = Example(text=fields[a].strip(), label=fields[lab], text_pair=fields[b].strip())
        splits[SPLIT_OF[fields[sem]]].append(example)
    return splits
