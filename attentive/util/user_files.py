"""Reading the user's files, with nothing but the standard library: that a path names a readable file, and its lines
as bytes, gunzipped when the name ends in `.gz`; every failure a DataError naming the file (and the line reached).
The readers (attentive/data/readers) decode the lines; `predict --input` (attentive/scoring/input_lines.py) does it
line by line, so that one bad line does not stop the others, and reads each line only up to a size
(`iter_bounded_lines`), from a file, a named pipe or /dev/stdin. `cut_to_lines` cuts a JSONL file back to its whole
lines (`predict --resume`).
"""
from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import DataError


def check_file(path: str | Path, streams: bool = False) -> Path:
    """Return `path` as a Path, or raise DataError ("file not found" / "is a directory" / "is a pipe or a device").
    With `streams`, for a reader that reads the file once from start to end, a named pipe (FIFO) or a character
    device (/dev/stdin) is accepted too."""
    path = Path(path)
    if path.is_dir():
        raise DataError(path, "is a directory, not a file")
    if path.is_file() or (streams and (path.is_fifo() or path.is_char_device())):
        return path
    if path.exists():
        raise DataError(path, "is a pipe, a socket or a device: give a regular file" if not streams else
                        "is a socket or a block device: give a file, a named pipe or /dev/stdin")
    raise DataError(path, "file not found")


def iter_raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, the line's bytes with its end) from a file, gunzipped if it ends in `.gz`; a file
    that cannot be read, or gzip data that is corrupt or cut short, is a DataError naming the line it reached."""
    yield from _numbered(check_file(path), iter)


def iter_bounded_lines(path: str | Path, max_line: int) -> Iterator[tuple[int, bytes | None]]:
    """As `iter_raw_lines`, for a reader that reads the file once (a pipe or a device is accepted too), each line read
    only up to `max_line` bytes: a longer line (its end not counted) is yielded as None, and the rest of it is
    skipped a chunk at a time, never held in memory (an endless line, /dev/zero, cannot fill the memory)."""
    yield from _numbered(check_file(path, streams=True), lambda handle: _bounded_lines(handle, max_line))


SKIP_CHUNK = 1 << 20  # bytes read at a time while skipping the rest of a line over the limit


def _bounded_lines(handle: BinaryIO, max_line: int) -> Iterator[bytes | None]:
    """The lines of `handle`, None for each over `max_line` bytes: yielded as soon as the line is known to be too long
    (a reader that stops there reads no further), the rest of it skipped only when the next line is asked for."""
    while raw := handle.readline(max_line + 1):
        if len(raw) <= max_line or raw.endswith(b"\n"):
            yield raw
            continue
        yield None
        while raw and not raw.endswith(b"\n"):
            raw = handle.readline(SKIP_CHUNK)


def _numbered(path: Path, lines_of: Callable[[BinaryIO], Iterator]) -> Iterator[tuple[int, object]]:
    """(line number, line) for the lines `lines_of` reads from the file opened in binary (gunzipped if it ends in
    `.gz`); every failure while reading it is a DataError naming the line reached."""
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(lines_of(handle), start=1):
                yield number, raw
    except gzip.BadGzipFile as err:  # no gzip header at all, or a failed CRC / length check
        raise DataError(path, f"{'corrupt gzip data' if number else 'not a gzip file'} ({err})", number + 1) from None
    except EOFError:
        raise DataError(path, "truncated gzip data (the file ends inside the compressed stream)", number + 1) from None
    except zlib.error as err:
        raise DataError(path, f"corrupt gzip data ({err})", number + 1) from None
    except OSError as err:
        raise DataError(path, f"cannot read the file ({err.strerror or err})", number + 1 if number else None) from None


def cut_to_lines(path: str | Path, most: int) -> tuple[int, int]:
    """Cut the file at `path` (a JSONL output; none is no line) back to its first `most` lines, or to its last whole
    line where it holds fewer (a line torn by a kill is cut off): the lines kept, and the bytes cut off."""
    path = Path(path)
    if not path.exists():
        return 0, 0
    lines, size, end = 0, 0, 0  # end: the byte after the last line kept
    with open(path, "rb") as handle:
        while lines < most and (block := handle.read(1 << 20)):
            if lines + (count := block.count(b"\n")) <= most:
                lines, end = lines + count, (size + block.rfind(b"\n") + 1 if count else end)
            else:
                at = 0
                for _ in range(most - lines):
                    at = block.index(b"\n", at) + 1
                lines, end = most, size + at
            size += len(block)
    cut = path.stat().st_size - end
    if cut:
        os.truncate(path, end)
    return lines, cut
