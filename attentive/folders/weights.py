"""model.safetensors, read without trusting it. The format is small and standard: 8 bytes (little-endian) giving the
length of a JSON header, the header (each tensor's dtype, shape and [begin, end) byte offsets into the data that
follows, and an optional "__metadata__" object), then the data. Everything the header claims is checked against the
file's real size before a byte of tensor data is allocated: the header's length, each tensor's dtype, that its
offsets hold exactly dtype x shape bytes, that the tensors tile the data to the end of the file, and that the file
really stores those bytes (a sparse file, as `truncate -s` makes, would otherwise turn a few stored bytes into
gigabytes of zeros in memory). The tensors are then read one by one from the open file and checked to be finite.
"""
from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import torch

from ..errors import AttentiveError
from .config import shown
from .reading import MiB, parse_json_object

HEADER_CAP = 100 * MiB  # safetensors' own limit
HOLE_ALLOWANCE = 64 * MiB  # sparse regions tolerated (a file system may store long runs of zeros as holes)
DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
          "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
          "BOOL": torch.bool}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}


@dataclass(frozen=True)
class TensorEntry:
    """One tensor as the header describes it; `begin`/`end` are byte offsets into the data after the header."""

    name: str
    dtype: str  # safetensors' name for it: F32, I64, ...
    shape: tuple[int, ...]
    begin: int
    end: int


class WeightsFile:
    """An open model.safetensors whose header has been read and checked (see the module's docstring): `entries`
    describe its tensors; `tensors()` reads them; `metadata` is the header's "__metadata__" (names to strings)."""

    def __init__(self, handle: BinaryIO, size: int, path: Path):
        self.fd, self.size, self.path = handle.fileno(), size, path  # read with pread: no file position to share
        self.digest = hashlib.sha256()
        self._check_stored()
        self.metadata: dict = {}
        self.data_start, self.entries = self._read_header()

    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: entry.shape for name, entry in self.entries.items()}

    def dtypes(self) -> dict[str, str]:
        return {name: entry.dtype for name, entry in self.entries.items()}

    def tensors(self) -> dict[str, torch.Tensor]:
        """Every tensor, read in file order; one holding NaN or an infinity is an error naming it. `digest` then
        holds the SHA-256 of the whole file."""
        tensors = {}
        for entry in sorted(self.entries.values(), key=lambda e: e.begin):
            data = bytearray(entry.end - entry.begin)
            if _read_into(self.fd, data, self.data_start + entry.begin) != len(data):
                raise AttentiveError(f"{self.path}: ends inside tensor {entry.name} (was it changed while read?)")
            self.digest.update(data)
            dtype = DTYPES[entry.dtype]
            tensor = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            tensor = tensor.reshape(entry.shape)
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
                raise AttentiveError(f"{self.path}: tensor {entry.name} holds NaN or infinite values")
            tensors[entry.name] = tensor
        if os.pread(self.fd, 1, self.size):
            raise AttentiveError(f"{self.path}: grew while it was read (is a training writing to it?)")
        return tensors

    def _read_header(self) -> tuple[int, dict[str, TensorEntry]]:
        prefix = os.pread(self.fd, 8, 0)
        if len(prefix) < 8:
            raise AttentiveError(f"{self.path}: {len(prefix)} bytes, too short for a safetensors file")
        length = int.from_bytes(prefix, "little")
        if length > min(HEADER_CAP, self.size - 8):
            raise AttentiveError(f"{self.path}: the header claims {length:,} bytes, but the file holds "
                                 f"{self.size - 8:,} after its first 8 (not a safetensors file, or cut short)")
        raw = bytearray(length)
        _read_into(self.fd, raw, 8)
        self.digest.update(prefix + raw)
        header = parse_json_object(bytes(raw), self.path)
        metadata = header.pop("__metadata__", {})
        if not isinstance(metadata, dict):
            raise AttentiveError(f"{self.path}: the header's __metadata__ must be an object")
        self.metadata = metadata
        entries = {name: self._entry(name, info) for name, info in header.items()}
        self._check_tiling(entries, self.size - 8 - length)
        return 8 + length, entries

    def _entry(self, name: str, info) -> TensorEntry:
        where = f"{self.path}: tensor {name}"
        if not isinstance(info, dict) or info.get("dtype") not in DTYPES:
            raise AttentiveError(f"{where}: the header gives no dtype safetensors knows ({shown(info)})")
        shape, offsets = info.get("shape"), info.get("data_offsets")
        if not (isinstance(shape, list) and all(_is_count(n) for n in shape)):
            raise AttentiveError(f"{where}: its shape must be a list of sizes, not {shown(shape)}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_count(n) for n in offsets)
                and offsets[0] <= offsets[1]):
            raise AttentiveError(f"{where}: its data_offsets must be [begin, end], not {shown(offsets)}")
        needed = math.prod(shape) * DTYPES[info["dtype"]].itemsize
        if offsets[1] - offsets[0] != needed:
            raise AttentiveError(f"{where}: {info['dtype']} {tuple(shape)} takes {needed:,} bytes, but its offsets "
                                 f"give {offsets[1] - offsets[0]:,}")
        return TensorEntry(name, info["dtype"], tuple(shape), offsets[0], offsets[1])

    def _check_tiling(self, entries: dict[str, TensorEntry], data_size: int) -> None:
        """The tensors lie one after the other from the start of the data to the end of the file, as safetensors
        writes them: no tensor past the end, no overlap, no gap."""
        reached = 0
        for entry in sorted(entries.values(), key=lambda e: (e.begin, e.end)):
            if entry.end > data_size:
                raise AttentiveError(f"{self.path}: tensor {entry.name} ends at byte {entry.end:,} of the data, but "
                                     f"the file holds {data_size:,} (cut short?)")
            if entry.begin != reached:
                raise AttentiveError(f"{self.path}: tensor {entry.name} starts at byte {entry.begin:,} of the data, "
                                     f"where {reached:,} was expected (tensors overlap or leave a gap)")
            reached = entry.end
        if reached != data_size:
            raise AttentiveError(f"{self.path}: {data_size - reached:,} bytes after the last tensor")

    def _check_stored(self) -> None:
        """The file's holes (regions a sparse file never stored) add up to at most HOLE_ALLOWANCE or half the file."""
        holes = _hole_bytes(self.fd, self.size)
        if holes > max(HOLE_ALLOWANCE, self.size // 2):
            raise AttentiveError(f"{self.path}: a sparse file ({holes:,} of its {self.size:,} bytes were never "
                                 "written): its tensors are not stored in it")


def _hole_bytes(fd: int, size: int) -> int:
    """How many of the first `size` bytes of the open file are holes (0 where the system cannot tell)."""
    if not hasattr(os, "SEEK_HOLE"):
        return 0
    holes, offset = 0, 0
    try:
        while offset < size:
            hole = os.lseek(fd, offset, os.SEEK_HOLE)
            if hole >= size:
                break
            try:
                offset = os.lseek(fd, hole, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after the hole
                offset = size
            holes += min(offset, size) - hole
    except OSError:  # a file system without SEEK_HOLE
        return 0
    return holes


def _read_into(fd: int, buffer: bytearray, offset: int) -> int:
    """Fill `buffer` from the open file at `offset` (pread: no file position involved); how many bytes it got."""
    view, done = memoryview(buffer), 0
    while done < len(buffer):
        if hasattr(os, "preadv"):
            got = os.preadv(fd, [view[done:]], offset + done)
        else:
            chunk = os.pread(fd, len(buffer) - done, offset + done)
            view[done:done + len(chunk)], got = chunk, len(chunk)
        if not got:
            break
        done += got
    return done


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
