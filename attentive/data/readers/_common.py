"""Helpers shared by the readers: opening plain or gzip files, numbered lines, the `Rows` result.

Reading problems never escape as Python exceptions: a missing or unreadable file, a `.gz` that is not gzip or is
cut short, and bytes that are not UTF-8 all become a DataError naming the file (and the line, where there is one).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from attentive.data.example import Example
from attentive.errors import DataError
from attentive.util.user_files import check_file, iter_raw_lines

__all__ = ["GZIP_MAGIC", "Rows", "check_file", "iter_lines", "iter_raw_lines"]

GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class Rows:
    """What a reader that may drop rows returns: the examples it kept and, per reason, how many rows it dropped.

    `multiline` counts the rows (kept or dropped) that span several physical lines because a quoted CSV field holds
    line breaks; they are legitimate, but counted so that a summary can say so. Readers that never drop a row return
    a plain `list[Example]` instead.
    """

    examples: list[Example]
    dropped: Counter = field(default_factory=Counter)
    multiline: int = 0
    dropped_lines: dict = field(default_factory=dict)  # reason -> the file's line numbers of the rows dropped for it
    respaced: Counter = field(default_factory=Counter)  # labels read without the spaces around them, as written

    @property
    def skipped(self) -> int:
        return sum(self.dropped.values())


def _decode(path: Path, raw: bytes, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if number == 1 and raw.startswith(GZIP_MAGIC):
            raise DataError(path, "gzip-compressed data in a file not named .gz; add .gz to its name", 1) from None
        raise DataError(path, f"not UTF-8 text ({err.reason})", number) from None


def iter_lines(path: str | Path, skip_bom: bool = False, keep_ends: bool = False) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line) from a UTF-8 file, gunzipped if it ends in `.gz` (see `iter_raw_lines`).

    Lines are split on "\\n" only (a lone "\\r" or U+2028 inside a text stays in the text); the end of line is removed
    unless `keep_ends` (the csv module needs it to keep line breaks inside quoted fields exactly).
    """
    path = Path(path)
    for number, raw in iter_raw_lines(path):
        line = _decode(path, raw, number)
        if skip_bom and number == 1:
            line = line.removeprefix("\ufeff")
        yield number, line if keep_ends else line.rstrip("\r\n")
