"""`attentive tune`'s study file (OUT/study.db, Optuna's SQLite storage) read as a hostile file, as model folders are
(attentive/folders/reading.py): before SQLite opens it, it must be a regular file inside OUT (no device such as
/dev/zero, no FIFO, folder or link out of OUT) that is empty or begins as every SQLite database does, and, read
without writing, hold Optuna's tables at the schema version of the Optuna installed (a study written by another
Optuna version is refused before Optuna would migrate or write into it). A file that passes and is damaged inside
(cut short, overwritten) is SQLite's DatabaseError, which `damaged` makes one line. Whether OUT/study.db is tune's
own at all is the folder rule's question (attentive/folders/output.py): tune records it in OUT's manifest.
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
    if size:
        _check_schema(out / name)


def _check_schema(path: Path) -> None:
    """The study's Optuna schema (its alembic revision) must be this Optuna's; read with SQLite in read-only mode."""
    import sqlite3

    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
            if not {"studies", "alembic_version"} <= tables:
                raise AttentiveError(f"{path}: not a study (an SQLite database without Optuna's tables): {FIX}")
            found = [row[0] for row in connection.execute("select version_num from alembic_version")]
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None
    head = optuna_schema()
    if found != [head]:
        written = found[0] if found else "none"
        raise AttentiveError(f"{path}: a study of another Optuna version (schema {written}; this Optuna, "
                             f"{_optuna_version()}, reads {head}): give --overwrite to start the study over, run "
                             f"`optuna storage upgrade --storage sqlite:///{path.resolve().as_posix()}` to upgrade it, "
                             "or another --out")


def optuna_schema() -> str:
    """The schema revision the installed Optuna writes (the head of its alembic migrations)."""
    import optuna.storages._rdb as rdb
    from alembic.script import ScriptDirectory

    return ScriptDirectory(os.path.join(os.path.dirname(rdb.__file__), "alembic")).get_current_head()


def _optuna_version() -> str:
    import optuna

    return optuna.__version__


def damaged(path: Path, exc: Exception) -> AttentiveError:
    """SQLite's refusal of a damaged study (SQLAlchemy's DatabaseError `exc`) as one line naming `path`."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    return AttentiveError(f"{path}: a damaged study ({reason}): {FIX}")
