"""A user's own labelled files: CSV or TSV with a header row, or JSON Lines (one object a line).

- CSV: RFC-4180 style (double-quoted fields may hold commas, quotes and line breaks), read with the csv module.
  A row that spans several lines (a quoted field with line breaks, e.g. a multi-line review) is kept exactly and
  counted in `Rows.multiline`; correctly quoted, it is accepted whatever its lines look like. Broken quoting (what
  `csv.reader(strict=True)` rejects, e.g. `"a" b`) is tolerated as the csv module reads it, unless it makes a row
  swallow lines that look like rows of their own, or a quote is never closed: then DataError at the line where the
  row (or the unclosed quote) starts, instead of rows merged silently. A field may hold up to `FIELD_LIMIT`
  characters (the csv module's own limit, 131,072, is raised to it).
- TSV: split on TAB only, no quoting (as in most TSV exports and the benchmark files; a leading `"` is just text).
- JSONL: one JSON object a line; blank lines are ignored. Numbers and booleans are read as their `str()`; NaN and
  Infinity (which Python's json reads, though JSON has neither) are a DataError, as is a string that is not valid
  Unicode (a lone surrogate, `\\ud800` escaped: no tokenizer or UTF-8 file takes it).
The format comes from the extension (`.csv`, `.tsv`/`.tab`, `.jsonl`/`.ndjson`/`.json`, each optionally `.gz`) unless
given. Text and label are `.strip()`ped. Rows whose text is empty are skipped and counted (`Rows.dropped["empty
text"]`); blank lines are ignored; a missing column, a malformed line, an empty or null label, a carriage return in an
unquoted CSV field, or two labels that are the same number written two ways (`1` and `1.0`) raise DataError naming the
file and line. One column named for two roles (text and label both `label`) is a DataError before anything is read;
so is a header that names a column twice, and a JSONL line that gives a key twice is one at its line
(attentive/data/names.py).
Multi-label rows: a JSONL label that is a list, or any label field cut by `label_separator`, is a label set
(attentive/data/label_sets.py). Without a separator a file is single-label or multi-label throughout: a list among
single labels (or a single label among lists) is a DataError naming its line and the first label's.
"""
from __future__ import annotations

import csv
import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

from attentive.data.checks import check_label_numbers
from attentive.data.example import Example
from attentive.data.label_sets import label_set
from attentive.data.names import RepeatedKey, check_names, loads_keys_once
from attentive.data.readers._common import Rows, check_file, iter_lines
from attentive.errors import DataError
from attentive.util.checks import unicode_problem

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}
FIX_QUOTE = 'close or escape the quote ("" inside a quoted field)'
FIELD_LIMIT = 100 * 2**20  # characters in one CSV field: long texts read, a runaway quote still stops somewhere
csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))


def detect_format(path: str | Path) -> str:
    """"csv", "tsv" or "jsonl" from the file extension (a trailing `.gz` is ignored)."""
    path = Path(path)
    suffix = Path(path.stem).suffix if path.suffix == ".gz" else path.suffix
    if suffix.lower() not in FORMATS:
        raise DataError(path, f"cannot tell the format from the extension {suffix or '(none)'!r}: name the file "
                              ".csv, .tsv or .jsonl (optionally .gz)")
    return FORMATS[suffix.lower()]


def _listing(names) -> str:
    """Column names for a one-line message (quoted, so a line break in a name shows as \\n)."""
    return ", ".join(map(repr, names)) or "none"


def spelt_alike(column: str, found) -> str:
    """"; 'X' is spelt like it" for a found column X spelt as `column` but for case or surrounding spaces, else ""."""
    alike = [name for name in found if isinstance(name, str) and name.strip().lower() == column.strip().lower()]
    return f"; {alike[0]!r} is spelt like it" if alike else ""


def naming_hint(role: str, column: str, found) -> str:
    """How to name the column of `role` (text, label, ...) the file lacks: the option and keyword that do it, and
    a found column spelt like it (`spelt_alike`)."""
    return f": name your {role} column with --{role}-column ({role}_column= in Python){spelt_alike(column, found)}"


def _check_header(path: Path, header: list[str], roles: dict[str, str]) -> None:
    """DataError at line 1 where the header names a column twice, or lacks the column of one of `roles` (role ->
    column name)."""
    check_names(path, header)
    for role, column in roles.items():
        if column not in header:
            raise DataError(path, f"no column {column!r} in the header (found: {_listing(header)})"
                                  f"{naming_hint(role, column, header)}", 1)


def _tsv_rows(path: Path, columns: dict[str, str]) -> Iterator[tuple[int, Mapping, int]]:
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
        yield number, dict(zip(header, fields)), 1


def _csv_records(path: Path) -> Iterator[tuple[int, list[str], list[str]]]:
    """(start line, fields, its physical lines) for each CSV record, the header included.

    The csv module gets the lines with their line ends, so line breaks inside quoted fields are kept exactly. A quote
    still open at the end of the file is a DataError at the line where that quote opened.
    """
    lines: list[str] = []
    exhausted = []

    def feed() -> Iterator[str]:
        for _, line in iter_lines(path, skip_bom=True, keep_ends=True):
            lines.append(line)
            yield line
        exhausted.append(True)

    reader, start = csv.reader(feed()), 1
    while True:
        try:
            fields = next(reader, None)
        except csv.Error as err:
            raise _csv_error(path, err, start, reader.line_num) from None
        if fields is None:
            return
        if exhausted:  # the csv module hit the end of the file inside a quoted field and returned the rest
            opened = reader.line_num - fields[-1].count("\n") + lines[-1].endswith("\n")
            raise DataError(path, "a double quote opens a field here and is never closed: it runs to the end of "
                                  f"the file (line {reader.line_num}); {FIX_QUOTE}", opened)
        record, lines[:] = lines[:], []
        yield start, fields, record
        start = reader.line_num + 1


def _csv_error(path: Path, err: csv.Error, start: int, end: int) -> DataError:
    """The csv module's complaint about the row spanning lines `start`..`end`, as a DataError."""
    if "new-line character seen in unquoted field" in str(err):
        return DataError(path, "a carriage return (\\r) inside an unquoted field; quote the field", end)
    reach = f" (the row starting here reaches line {end}: is a double quote left open?)"
    if "field larger than field limit" in str(err):
        return DataError(path, f"a field longer than {FIELD_LIMIT:,} characters" + reach * (end > start), start)
    return DataError(path, f"malformed CSV: {err}" + reach * (end > start), start)


def _strict(lines: list[str]) -> list[list[str]] | None:
    """The records in `lines` as a strict RFC-4180 parser reads them, or None where their quoting is broken."""
    try:
        return list(csv.reader(lines, strict=True))
    except csv.Error:
        return None


def _check_quoting(path: Path, start: int, record: list[str], width: int) -> None:
    """DataError when a multi-line record has broken quoting and swallowed lines that look like rows of their own."""
    if _strict(record) is not None:
        return  # correctly quoted: line breaks inside quotes are legitimate, whatever the lines look like
    swallowed = len(record) - 1  # a line "looks like a row" when, on its own, it is one well-formed row of `width`
    rowlike = sum([len(fields) for fields in _strict([line]) or []] == [width] for line in record[1:])
    if rowlike:
        what = ("a line that looks like a row of its own" if swallowed == 1 else
                f"{swallowed} lines that look like rows of their own" if rowlike == swallowed else
                f"{swallowed} lines, {rowlike} of them looking like rows of their own")
        raise DataError(path, f"a double quote opens a field here that runs to line {start + swallowed}, "
                              f"swallowing {what}; {FIX_QUOTE}", start)


def _csv_rows(path: Path, columns: dict[str, str]) -> Iterator[tuple[int, Mapping, int]]:
    records = _csv_records(path)
    _, header, _ = next(records, (1, [], []))
    _check_header(path, header, columns)
    for start, fields, record in records:
        if not fields or (len(fields) == 1 < len(header) and not fields[0].strip()):
            continue  # a blank line
        if len(record) > 1:
            _check_quoting(path, start, record, len(header))
        if len(fields) != len(header):
            raise DataError(path, f"expected {len(header)} comma-separated fields, found {len(fields)}", start)
        yield start, dict(zip(header, fields)), len(record)


def jsonl_rows(path: Path, columns: dict[str, str] | None = None) -> Iterator[tuple[int, Mapping, int]]:
    """(line number, object, 1) for each non-blank line of a JSONL file; a bad line (one giving a key twice too) is a
    DataError naming it."""
    for number, line in iter_lines(path, skip_bom=True):
        if not line.strip():
            continue
        try:
            row = loads_keys_once(line)
        except RepeatedKey as err:
            raise DataError(path, str(err), number) from None
        except ValueError as err:  # JSONDecodeError, or an integer too long to convert
            raise DataError(path, f"malformed JSON ({getattr(err, 'msg', err)})", number) from None
        except RecursionError:
            raise DataError(path, "malformed JSON (nested too deeply)", number) from None
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", number)
        yield number, row, 1


def _value(path: Path, row: Mapping, column: str, number: int, role: str) -> str | None:
    if column not in row:
        raise DataError(path, f"no column {column!r} (found: {_listing(row)}){naming_hint(role, column, row)}",
                        number)
    value = row[column]
    if isinstance(value, str) and (problem := unicode_problem(value)) is not None:  # a JSON \ud800 escape
        raise DataError(path, f"column {column!r} is {problem}", number)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(path, f"column {column!r} holds {json.dumps(value)}, which is not a value (JSON has no NaN "
                              "or Infinity)", number)
    if isinstance(value, (int, float, bool)):
        return str(value)
    raise DataError(path, f"column {column!r} holds a {type(value).__name__}, expected a string", number)


def _check_distinct_columns(path: Path, roles: dict[str, str | None]) -> None:
    """DataError when one column is named for two roles: a label read from the text column would be learnt from the
    text itself (dev accuracy 1.0, and a useless model)."""
    seen: dict[str, str] = {}
    for role, column in roles.items():
        if column and seen.setdefault(column, role) != role:
            raise DataError(path, f"the {seen[column]} column and the {role} column are both {column!r}: name a "
                                  "different column for each")


def read_table(
    path: str | Path,
    format: str | None = None,
    text_column: str = "text",
    label_column: str | None = "label",
    aspect_column: str | None = None,
    pair_column: str | None = None,
    label_separator: str | None = None,
    id_column: str | None = None,
    unlabelled_rows: list | None = None,
) -> Rows:
    """Read one CSV / TSV / JSONL file into Examples (`label_column=None` for unlabelled text). With
    `label_separator`, every label field is a set of labels cut at it (multi-label); a JSONL list always is.
    A row with a text and an empty label is an error naming its line, unless `unlabelled_rows` is a list: then
    its text goes there instead (a partly labelled file whose other rows are the unlabelled texts of
    `train --few-labels`).
    Each Example keeps the line its row starts on (`line`) and its id (`id`): the value of `id_column`, which every
    row must have, or without one, of a column named `id` where a row has one (a text, a number or a boolean)."""
    path = check_file(path)
    _check_distinct_columns(path, {"text": text_column, "label": label_column, "aspect": aspect_column,
                                   "pair": pair_column, "id": id_column})
    format = (format or detect_format(path)).lower()
    rows = {"csv": _csv_rows, "tsv": _tsv_rows, "jsonl": jsonl_rows}.get(format)
    if rows is None:
        raise DataError(path, f"unknown format {format!r}; use csv, tsv or jsonl")
    columns = {role: column for role, column in (("text", text_column), ("label", label_column),
                                                 ("aspect", aspect_column), ("pair", pair_column),
                                                 ("id", id_column)) if column}
    result, first_line, first_kind = Rows([], Counter()), {}, None  # first_kind: (line, a list?) of the first label
    for number, row, span in rows(path, columns):
        result.multiline += span > 1
        text = (_value(path, row, text_column, number, "text") or "").strip()
        if not text:
            result.dropped["empty text"] += 1
            result.dropped_lines.setdefault("empty text", []).append(number)
            continue
        label, labels = None, None
        if label_column and not label_separator:
            first_kind = _same_kind(path, label_column, first_kind, number, isinstance(row.get(label_column), list))
        if label_column and isinstance(row.get(label_column), list) or label_column and label_separator:
            raw = row[label_column] if isinstance(row.get(label_column), list) else \
                _value(path, row, label_column, number, "label")
            labels = label_set(path, raw, label_column, number, label_separator)
            for name in labels:
                first_line.setdefault(name, number)
        elif label_column:
            written = _value(path, row, label_column, number, "label") or ""
            label = written.strip()
            if label != written:
                result.respaced[written] += 1
            if not label and unlabelled_rows is not None:
                unlabelled_rows.append(text)
                continue
            if not label:
                raise DataError(path, f"empty label in column {label_column!r}: label the row, or leave it out "
                                      "(`train --few-labels` learns from the rows without a label)", number)
            first_line.setdefault(label, number)
        aspect = _value(path, row, aspect_column, number, "aspect") if aspect_column else None
        pair = _value(path, row, pair_column, number, "pair") if pair_column else None
        result.examples.append(Example(text=text, label=label, aspect=aspect, text_pair=pair, labels=labels,
                                       line=number, id=_row_id(path, row, id_column, columns, number)))
    check_label_numbers(path, first_line)
    return result


def _row_id(path: Path, row: Mapping, id_column: str | None, columns: dict[str, str], number: int) -> str | None:
    """Row `number`'s id: its `id_column` value (a DataError where missing, as any named column's), or without one
    its `id` field where it has one that is a text, a number or a boolean and no other role reads it; else None."""
    if id_column:
        return _value(path, row, id_column, number, "id")
    if "id" in columns.values() or not isinstance(row.get("id"), (str, int, float)):
        return None
    try:
        return _value(path, row, "id", number, "id")
    except DataError:  # NaN, or a string that is not valid Unicode: an optional id is left out, not refused
        return None


def _same_kind(path: Path, column: str, first: tuple[int, bool] | None, number: int,
               is_list: bool) -> tuple[int, bool]:
    """(line, whether its label is a list) of the file's first label; DataError where row `number`'s label is the
    other kind: a list (a label set) among single labels, or the reverse, would turn the file multi-label silently."""
    if first is None:
        return number, is_list
    if first[1] != is_list:
        what = {True: "a list of labels", False: "a single label"}
        raise DataError(path, f"column {column!r} holds {what[is_list]} here but {what[first[1]]} on line {first[0]}: "
                              "a file is single-label or multi-label; write every label as a list, or give "
                              "--label-separator to read every label as a set (a single one as a set of one)", number)
    return first
