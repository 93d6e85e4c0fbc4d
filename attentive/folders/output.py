"""The one rule for every command that writes a folder (train, export, analyze, cv, tune, distill): it never removes
or replaces anything it cannot show it wrote, and one writer at a time.

`claim(out, kind)` is held for the whole run of a command. Before anything is written it checks that the folder is
not the input model, does not hold it, and does not hold the working directory (never, even with `overwrite`);
then it takes an advisory lock (`fcntl.flock` on `OUT/.attentive.lock`, whose text names the holder), so that a
second writer fails at once with one line naming the first; then it checks what the folder holds. A file is the
command's own only when the folder's manifest (attentive/folders/manifest.py) names it as written for this output
folder, with the content it has now: a file of the command's name with other content, a model copied in from
another run or another tool's export is not. An earlier output of the same kind is replaced only with `overwrite`
(where the kind says so); anything else is refused unless `overwrite`, and even then only the command's own file
names are ever replaced and nothing is removed. Subfolders the command writes (train's `checkpoint/`, tune's
`trials/N` and `best/`, cv's `folds/K`) follow the same rule, file by file; names in them the command never writes
are refused outright. Folders the claim created are removed again if the command fails before writing anything
into them; the lock file is removed when the claim ends.

New files are made in a hidden scratch folder inside OUT (`OutputFolder.scratch`; one left by a killed run is
removed by the next claim) and committed as one set with the manifest that names them (`OutputFolder.commit`,
`util.atomic.atomic_write_files`): a reader sees the old files or the new ones, never a mix.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AttentiveError
from ..util.atomic import COMMITTED, STAGING, atomic_write_files
from ..util.spelling import listed
from .manifest import (
    MANIFEST,
    Owner,
    foreign_entries,
    owner_of,
    owns_file,
    read_manifest,
    with_manifest,
    writing_for,
)
from .reading import read_json_in_folder

try:
    import fcntl
except ImportError:  # not POSIX: the folder checks still apply, the lock does not
    fcntl = None

LOCK = ".attentive.lock"
SCRATCH_PREFIX = ".attentive-scratch-"
HIDDEN = frozenset({LOCK, STAGING, COMMITTED, MANIFEST})  # what any attentive write may leave in a folder


@dataclass(frozen=True)
class OutputKind:
    """What one command writes into its output folder.

    `files`: the names of the files it writes (the only names it ever replaces or removes); `folders`: subfolders
    it writes, each with the names of the files it writes in it (None: whatever names, checked by the manifest
    alone); `holds_output(folder)`: whether a folder holds an earlier output of this kind; `clash(folder)`: the name
    of another kind of output this command must never write over, even with overwrite (an export over a trained
    model's config.json), or None."""

    command: str
    output: str
    files: frozenset[str]
    holds_output: Callable[[Path], bool]
    folders: Mapping[str, frozenset[str] | None] = field(default_factory=dict)
    replacing_needs_overwrite: bool = True
    alternatives: str = ""  # other ways out of "already holds", e.g. ", --resume to continue its training"
    clash: Callable[[Path], str | None] = lambda folder: None


def is_hidden(name: str) -> bool:
    """Whether `name` is one of the hidden entries any attentive write may leave (lock, staging, manifest, scratch)."""
    return name in HIDDEN or name.startswith(SCRATCH_PREFIX)


@dataclass(frozen=True)
class OutputFolder:
    """A claimed output folder: locked, checked, and written only through `commit`."""

    path: Path
    kind: OutputKind
    owner: Owner

    @contextlib.contextmanager
    def scratch(self) -> Iterator[Path]:
        """A hidden working folder inside the output folder, for tools that write files by name; always removed."""
        folder = Path(tempfile.mkdtemp(dir=self.path, prefix=SCRATCH_PREFIX))
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def commit(self, files: Mapping[str, bytes], remove: Iterable[str] = ()) -> None:
        """Replace the command's `files` in the folder as one set, then remove `remove` (files an earlier output of
        this kind wrote that this one does not; only those the manifest shows it wrote). Only names of the kind's own
        files are accepted."""
        entries = read_manifest(self.path)
        remove = [name for name in remove if name not in files and owns_file(self.path, name, self.owner, entries)]
        foreign = sorted(name for name in (*files, *remove) if name not in self.kind.files)
        if foreign:
            raise ValueError(f"attentive {self.kind.command} does not write {listed(foreign)}")
        atomic_write_files(self.path, with_manifest(self.path, files, self.owner, dropped=remove))
        for name in remove:
            with contextlib.suppress(FileNotFoundError):
                (self.path / name).unlink()

    def commit_folder(self, folder: Path, remove: Iterable[str] = ()) -> None:
        """`commit` the regular files a scratch folder holds."""
        files = {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir()) if entry.is_file()}
        self.commit(files, remove)


@contextlib.contextmanager
def claim(out: str | Path, kind: OutputKind, *, overwrite: bool = False, continuing: bool = False,
          inputs: Iterable[str | Path | None] = ()) -> Iterator[OutputFolder]:
    """Hold `out` for one run of `kind.command` (see the module's docstring). `inputs` are folders the command
    reads and must never write over (the input model); `continuing` skips the checks of the folder's contents (a
    resumed run continues in its own folder)."""
    out = Path(out)
    check_destination(out, inputs)
    owner = owner_of(out, kind.command)  # a claim inside another's (a fold inside cv) writes for the outer one
    created = _make_folders(out)
    try:
        with locked(out, kind.command), writing_for(owner):
            if not continuing:
                check_contents(out, kind, overwrite, owner)
            _remove_dead_scratch(out)
            yield OutputFolder(out, kind, owner)
    except BaseException:
        for folder in reversed(created):  # innermost first; only those still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def check_claimable(out: str | Path, kind: OutputKind, overwrite: bool = False,
                    inputs: Iterable[str | Path | None] = ()) -> None:
    """The checks `claim` makes of `out`, made now without claiming it: for a command that must refuse a folder it
    will write later (after training, a teacher, a search) before that work starts."""
    out = Path(out)
    check_destination(out, inputs)
    if out.is_dir():
        check_contents(out, kind, overwrite)


def check_destination(out: Path, inputs: Iterable[str | Path | None] = ()) -> None:
    """`out` must be a folder (or not exist yet), and neither the working directory nor the input model, nor hold
    either of them: no overwrite makes those right."""
    if out.is_symlink() and not out.exists():
        raise AttentiveError(f"output folder {out}: a symbolic link to nothing")
    if out.exists() and not out.is_dir():
        raise AttentiveError(f"output folder {out}: is a file, not a folder")
    target = out.resolve()
    with contextlib.suppress(OSError):  # a working directory that no longer exists holds nothing
        here = Path.cwd().resolve()
        if target == here or target in here.parents:
            raise AttentiveError(f"output folder {out} is the working directory or a folder above it: give a new "
                                 "folder for the output")
    for given in inputs:
        if given is None:
            continue
        source = Path(given).resolve()
        if target == source:
            raise AttentiveError(f"output folder {out} is the input model: give another folder")
        if target in source.parents:
            raise AttentiveError(f"output folder {out} holds the input model {given}: give another folder")


def check_contents(out: Path, kind: OutputKind, overwrite: bool, owner: Owner | None = None) -> None:
    """What `out` already holds must be `kind`'s to replace (see the module's docstring); `owner` is the output
    folder the command writes for (by default `out` itself, or the claim this runs inside)."""
    owner = owner or owner_of(out, kind.command)
    other = kind.clash(out)
    if other is not None:
        raise AttentiveError(f"{out} holds {other}, whose files attentive {kind.command} would replace: give another "
                             "output folder")
    for name, names in kind.folders.items():
        folder = out / name
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise AttentiveError(f"{folder} is not a folder, and attentive {kind.command} writes its {name}/ folder "
                                 "there: move it, or give another output folder")
        if not folder.is_dir():
            continue
        strangers = sorted(name for name in set(os.listdir(folder)) - (names or set()) if not is_hidden(name))
        if strangers and names is not None:
            raise AttentiveError(f"{folder} holds files attentive {kind.command} did not write "
                                 f"({listed(strangers, 3)}), and it writes its {name}/ folder there: move them, or "
                                 "give another output folder")
        _refuse_foreign(folder, _foreign(folder, owner), kind, overwrite)
    entries = read_manifest(out)
    foreign = [name for name in os.listdir(out) if not is_hidden(name) and name not in kind.folders
               and not (name in kind.files and owns_file(out, name, owner, entries))]
    earlier = kind.holds_output(out) and not kind.files.intersection(foreign)  # the command's own, unchanged
    if earlier and kind.replacing_needs_overwrite and not overwrite:
        raise AttentiveError(f"{out} already holds {kind.output}: give --overwrite to replace it{kind.alternatives}, "
                             "or another --out")
    _refuse_foreign(out, foreign, kind, overwrite)


def _foreign(folder: Path, owner: Owner) -> list[str]:
    """The entries under a subfolder the command writes that it cannot show it wrote."""
    return foreign_entries(folder, owner, is_hidden)


def _refuse_foreign(folder: Path, foreign: list[str], kind: OutputKind, overwrite: bool) -> None:
    if foreign and not overwrite:
        names = listed(sorted(foreign), 3)
        raise AttentiveError(f"{folder} holds files attentive {kind.command} did not write ({names}): give a new or "
                             f"empty folder, or --overwrite to write {kind.output} there (only its own files, "
                             f"{listed(sorted(kind.files), 5)}, would be replaced; nothing removed)")


def _remove_dead_scratch(out: Path) -> None:
    """Scratch folders of runs that were killed (whoever holds the lock is the only live writer)."""
    for entry in out.iterdir():
        if entry.name.startswith(SCRATCH_PREFIX) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)


def _make_folders(out: Path) -> list[Path]:
    """Create `out` and its missing parents; the folders created, outermost first."""
    missing = [folder for folder in (out, *out.parents) if not folder.exists()][::-1]
    created = []
    for folder in missing:
        try:
            folder.mkdir()
        except FileExistsError:  # made meanwhile by someone else: not ours to remove
            continue
        except OSError as exc:
            raise AttentiveError(f"output folder {out}: cannot create {folder} ({exc.strerror})") from None
        created.append(folder)
    return created


def read_config(folder: Path) -> dict | None:
    """`folder/config.json` as a dict, if it is a readable JSON object (read as model folders are read)."""
    try:
        return read_json_in_folder(folder, "config.json")
    except AttentiveError:
        return None


@contextlib.contextmanager
def locked(folder: str | Path, command: str) -> Iterator[None]:
    """Hold the advisory lock of `folder` (which must exist): a second holder gets one line naming this one."""
    if fcntl is None:
        yield
        return
    path = Path(folder) / LOCK
    descriptor = _acquire(path, command)
    try:
        yield
    finally:
        try:
            if _is_open_as(descriptor, path):
                path.unlink()  # while still locked: a process that opened it meanwhile sees it is gone and retries
        except OSError:
            pass
        os.close(descriptor)


def _acquire(path: Path, command: str) -> int:
    for _ in range(20):
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 500, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(descriptor)
            raise AttentiveError(f"{path.parent} is being written by {holder}: wait for it to finish, or give "
                                 "another output folder") from None
        except BaseException:
            os.close(descriptor)
            raise
        if _is_open_as(descriptor, path):
            holder = f"attentive {command} (pid {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')})"
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, holder.encode("utf-8") + b"\n", 0)
            return descriptor
        os.close(descriptor)  # its last holder removed it between our open and our lock: open the new one
    raise AttentiveError(f"{path.parent}: could not take its lock {path.name} (other processes keep taking it)")


def _is_open_as(descriptor: int, path: Path) -> bool:
    """Whether `path` is still the file open as `descriptor`."""
    try:
        on_disk, opened = path.stat(), os.fstat(descriptor)
    except OSError:
        return False
    return (on_disk.st_dev, on_disk.st_ino) == (opened.st_dev, opened.st_ino)
