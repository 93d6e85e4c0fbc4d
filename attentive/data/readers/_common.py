"""Helpers shared by the readers: opening plain or gzip files, numbered lines, the `Rows` result."""
from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from attentive.data.example import Example
from attentive.errors import DataError


@dataclass
class Rows:
    """What a reader that may drop rows returns: the examples it kept and, per reason, how many rows it dropped.

    Readers that never drop a row return a plain `list[Example]` instead.
    """

    examples: list[Example]
    dropped: Counter = field(default_factory=Counter)

    @property
    def skipped(self) -> int:
        return sum(self.dropped.values())


def check_file(path: str | Path) -> Path:
    """Return `path` as a Path, or raise DataError("file not found")."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    return path


def iter_lines(path: str | Path, skip_bom: bool = False) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line without its end-of-line) from a UTF-8 file, gunzipped if it ends in `.gz`.

    Lines are split on "\\n" only (a lone "\\r" or U+2028 inside a text stays in the text).
    """
    path = check_file(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DataError(path, f"not UTF-8 text ({err.reason})", number) from None
            if skip_bom and number == 1:
                line = line.removeprefix("\ufeff")
            yield number, line.rstrip("\r\n")
