"""`predict --input` of every format `train` reads: a CSV or TSV file (its text in the model's text column,
attentive/data/reading.py, unless `--text-column` names another) comes back in its own format, its header and every
field of every row as they were, in order, with the answer's columns added after them (`answer_columns`: the label,
its probability, the top words, and the aspect for aspect models), a byte order mark kept where the input had one and
CRLF line ends where it used them; a plain text file (`.txt`: one text a line) comes back as JSON lines,
{"text": ..., "prediction": {...}}; anything else is read as JSONL (attentive/scoring/input_lines.py). The rows are
`Record`s whose `answer_line` is their row (`TableRecord.table.row`), so that the streaming, the batches, `--jobs` and
`--output` of JSONL serve them unchanged."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..answer.inputs import text_problem
from ..errors import AttentiveError
from .input_lines import BadLine, Record

TABLE_DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
TEXT_SUFFIXES = {".txt", ".text"}


def input_format(path: str | Path) -> str:
    """"csv", "tsv", "text" or "jsonl" (anything else: a .jsonl file, a pipe, /dev/stdin) from the file's name, a
    trailing .gz ignored."""
    path = Path(path)
    suffix = (Path(path.stem).suffix if path.suffix == ".gz" else path.suffix).lower()
    if suffix in TABLE_DELIMITERS:
        return "tsv" if TABLE_DELIMITERS[suffix] == "\t" else "csv"
    return "text" if suffix in TEXT_SUFFIXES else "jsonl"


def answer_columns(key: str, aspects: bool, labels: tuple[str, ...] = ()) -> list[str]:
    """The columns a table's answer adds, named after the answer's key (--answer-key, "prediction"): the label, its
    probability, the top words, the aspect (aspect models), and with `labels` each label's probability."""
    return [key, f"{key}_probability", f"{key}_top_words", *([f"{key}_aspect"] if aspects else []),
            *(f"{key}_p_{label}" for label in labels)]


@dataclass
class Table:
    """How a table file was written, to write its rows back alike with the answer's columns added."""

    delimiter: str
    header: list[str]
    added: list[str]
    bom: bool
    crlf: bool
    labels: tuple[str, ...] = ()  # the labels whose probabilities get a column each (predict --probabilities)

    def header_line(self) -> str:
        return ("\ufeff" if self.bom else "") + self._line(self.header + self.added)

    def row(self, fields: list[str], prediction) -> str:
        answer = prediction.as_dict()
        label = "|".join(answer["labels"]) if answer.get("labels") is not None else (answer.get("label") or "")
        probability = max(answer["probabilities"].values()) if answer["probabilities"] else ""
        words = " ".join(word for word, _ in answer.get("top_words", []))
        values = [label, f"{probability:.6g}" if probability != "" else "", words]
        if len(self.added) - len(self.labels) > 3:
            values.append(answer.get("aspect") or "")
        values += [f"{answer['probabilities'].get(name, 0.0):.6g}" for name in self.labels]
        if self.delimiter == "\t":  # TSV has no quoting: an answer's own tab or line break becomes a space
            values = [" ".join(value.split()) for value in values]
        return self._line(fields + values)

    def _line(self, fields: list[str]) -> str:
        if self.delimiter == "\t":
            line = "\t".join(fields)
        else:
            buffer = io.StringIO()
            csv.writer(buffer, delimiter=self.delimiter, lineterminator="").writerow(fields)
            line = buffer.getvalue()
        return line + ("\r" if self.crlf else "")  # the line's own "\n" is written by whoever writes it


class TableRecord(Record):
    """A table row's fields that predict reads, its own fields (`fields`) and the `table` it came from."""

    fields: list[str]
    table: Table


def _first_bytes(path: Path) -> bytes:
    """The file's first line (at most 64 KB of it), gunzipped where it ends in .gz."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            return handle.readline(1 << 16)
    except OSError:
        return b""  # the reader says what is wrong with it


def table_records(path: Path, columns: dict[str, str | None], answer_key: str, aspects: bool,
                  labels: tuple[str, ...] = ()) -> tuple[Table, Iterator[tuple[int, Record] | BadLine]]:
    """The table of a CSV or TSV file and its rows as records: `columns` maps each field predict reads ("text",
    "text_pair", "aspect") to its column (None: not read); the text column (and the pair column, where given) must
    be in the header, and no column may have an answer column's name. A row without a text, or with another number
    of fields than the header, is a BadLine."""
    from ..data.readers._common import iter_lines
    from ..data.readers.generic import _csv_records, spelt_alike

    path = Path(path)
    delimiter = "\t" if input_format(path) == "tsv" else ","
    first = _first_bytes(path)
    bom, crlf = first.startswith(b"\xef\xbb\xbf"), first.endswith(b"\r\n")
    if delimiter == ",":
        rows = ((number, fields) for number, fields, _ in _csv_records(path))
    else:
        rows = ((number, line.rstrip("\r").split("\t")) for number, line in iter_lines(path, skip_bom=True))
    _, header = next(rows, (1, []))
    where = f"{path}:1"
    for field, column in columns.items():
        if column is not None and field != "aspect" and column not in header:
            raise AttentiveError(f"{where}: no column {column!r} in the header (found: "
                                 f"{', '.join(map(repr, header)) or 'none'}): the model reads the column it was "
                                 f"trained with; name yours {column!r}{spelt_alike(column, header)}")
    added = answer_columns(answer_key, aspects, labels)
    clash = sorted(set(added) & set(header))
    if clash:
        raise AttentiveError(f"{where}: the file has a column {clash[0]!r}, where the answer goes: choose another "
                             "--answer-key")
    table = Table(delimiter, header, added, bom, crlf, tuple(labels))
    positions = {field: header.index(column) for field, column in columns.items()
                 if column is not None and column in header}

    def records() -> Iterator[tuple[int, Record] | BadLine]:
        for number, fields in rows:
            if not fields or (len(fields) == 1 and not fields[0].strip() and len(header) > 1):
                continue  # a blank line
            if len(fields) != len(header):
                yield BadLine(str(path), number, f"{len(fields)} fields, not the header's {len(header)}")
                continue
            read = {field: fields[position] for field, position in positions.items()}
            problem = next((f"empty {columns[field]!r}" if not read.get(field, "").strip() else
                            f"{columns[field]!r} is {text_problem(read[field])}"
                            for field in ("text", "text_pair") if field in positions
                            and (not read[field].strip() or text_problem(read[field]) is not None)), None)
            if problem is not None:
                yield BadLine(str(path), number, problem)
                continue
            if not (read.get("aspect") or "").strip():
                read.pop("aspect", None)
            record = TableRecord(read)
            record.fields, record.table = fields, table
            record.line = ""
            yield number, record

    return table, records()


def text_records(path: Path) -> Iterator[tuple[int, Record] | BadLine]:
    """A plain text file's lines as records, one text a line (blank lines skipped), each answered as a JSON line
    {"text": ..., ANSWER_KEY: ...}."""
    from ..data.readers._common import iter_lines

    for number, line in iter_lines(path, skip_bom=True):
        text = line.rstrip("\r")
        if not text.strip():
            continue
        if (problem := text_problem(text)) is not None:
            yield BadLine(str(path), number, problem)
            continue
        record = Record(text=text)
        record.line = json.dumps({"text": text}, ensure_ascii=False)
        yield number, record


class HeadedRecords:
    """Records to answer, and the `header` line their output starts with (a table's; None for JSON lines)."""

    def __init__(self, records, header: str | None = None):
        self.records, self.header = records, header

    def __iter__(self):
        return iter(self.records)


def file_records(path: Path, model, answer_key: str | None, text_column: str | None = None,
                 every_probability: bool = False) -> HeadedRecords:
    """The records of `predict --input FILE` (or `explain --input`) in FILE's format (`input_format`): a table's
    read with the model's columns (attentive/data/reading.py; `text_column` where given), its output's header line
    with them (and a column of each label's probability with `every_probability`); a text file's lines; else JSON
    lines (`input_lines.jsonl_records`), whose answers hold every probability anyway."""
    from ..data.reading import model_reading
    from .input_lines import ANSWER_KEY, jsonl_records

    kind = input_format(path)
    if kind == "text":
        if model.is_pair:
            raise AttentiveError(f"{path}: a text file gives one text a line; a pair model needs two: give a CSV, TSV "
                                 "or JSONL file")
        return HeadedRecords(text_records(path))
    if kind == "jsonl":
        return HeadedRecords(jsonl_records(path, ("text", "text_pair") if model.is_pair else ("text",), answer_key))
    reading = model_reading(model.config)
    columns = {"text": text_column or reading["text_column"],
               "text_pair": reading["pair_column"] or "text_pair" if model.is_pair else None,
               "aspect": (reading["aspect_column"] or "aspect") if model.uses_aspect else None}
    table, records = table_records(path, columns, answer_key or ANSWER_KEY, model.uses_aspect,
                                   tuple(model.labels) if every_probability else ())
    return HeadedRecords(records, table.header_line())
