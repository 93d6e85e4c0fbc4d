"""Atomic writes: a file is written beside its target under a temporary name, then renamed over it; a set of files
(a model folder) is committed by renaming the folder that holds the new ones. A cache entry several processes may
compute at once is computed by one of them (`computed_once`)."""
from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import AttentiveError


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


@contextlib.contextmanager
def computed_once(path: str | Path):
    """Held while the cache entry `path` is looked up and, if missing, computed and written: a process computing the
    same entry meanwhile waits here, then finds it written (an exclusive `flock` on PATH.lock, which stays beside
    it; no lock where the platform has no `fcntl`). Several trainings started at once on a fresh machine (benchmark
    lanes, a test suite's workers) so compute MiniLM's vocabulary table once, not once each."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each process computes, the atomic write keeps the entry whole
        yield
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        lock = open(path.with_name(path.name + ".lock"), "a")
    except OSError:  # a folder this process may not write in: compute without the lock, as without fcntl
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, obj) -> None:
    """Write `obj` as JSON (indented, UTF-8); NaN or an infinity, which JSON has no words for, is an AttentiveError
    naming the file and the entry, and nothing is written."""
    atomic_write_text(path, json_text(obj, path) + "\n")


def json_text(obj, path: str | Path) -> str:
    """`obj` as indented JSON text, refusing NaN and infinities (json.dumps would write a bare NaN, which no JSON
    reader accepts) with an AttentiveError naming `path` and the entry that holds one."""
    try:
        return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        found = non_finite_entry(obj)
        if found is None:
            raise
        raise AttentiveError(f"{path}: {found[0]} is {found[1]}, which JSON cannot hold") from None


def non_finite_entry(obj) -> tuple[str, float] | None:
    """The first entry of nested dicts and lists holding a float NaN or infinity, as a dotted path (`"metrics.f1"`,
    `"scores[2]"`), with its value; None if there is none. Walks without recursion."""
    stack = [(obj, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return where or "the value", value
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


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
    run by several processes at once: a file another process has already moved is skipped. Only regular files of a
    real `.written` folder are moved (a hostile folder's `.written` link to elsewhere moves nothing)."""
    committed = Path(folder) / COMMITTED
    if committed.is_symlink() or not committed.is_dir():  # a link could make it move files from anywhere
        return
    for entry in sorted(committed.iterdir()):
        if entry.is_symlink() or not entry.is_file():  # a write commits regular files only
            continue
        with contextlib.suppress(FileNotFoundError):
            os.replace(entry, Path(folder) / entry.name)
    with contextlib.suppress(FileNotFoundError, OSError):
        committed.rmdir()
