"""Proof of authorship: each folder attentive writes holds `.attentive-manifest.json`, naming every file it wrote
there, the output folder it wrote it for, and the file's SHA-256 digest.

A command treats a file as its own only when the manifest of the file's folder names it with the same digest and
the same output folder (the folder the command claimed: `OUT` for `train --out OUT`, and also `OUT` for the fold
models cv writes under `OUT/folds/K`, the trials and best model tune writes under `OUT/trials/N` and `OUT/best`).
A file of the command's name with other content, a saved model copied in from another run, or a folder another tool
wrote are not its own: the folder rule (attentive/folders/output.py) refuses them unless `--overwrite`.

Three kinds of entries:
- exact: the digest of the whole file (models, exports, reports, checkpoints);
- growing: the digest of the file's first `size` bytes (the metrics log, which training appends to);
- live: any content (tune's SQLite study, which SQLite rewrites in place; tune checks what it holds itself).

The manifest is written in the same atomic set as the files it names (`with_manifest`), so a reader never sees
files without their entries or entries without their files. Which output folder a write belongs to is the
claim's (`owner_of`/`writing_for`): a nested claim (a fold's training inside cv) writes for the outer one.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..util.atomic import atomic_write_bytes

MANIFEST = ".attentive-manifest.json"
FORMAT = "attentive-manifest-1"
MAX_BYTES = 4 * 1024 * 1024  # a manifest larger than this is no manifest attentive wrote
HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class Owner:
    """The command writing, and the output folder (resolved) it claimed."""

    command: str
    output: str

    @classmethod
    def of(cls, command: str, folder: str | Path) -> Owner:
        return cls(command, str(Path(folder).resolve()))


_CURRENT: contextvars.ContextVar[Owner | None] = contextvars.ContextVar("attentive_owner", default=None)


def current_owner() -> Owner | None:
    """The owner of the claim this code runs inside, if any."""
    return _CURRENT.get()


def owner_of(folder: str | Path, command: str) -> Owner:
    """Who writes into `folder`: the claim this code runs inside, else `command` for `folder` itself (a model saved
    from Python outside any command)."""
    return _CURRENT.get() or Owner.of(command, folder)


@contextlib.contextmanager
def writing_for(owner: Owner) -> Iterator[Owner]:
    """Writes inside this block belong to `owner` (set by a claim, or by a worker process from its job)."""
    token = _CURRENT.set(owner)
    try:
        yield owner
    finally:
        _CURRENT.reset(token)


def read_manifest(folder: str | Path) -> dict[str, dict]:
    """The entries of `folder`'s manifest ({file name: entry}); {} where there is none or it is not one attentive
    wrote (not a regular file, too large, not JSON of the right shape)."""
    path = Path(folder) / MANIFEST
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
        return {}
    return {name: entry for name, entry in data["files"].items() if isinstance(entry, dict)}


def _encoded(entries: Mapping[str, dict]) -> bytes:
    return (json.dumps({"format": FORMAT, "files": dict(sorted(entries.items()))}, indent=1) + "\n").encode("utf-8")


def _exact(owner: Owner, data: bytes) -> dict:
    return {"command": owner.command, "output": owner.output, "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data)}


def with_manifest(folder: str | Path, files: Mapping[str, bytes], owner: Owner,
                  dropped: Iterable[str] = ()) -> dict[str, bytes]:
    """`files` plus `folder`'s manifest recording them as `owner`'s (and no longer naming `dropped`), to be written
    as one atomic set."""
    entries = read_manifest(folder)
    for name in dropped:
        entries.pop(name, None)
    entries.update({name: _exact(owner, data) for name, data in files.items()})
    return {**files, MANIFEST: _encoded(entries)}


def record(folder: str | Path, owner: Owner, *, growing: Iterable[str] = (), live: Iterable[str] = ()) -> None:
    """Record files written outside an atomic set: `growing` ones (appended to; their current bytes are the prefix
    any later content must keep) and `live` ones (rewritten in place by another library)."""
    folder = Path(folder)
    entries = read_manifest(folder)
    for name in growing:
        digest, size = _digest(folder / name)
        entries[name] = {"command": owner.command, "output": owner.output, "sha256": digest, "size": size,
                         "growing": True}
    for name in live:
        entries[name] = {"command": owner.command, "output": owner.output, "live": True}
    atomic_write_bytes(folder / MANIFEST, _encoded(entries))


def _digest(path: Path, limit: int | None = None) -> tuple[str, int]:
    """SHA-256 of the file's first `limit` bytes (all of it if None), and how many bytes that was."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while limit is None or size < limit:
            chunk = handle.read(HASH_CHUNK if limit is None else min(HASH_CHUNK, limit - size))
            if not chunk:
                break
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def owns_file(folder: str | Path, name: str, owner: Owner, entries: Mapping[str, dict] | None = None) -> bool:
    """Whether `folder/name` is a regular file `owner`'s output folder wrote, with the content it wrote."""
    path = Path(folder) / name
    entry = (read_manifest(folder) if entries is None else entries).get(name)
    if entry is None or entry.get("output") != owner.output or path.is_symlink() or not path.is_file():
        return False
    if entry.get("live") is True:
        return True
    size, expected = entry.get("size"), entry.get("sha256")
    if not isinstance(size, int) or not isinstance(expected, str):
        return False
    actual = os.stat(path).st_size
    if actual < size or (actual != size and entry.get("growing") is not True):
        return False
    digest, read = _digest(path, size)
    return read == size and digest == expected


def _nothing(name: str) -> bool:
    return False


def foreign_entries(folder: str | Path, owner: Owner, skip: Callable[[str], bool] = _nothing) -> list[str]:
    """The entries of `folder` that are not `owner`'s: files its manifest does not name as `owner`'s with their
    content, links, other kinds of files, and subfolders holding any such entry (relative paths, sorted). Entries
    whose name `skip` accepts (hidden working files) are left out, at every depth."""
    folder = Path(folder)
    entries = read_manifest(folder)
    foreign = []
    for entry in sorted(os.listdir(folder)):
        if entry == MANIFEST or skip(entry):
            continue
        path = folder / entry
        if path.is_symlink():
            foreign.append(entry)
        elif path.is_dir():
            foreign.extend(f"{entry}/{inner}" for inner in foreign_entries(path, owner, skip))
        elif not owns_file(folder, entry, owner, entries):
            foreign.append(entry)
    return foreign


def remove_owned(folder: str | Path, owner: Owner, names: Iterable[str] | None = None,
                 skip: Callable[[str], bool] = _nothing) -> None:
    """Remove the files of `folder` (all, or `names`) that are `owner`'s, and subfolders of only such files; then the
    manifest and the folder itself once nothing else is left in it. What is not `owner`'s stays as it is."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return
    entries = read_manifest(folder)
    wanted = set(os.listdir(folder)) if names is None else set(names)
    removed = []
    for name in sorted(wanted - {MANIFEST}):
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            remove_owned(path, owner, skip=skip)
        elif owns_file(folder, name, owner, entries):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(name)
    remaining = {name for name in os.listdir(folder) if name != MANIFEST and not skip(name)}
    if remaining:
        if removed:
            kept = {name: entry for name, entry in entries.items() if name not in removed}
            atomic_write_bytes(folder / MANIFEST, _encoded(kept))
        return
    with contextlib.suppress(OSError):
        (folder / MANIFEST).unlink()
        folder.rmdir()
