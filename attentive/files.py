"""Reading the user's files, with nothing but the standard library: that a path names a readable file, and its lines
as bytes, gunzipped when the name ends in `.gz`; every failure a DataError naming the file (and the line reached).
The readers (attentive/data/readers) decode the lines; `predict --input` (attentive/cli_input.py) does it line by
line, so that one bad line does not stop the others.
"""
from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from .errors import DataError


def check_file(path: str | Path) -> Path:
    """Return `path` as a Path, or raise DataError("file not found" / "is a directory")."""
    path = Path(path)
    if path.is_dir():
        raise DataError(path, "is a directory, not a file")
    if not path.is_file():
        raise DataError(path, "file not found")
    return path


def iter_raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, the line's bytes with its end) from a file, gunzipped if it ends in `.gz`; a file
    that cannot be read, or gzip data that is corrupt or cut short, is a DataError naming the line it reached."""
    path = check_file(path)
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                yield number, raw
    except gzip.BadGzipFile as err:  # no gzip header at all, or a failed CRC / length check
        raise DataError(path, f"{'corrupt gzip data' if number else 'not a gzip file'} ({err})", number + 1) from None
    except EOFError:
        raise DataError(path, "truncated gzip data (the file ends inside the compressed stream)", number + 1) from None
    except zlib.error as err:
        raise DataError(path, f"corrupt gzip data ({err})", number + 1) from None
    except OSError as err:
        raise DataError(path, f"cannot read the file ({err.strerror or err})", number + 1 if number else None) from None
