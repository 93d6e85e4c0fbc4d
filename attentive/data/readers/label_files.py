"""Folders with one file per label, one text a line (Barnes et al. 2017): OpeNER and SenTube.

- OpeNER: `opener/<split>/{strneg,neg,pos,strpos}.txt`, short opinion expressions; label = file stem.
- SenTube auto / tablets: `SenTube/<domain>/<split>/{pos,neg}.txt`, YouTube comments (U+FEFF characters kept as in
  the source).
"""
from __future__ import annotations

from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import check_file, iter_lines
from attentive.errors import DataError


def read_label_file(path: str | Path, label: str | None = None) -> list[Example]:
    """All lines of one file, each labelled `label` (default: the file's stem). An empty line is an error."""
    path = check_file(path)
    label = label or path.stem
    examples = []
    for number, line in iter_lines(path):
        text = line.strip()
        if not text:
            raise DataError(path, "empty line", number)
        examples.append(Example(text=text, label=label))
    return examples


def read_label_folder(folder: str | Path, labels: list[str]) -> list[Example]:
    """Concatenate `<folder>/<label>.txt` for each label, in the given order."""
    folder = Path(folder)
    return [ex for label in labels for ex in read_label_file(folder / f"{label}.txt", label)]
