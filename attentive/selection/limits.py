"""The limits `attentive tune` takes as text: a time budget ("10m", "90s", "1.5h") and a model folder size ("5MB",
"2 MiB"), each one line naming the value when it cannot be read."""
from __future__ import annotations

import math
import re

from ..errors import AttentiveError

BUDGET = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|sec|m|min|h)?\s*", re.IGNORECASE)
SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(b|kb|mb|gb|kib|mib|gib|k|m|g)?\s*", re.IGNORECASE)
SIZE_UNITS = {"b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "kib": 2**10, "mib": 2**20,
              "gib": 2**30}


def parse_budget(budget: str | float | int) -> float:
    """Seconds of a budget: a number of seconds, or "30s", "10m", "1.5h"; else one line."""
    if isinstance(budget, (int, float)) and not isinstance(budget, bool):
        seconds = float(budget)
    else:
        found = BUDGET.fullmatch(str(budget))
        if found is None:
            raise AttentiveError(f"budget {str(budget)[:40]!r}: give a time such as 30s, 10m or 1h")
        unit = (found.group(2) or "s").lower()[0]
        seconds = float(found.group(1)) * {"s": 1, "m": 60, "h": 3600}[unit]
    if not math.isfinite(seconds) or seconds <= 0:
        raise AttentiveError(f"budget {budget!r}: give a time above zero, such as 30s, 10m or 1h")
    return seconds


def parse_size(size: str | int | None) -> int | None:
    """Bytes of a size limit: a number of bytes, or "500KB", "5MB", "1GB" (powers of 1000; KiB, MiB, GiB of
    1024); None for none; else one line."""
    if size is None:
        return None
    if isinstance(size, int) and not isinstance(size, bool):
        value = float(size)
    else:
        found = SIZE.fullmatch(str(size))
        if found is None:
            raise AttentiveError(f"max size {str(size)[:40]!r}: give a size such as 500KB, 5MB or 1GB")
        value = float(found.group(1)) * SIZE_UNITS[(found.group(2) or "b").lower()]
    if value < 1:
        raise AttentiveError(f"max size {size!r}: give a size above zero, such as 5MB")
    return int(value)


def human_size(size: int | None) -> str:
    if size is None:
        return ""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"
