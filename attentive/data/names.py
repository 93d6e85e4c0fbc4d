"""Column names given once. A header (CSV, TSV, the benchmark files') or a JSON line's object that gives a name twice
is refused by every reader that reads names: read as a mapping, the last of the repeated columns (or values) would win
and the others would be lost silently. `check_names` is the header's rule, `loads_keys_once` the JSON lines' (a
user's training files, the IMDB files, predict's --input lines)."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from attentive.errors import DataError


def repeated(names: Iterable) -> list:
    """The names given more than once, each once, in the order they first appear."""
    counts = Counter(names)
    return [name for name, count in counts.items() if count > 1]


def check_names(path: str | Path, names: list[str], line: int = 1) -> None:
    """DataError at `line` (the header's) naming every column name the header gives more than once."""
    twice = repeated(names)
    if twice:
        which = f"the column {twice[0]!r}" if len(twice) == 1 else f"the columns {', '.join(map(repr, twice))}"
        raise DataError(path, f"the header names {which} more than once: give each column its own name", line)


class RepeatedKey(ValueError):
    """A JSON line's object gives `key` twice (the first key it repeats); the message says so in words."""

    def __init__(self, key: str):
        super().__init__(f"the key {key!r} is given twice: keep one")
        self.key = key


def loads_keys_once(text: str):
    """`text` parsed by json.loads (its errors are json.loads'), or RepeatedKey where it is an object that gives a key
    twice: which of the values would be read? Objects nested inside are not held to this: a field's value is its
    reader's to check."""
    last: list = [None]  # the keys the object closed last repeats: the outermost object is closed last

    def pairs_once(pairs: list[tuple[str, object]]) -> dict:
        found = dict(pairs)
        last[0] = None if len(found) == len(pairs) else repeated(key for key, _ in pairs)
        return found

    value = json.loads(text, object_pairs_hook=pairs_once)
    if isinstance(value, dict) and last[0]:
        raise RepeatedKey(last[0][0])
    return value
