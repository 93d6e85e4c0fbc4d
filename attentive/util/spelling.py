"""Names in one-line messages: "did you mean" the known name closest to a misspelt one (a setting, a recipe, a
dataset), by difflib's ratio; and a list of names cut short (`listed`)."""
from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """" (did you mean 'epochs'?)" for the known name closest to `given` (difflib's ratio at least 0.6), "" where
    none is close."""
    close = difflib.get_close_matches(str(given), [str(name) for name in known], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def listed(names: Sequence[str], most: int = 10) -> str:
    """Names for a one-line message: the first `most` quoted, then how many more."""
    shown = ", ".join(map(repr, names[:most]))
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
