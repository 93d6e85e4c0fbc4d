"""`attentive tune`'s study file (OUT/study.db, Optuna's SQLite storage) read as a hostile file, as model folders are
(attentive/folders/reading.py): before SQLite opens it, it must be a regular file inside OUT (no device such as
/dev/zero, no FIFO, folder or link out of OUT) that is empty or begins as every SQLite database does; a file that
passes and is damaged inside (cut short, overwritten) is SQLite's DatabaseError, which `damaged` makes one line.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import AttentiveError
from ..folders.reading import open_in_folder

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database
FIX = "give --overwrite to start the study over, or another --out"


def check_study(out: Path, name: str) -> None:
    """Nothing where OUT/`name` is absent, empty or an SQLite database inside OUT; else an AttentiveError naming it."""
    if not os.path.lexists(out / name):
        return
    with open_in_folder(out, name, holder="the tuning folder") as (handle, size):
        head = handle.read(len(SQLITE_HEADER))
    if size and head != SQLITE_HEADER:
        raise AttentiveError(f"{out / name}: not a study (not an SQLite database): {FIX}")


def damaged(path: Path, exc: Exception) -> AttentiveError:
    """SQLite's refusal of a damaged study (SQLAlchemy's DatabaseError `exc`) as one line naming `path`."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    return AttentiveError(f"{path}: a damaged study ({reason}): {FIX}")
