"""Reading the files of a model folder (saved or exported) as a hostile folder cannot abuse: each must be a regular
file (a device such as /dev/zero, a FIFO or a directory is refused), a symbolic link only where it stays inside the
folder, and config.json and tokenizer.json are refused when larger than their caps before a byte is read. A file
without a cap (the weights, the ONNX graph) is read to the size the file has when opened, never further, so that no
read is endless. JSON is parsed strictly: no NaN or Infinity, no nesting deeper than a config needs.

Every failure is an AttentiveError naming the file. Standard library and `tokenizers` only (the torch-free runtime
reads exported folders with it).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TypeVar

from tokenizers import Tokenizer

from ..errors import AttentiveError
from ..util.atomic import COMMITTED, finish_interrupted_write

MiB = 2**20
CONFIG_CAP = 16 * MiB  # config.json: a recipe, the labels and a few sizes (100,000 labels take about 2 MiB)
TOKENIZER_CAP = 256 * MiB  # tokenizer.json: a word-level vocabulary of several million words
JSON_DEPTH = 32  # a config.json nests 4 deep (recipe > train > regulariser > weight)
READ_ATTEMPTS = 5
Read = TypeVar("Read")


def read_consistently(folder: Path, names: Sequence[str], read: Callable[[], Read]) -> Read:
    """`read()` of a folder whose files `names` are written as one set (io_utils.atomic_write_files). A write cut
    off after its commit point is finished first; if another process replaces the files while they are read
    (whether the read then fails or not), they are read again, so what is read always belongs together."""
    for _ in range(READ_ATTEMPTS):
        if folder.is_dir() and os.access(folder, os.W_OK):
            with contextlib.suppress(OSError):  # what could not be moved is read (and reported) as it is
                finish_interrupted_write(folder)
        before = _identities(folder, names)
        try:
            loaded = read()
        except AttentiveError:
            if _identities(folder, names) == before:
                raise  # the folder is damaged, not being replaced
            continue
        if _identities(folder, names) == before:
            return loaded
    raise AttentiveError(f"{folder}: the model kept changing while it was read (is another command writing to it?)")


def _identities(folder: Path, names: Sequence[str]) -> list[tuple[int, int, int] | None]:
    """What changes when a writer replaces the files: each one's inode, size and time, and the committed write
    (`.written`) that is moved into place file by file."""
    identities = []
    for name in (*names, COMMITTED):
        try:
            info = os.lstat(folder / name)
            identities.append((info.st_ino, info.st_size, info.st_mtime_ns))
        except OSError:
            identities.append(None)
    return identities


@contextmanager
def open_in_folder(folder: Path, name: str, cap: int | None = None,
                   holder: str = "the model folder") -> Iterator[tuple[BinaryIO, int]]:
    """The file `folder/name` opened for reading, and its size: a regular file inside `folder` (`holder` in
    messages), or a symbolic link that resolves to one inside it, of at most `cap` bytes if given. Opened without
    blocking (a FIFO would wait for a writer) and checked with fstat on the open file, so what is checked is what
    is read."""
    path = folder / name
    if not os.path.lexists(path):
        raise AttentiveError(f"{path}: missing")
    target = os.path.realpath(path)
    inside = os.path.realpath(folder)
    if os.path.islink(path) and not target.startswith(inside.rstrip(os.sep) + os.sep):
        raise AttentiveError(f"{path}: a link to {target}, outside {holder} (copy the file in instead)")
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise AttentiveError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise AttentiveError(f"{path}: not a regular file ({_kind(info.st_mode)})")
        if cap is not None and info.st_size > cap:
            raise AttentiveError(f"{path}: {info.st_size:,} bytes, more than the {cap:,} a {name} may hold")
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, info.st_size


def read_in_folder(folder: Path, name: str, cap: int | None = None) -> bytes:
    """The bytes of `folder/name` (see `open_in_folder`); with `cap`, a file larger than `cap` bytes is refused
    before it is read (and one that grows past it while being read, when the cap is reached)."""
    with open_in_folder(folder, name, cap) as (handle, size):
        limit = size if cap is None else cap
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise AttentiveError(f"{folder / name}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise AttentiveError(f"{folder / name}: grew past {limit:,} bytes while it was read")
    return data


def read_json_in_folder(folder: Path, name: str, cap: int = CONFIG_CAP) -> dict:
    """A JSON object from `folder/name`, read with `read_in_folder` and parsed with `parse_json_object`."""
    return parse_json_object(read_in_folder(folder, name, cap), folder / name)


def parse_json_object(data: bytes, path: Path) -> dict:
    """A JSON object from UTF-8 bytes: invalid JSON, NaN or Infinity, nesting deeper than JSON_DEPTH, or anything
    but an object is an AttentiveError naming `path` (and the line, for invalid JSON)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AttentiveError(f"{path}: not UTF-8 text") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise AttentiveError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise AttentiveError(f"{path}: JSON nested deeper than {JSON_DEPTH} levels") from None
    except ValueError as exc:  # NaN or Infinity (see _refuse_constant), an integer of over 4,300 digits
        raise AttentiveError(f"{path}: invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise AttentiveError(f"{path}: expected a JSON object, not {type(value).__name__}")
    if _depth(value) > JSON_DEPTH:
        raise AttentiveError(f"{path}: JSON nested deeper than {JSON_DEPTH} levels")
    return value


def parse_tokenizer(data: bytes, path: Path) -> Tokenizer:
    """The tokenizer saved as `data` (tokenizer.json's bytes, read with `read_in_folder(..., TOKENIZER_CAP)`)."""
    try:
        return Tokenizer.from_str(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise AttentiveError(f"{path}: not UTF-8 text") from None
    except Exception as exc:  # tokenizers raises a bare Exception for a damaged file
        raise AttentiveError(f"{path}: unreadable tokenizer ({last_line(exc)})") from None


def last_line(exc: BaseException) -> str:
    """The last line of an exception's message (libraries' messages can span many), or its type's name."""
    lines = str(exc).strip().splitlines()
    return lines[-1].strip() if lines else type(exc).__name__


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _depth(value) -> int:
    """How deep lists and objects nest in `value` (1 for a flat object), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        deepest = max(deepest, depth)
        if depth <= JSON_DEPTH:
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a file"
