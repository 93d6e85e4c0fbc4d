"""Readers for one-example-a-line files that start with the label: R8 (`label<TAB>text`) and SST `stsa.*`
(`label text`)."""
from __future__ import annotations

from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import iter_lines
from attentive.errors import DataError


def _read(path: str | Path, separator: str, what: str) -> list[Example]:
    examples = []
    for number, line in iter_lines(path):
        label, sep, text = line.partition(separator)
        text = text.strip()
        if not sep or not label or not text:
            raise DataError(path, f"expected {what}", number)
        examples.append(Example(text=text, label=label))
    return examples


def read_label_tab(path: str | Path) -> list[Example]:
    """R8 (Cardoso-Cachopo all-terms) and the packaged sample: one document a line, `label<TAB>text`."""
    return _read(path, "\t", "'label<TAB>text'")


def read_stsa(path: str | Path) -> list[Example]:
    """SST sentence files `stsa.fine.*` / `stsa.binary.*` (Kim 2014 layout): `<label> <tokenized sentence>`."""
    return _read(path, " ", "'<label> <text>'")
