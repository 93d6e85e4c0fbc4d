"""SemEval-2014 Task 4 aspect-based sentiment, official XML (Pontiki et al. 2014), read with xml.etree.

`<sentences><sentence id><text>...</text>
    <aspectTerms><aspectTerm term polarity from to/></aspectTerms>
    <aspectCategories><aspectCategory category polarity/></aspectCategories></sentence>...`

One Example per (sentence, aspect): `aspect` is the category (food, service, ...) or the term string, `label` the
polarity.
`conflict` polarities are dropped (ATAE-LSTM setting, Wang et al. 2016); `binary=True` also drops `neutral`.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import Rows, check_file
from attentive.errors import DataError

POLARITIES = ("positive", "negative", "neutral", "conflict")


def _line_of(path: Path, needle: str) -> int | None:
    """1-based line of the first occurrence of `needle` (used only to point an error at the right line)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if needle in line:
                return number
    return None


def _read(path: str | Path, container: str, item: str, aspect_attr: str, binary: bool) -> Rows:
    path = check_file(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        problem = str(err).split(":")[0]  # "mismatched tag: line 1, column 8" -> "mismatched tag"
        raise DataError(path, f"malformed XML ({problem})", err.position[0]) from None
    drop = {"conflict", "neutral"} if binary else {"conflict"}
    examples, dropped = [], Counter()
    for sentence in root.iter("sentence"):
        sid = sentence.get("id")
        text = (sentence.findtext("text") or "").strip()
        for node in sentence.findall(f"{container}/{item}"):
            aspect, polarity = node.get(aspect_attr), node.get("polarity")
            if not text or not aspect or polarity not in POLARITIES:
                line = _line_of(path, f'id="{sid}"')
                raise DataError(path, f"sentence {sid}: {item} needs a text, {aspect_attr} and polarity", line)
            if polarity in drop:
                dropped[polarity] += 1
                continue
            examples.append(Example(text=text, label=polarity, aspect=aspect))
    return Rows(examples, dropped)


def read_semeval14_categories(path: str | Path, binary: bool = False) -> Rows:
    """Aspect-category sentiment: one Example per (sentence, aspectCategory), aspect = category."""
    return _read(path, "aspectCategories", "aspectCategory", "category", binary)


def read_semeval14_terms(path: str | Path, binary: bool = False) -> Rows:
    """Aspect-term sentiment: one Example per (sentence, aspectTerm), aspect = the term string."""
    return _read(path, "aspectTerms", "aspectTerm", "term", binary)
