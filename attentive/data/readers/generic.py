"""A user's own labelled files: CSV or TSV with a header row, or JSON Lines (one object a line).

- CSV: RFC-4180 style (double-quoted fields may hold commas, quotes and newlines), read with the csv module.
- TSV: split on TAB only, no quoting (as in most TSV exports and the benchmark files; a leading `"` is just text).
- JSONL: one JSON object a line; blank lines are ignored.
The format comes from the extension (`.csv`, `.tsv`/`.tab`, `.jsonl`/`.ndjson`/`.json`, each optionally `.gz`) unless
given. Rows whose text is empty are skipped and counted (`Rows.dropped["empty text"]`); a missing column, a malformed
line or an empty label raises DataError naming the file and line.
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import Rows, check_file, iter_lines
from attentive.errors import DataError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


def detect_format(path: str | Path) -> str:
    """"csv", "tsv" or "jsonl" from the file extension (a trailing `.gz` is ignored)."""
    path = Path(path)
    suffix = Path(path.stem).suffix if path.suffix == ".gz" else path.suffix
    if suffix.lower() not in FORMATS:
        raise DataError(path, f"cannot tell the format from the extension {suffix or '(none)'!r}; "
                              "use .csv, .tsv or .jsonl or pass the format explicitly")
    return FORMATS[suffix.lower()]


def _check_header(path: Path, header: list[str], columns: list[str]) -> None:
    for column in columns:
        if column not in header:
            raise DataError(path, f"no column {column!r} in the header (found: {', '.join(header) or 'none'})", 1)


def _tsv_rows(path: Path, columns: list[str]) -> Iterator[tuple[int, Mapping]]:
    lines = iter_lines(path, skip_bom=True)
    _, header_line = next(lines, (1, ""))
    header = header_line.split("\t")
    _check_header(path, header, columns)
    for number, line in lines:
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataError(path, f"expected {len(header)} TAB-separated fields, found {len(fields)}", number)
        yield number, dict(zip(header, fields))


def _csv_rows(path: Path, columns: list[str]) -> Iterator[tuple[int, Mapping]]:
    reader = csv.reader(line + "\n" for _, line in iter_lines(path, skip_bom=True))
    try:
        header = next(reader, [])
        _check_header(path, header, columns)
        for fields in reader:
            if not fields:
                continue
            if len(fields) != len(header):
                raise DataError(path, f"expected {len(header)} comma-separated fields, found {len(fields)}", reader.line_num)
            yield reader.line_num, dict(zip(header, fields))
    except csv.Error as err:
        raise DataError(path, f"malformed CSV ({err})", reader.line_num) from None


def jsonl_rows(path: Path, columns: list[str] | None = None) -> Iterator[tuple[int, Mapping]]:
    """(line number, object) for each non-blank line of a JSONL file; a bad line is a DataError naming it."""
    for number, line in iter_lines(path, skip_bom=True):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(path, f"malformed JSON ({err.msg})", number) from None
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", number)
        yield number, row


def _value(path: Path, row: Mapping, column: str, number: int) -> str | None:
    if column not in row:
        raise DataError(path, f"no column {column!r} (found: {', '.join(map(str, row)) or 'none'})", number)
    value = row[column]
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    raise DataError(path, f"column {column!r} holds a {type(value).__name__}, expected a string", number)


def read_table(
    path: str | Path,
    format: str | None = None,
    text_column: str = "text",
    label_column: str | None = "label",
    aspect_column: str | None = None,
    pair_column: str | None = None,
) -> Rows:
    """Read one CSV / TSV / JSONL file into Examples (`label_column=None` for unlabelled text)."""
    path = check_file(path)
    format = (format or detect_format(path)).lower()
    rows = {"csv": _csv_rows, "tsv": _tsv_rows, "jsonl": jsonl_rows}.get(format)
    if rows is None:
        raise DataError(path, f"unknown format {format!r}; use csv, tsv or jsonl")
    columns = [c for c in (text_column, label_column, aspect_column, pair_column) if c]
    examples, dropped = [], Counter()
    for number, row in rows(path, columns):
        text = (_value(path, row, text_column, number) or "").strip()
        if not text:
            dropped["empty text"] += 1
            continue
        label = None
        if label_column:
            label = (_value(path, row, label_column, number) or "").strip()
            if not label:
                raise DataError(path, f"empty label in column {label_column!r}", number)
        aspect = _value(path, row, aspect_column, number) if aspect_column else None
        pair = _value(path, row, pair_column, number) if pair_column else None
        examples.append(Example(text=text, label=label, aspect=aspect, text_pair=pair))
    return Rows(examples, dropped)
