"""Atomic writes: a file is written beside its target under a temporary name, then renamed over it; a set of files
(a model folder) is committed by renaming the folder that holds the new ones."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; give the usual permissions
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


STAGING, COMMITTED = ".writing", ".written"  # hidden subfolders of a folder being written as a whole


def atomic_write_files(folder: str | Path, files: dict[str, bytes]) -> None:
    """Replace several files of `folder` as one: readers see all the old files or all the new ones, never a mix.

    The files are written into `folder/.writing`, which one rename turns into `folder/.written` (the commit point);
    they are then moved over their targets one by one. A crash before the commit leaves the old files untouched (the
    half-written staging folder is ignored and replaced by the next write); a crash after it is finished by the next
    `finish_interrupted_write` (every load calls it), so the new files win."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    finish_interrupted_write(folder)
    staging = folder / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    for name, data in files.items():
        with open(staging / name, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(staging, folder / COMMITTED)
    finish_interrupted_write(folder)


def finish_interrupted_write(folder: str | Path) -> None:
    """Move the files of a committed write (`folder/.written`) into place; nothing to do if there is none. Safe to
    run by several processes at once: a file another process has already moved is skipped."""
    committed = Path(folder) / COMMITTED
    if not committed.is_dir():
        return
    for entry in sorted(committed.iterdir()):
        with contextlib.suppress(FileNotFoundError):
            os.replace(entry, Path(folder) / entry.name)
    with contextlib.suppress(FileNotFoundError, OSError):
        committed.rmdir()
