"""The one rule for every file a command writes under a name the user gives (`evaluate --output`, `explain --html`
and `--png`, `predict --output`), beside the rule for output folders (attentive/folders/output.py).

`claim_file(path, option=..., overwrite=..., inputs=..., models=...)` runs before the command computes anything and
returns the file to write. A symbolic link is followed: the rule applies to the file it points to (through every
link), and that file is the one written, the link left as it is. Then:

- never, even with `overwrite`: a folder, a device, a FIFO, a socket or anything else that is not a regular file;
  an input file of the command (the same path, or the same file under another name); the input model's folder or
  any file inside it, except the command's own results there (`own`: evaluate's eval-*.json); any file inside
  another saved model's or exported model's folder (one whose config.json is attentive's), or inside a folder within
  one (a model's checkpoint/);
- the file's folder must exist: a missing one is an error, never created;
- an existing regular file is replaced only with `overwrite`.

Each refusal is one AttentiveError naming the option and the path, and saying what to do. The caller writes the
file atomically (attentive/util/atomic.py: a new file renamed over the old one, so that the old file is never
changed in place, not even under another name a hard link gives it); predict's --output, appended to a chunk at a
time, starts from an empty file made the same way. A file another process puts there between the claim and the
write is not seen.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import AttentiveError
from ..util.atomic import COMMITTED
from .output import read_config
from .reading import _kind

REPLACE = "give --overwrite to replace it, or name another file"


def claim_file(path: str | Path, *, option: str, overwrite: bool = False,
               inputs: Iterable[str | Path | None] = (), models: Iterable[str | Path | None] = (),
               own: Callable[[Path], bool] = lambda target: False, exists: str = REPLACE) -> Path:
    """The file to write for `option` (`--output`, `--html`, `--png`) given as `path`: its target, every link
    resolved, checked by the module's rule. `inputs`: files the command reads; `models`: the model folders it
    reads; `own(target)`: whether a file directly inside an input model's folder is one of the command's own
    results there; `exists`: what to do about an existing file without `overwrite`."""
    given = Path(path)
    where = f"{option} {given}"
    target = _resolved(given, where)
    if os.path.islink(given):
        where = f"{where} (a link to {target})"
    info = _stat(target, where)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise AttentiveError(f"{where} is a folder: name a file")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise AttentiveError(f"{where} is {_kind(info.st_mode)}, not a regular file: name a regular file")
    for source in inputs:
        if source is not None and _same_file(target, info, Path(source)):
            raise AttentiveError(f"{where} is the input file {source}: name another file")
    allowed = _check_input_models(target, where, models, own)
    for folder in target.parents:
        holds = _attentive_folder(folder) if folder != allowed else None
        if holds is not None:
            raise AttentiveError(f"{where} is inside {folder}, which holds {holds}: name a file outside that folder")
    shown = given.parent if not os.path.islink(given) else target.parent
    if not os.path.lexists(target.parent):
        raise AttentiveError(f"{where}: folder {shown} does not exist: create it first, or name a file in an "
                             "existing folder")
    if not target.parent.is_dir():
        raise AttentiveError(f"{where}: {shown} is not a folder: name a file in a folder")
    if info is not None and not overwrite:
        raise AttentiveError(f"{where} exists: {exists}")
    return target


def _resolved(given: Path, where: str) -> Path:
    """`given` made absolute with every symbolic link resolved (the last component need not exist)."""
    try:
        return given.resolve()
    except RuntimeError:  # Python's word for a link loop
        raise AttentiveError(f"{where}: a loop of symbolic links: name a file") from None
    except (OSError, ValueError) as exc:
        raise AttentiveError(f"{where}: not a usable file name ({getattr(exc, 'strerror', None) or exc})") from None


def _stat(target: Path, where: str) -> os.stat_result | None:
    """What `target` is (links followed), or None where nothing is there."""
    try:
        return os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AttentiveError(f"{where}: a loop of symbolic links: name a file") from None
        raise AttentiveError(f"{where}: cannot be checked ({exc.strerror or exc}): name another file") from None
    except ValueError as exc:  # a NUL character in the name
        raise AttentiveError(f"{where}: not a usable file name ({exc})") from None


def _same_file(target: Path, info: os.stat_result | None, source: Path) -> bool:
    """Whether `target` is the input `source`: the same path once resolved, or the same file (a hard link)."""
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        if target == source.resolve():
            return True
        if info is not None:
            other = os.stat(source)
            return (info.st_dev, info.st_ino) == (other.st_dev, other.st_ino)
    return False


def _check_input_models(target: Path, where: str, models: Iterable[str | Path | None],
                        own: Callable[[Path], bool]) -> Path | None:
    """Refuse `target` inside an input model's folder unless it is one of the command's own results directly in
    it; returns that folder when it is (the one model folder the file may be in)."""
    for model in models:
        if model is None:
            continue
        try:
            folder = Path(model).resolve()
        except (OSError, RuntimeError, ValueError):
            continue  # a model folder that cannot be resolved was not loaded either
        if target == folder or folder in target.parents:
            if target.parent == folder and own(target):
                return folder
            raise AttentiveError(f"{where} is inside the folder of the model it reads ({model}): name a file outside "
                                 "that folder")
    return None


def _attentive_folder(folder: Path) -> str | None:
    """What `folder` holds if it is an attentive model's folder (its config.json, or that of a write committed but
    not yet moved into place, is a JSON object with a recipe and labels): "a saved model" or "an exported model"."""
    for place in (folder, folder / COMMITTED):
        config = read_config(place)
        if config is not None and "recipe" in config and "labels" in config:
            return "an exported model" if isinstance(config.get("format"), str) else "a saved model"
    return None
