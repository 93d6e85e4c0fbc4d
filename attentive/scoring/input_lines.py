"""The texts `predict` and `explain` answer: from the command line, or streamed from a JSONL file (or a named pipe,
or /dev/stdin), as records ({"text", "text_pair"?, "aspect"?}; a JSONL line's is a `Record`, which also keeps the
line's own text) paired with the aspect to answer for. A line that cannot be answered (not UTF-8, not JSON, nested
too deeply, a number too long, over `MAX_LINE_BYTES`, an empty text or one that is not valid Unicode, a key given
twice, a field named as predict's answer key, an aspect the model does not know) is yielded as a `BadLine` in its
place, so that the caller answers every good line before it and then stops or skips it (`--on-error`); so is a
command-line text that is empty or not valid Unicode (an undecodable byte). A text is checked here alone: the model
is asked to answer the texts read as they are (`inputs.Checked.TEXTS`).

An answer never replaces a field of the user's (`answer_line`): a JSONL line comes back as its own text, byte for
byte, with the answer spliced in before its closing brace under one key ("prediction", `--answer-key`); a text from
the command line, which has no fields of its own, is answered flat (label, probabilities, top_words, aspect)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..answer.inputs import Checked, Expanded, text_problem
from ..data.names import RepeatedKey, loads_keys_once
from ..errors import AttentiveError, DataError
from ..util.spelling import listed
from ..util.user_files import iter_bounded_lines

MAX_LINE_BYTES = 10_000_000  # the most a line of `--input` may hold (10 MB); a longer line is a bad line
UTF8_BOM = b"\xef\xbb\xbf"
JSON_SPACE = " \t\n\r"  # the whitespace JSON allows around a value
ANSWER_KEY = "prediction"  # the key of a JSONL line's answer (`predict --answer-key`)
READ_FIELDS = ("text", "text_pair", "aspect")  # the fields of a line that predict reads


class Record(dict):
    """A JSONL line's fields that predict reads (`READ_FIELDS`), and in `line` the line's own JSON text (without
    the whitespace around it), into which its answer is spliced: every field comes back as the user wrote it."""

    line: str


@dataclass(frozen=True)
class BadLine:
    """An input that cannot be answered: where it is (a line of the file, or the n-th text) and why."""

    source: str
    number: int
    problem: str

    def error(self) -> DataError:
        return DataError(self.source, self.problem, self.number)


Wanted = tuple[dict, "str | None"]  # a record and the aspect to answer it for (None: the model takes none)


def jsonl_records(path: Path, fields: tuple[str, ...],
                  answer_key: str | None = None) -> Iterator[tuple[int, Record] | BadLine]:
    """(line number, record) for each non-blank line of a JSONL file (gzipped if it ends in .gz; a UTF-8 byte order
    mark before the first line is skipped), a BadLine for each line that is not a JSON object holding a valid,
    non-empty string in every one of `fields`, that gives a key twice or holds a field named `answer_key` (where
    its answer goes), or that is over `MAX_LINE_BYTES` (read no further than that). A file that cannot be read at
    all is a DataError (attentive.util.user_files.iter_bounded_lines)."""
    for number, raw in iter_bounded_lines(path, MAX_LINE_BYTES):
        if raw is None:
            yield BadLine(str(path), number, f"line over {MAX_LINE_BYTES:,} bytes, the most a line may hold")
            continue
        if number == 1 and raw.startswith(UTF8_BOM):
            raw = raw[len(UTF8_BOM):]
        if raw.strip():
            yield _record(path, number, raw, fields, answer_key)


class LineProblem(ValueError):
    """Why a line holding JSON is not a line predict can answer, in words."""


def parsed_line(text: str, answer_key: str | None = None, key_option: str = "--answer-key") -> dict:
    """The JSON object of a line's text. A json.JSONDecodeError or ValueError (a number too long) where it is not
    JSON, a RecursionError where it is nested too deeply, a LineProblem where it is not an object, gives a key twice
    (`loads_keys_once`: every JSONL reader's rule) or holds a field named `answer_key` (where its answer goes; the
    message says to choose another `key_option`)."""
    try:
        record = loads_keys_once(text)
    except RepeatedKey as exc:
        raise LineProblem(str(exc)) from None
    if not isinstance(record, dict):
        raise LineProblem("expected a JSON object")
    if answer_key is not None and answer_key in record:
        raise LineProblem(f"already has a field {answer_key!r}: choose another {key_option}")
    return record


def _record(path: Path, number: int, raw: bytes, fields: tuple[str, ...],
            answer_key: str | None) -> tuple[int, Record] | BadLine:
    try:
        line = raw.decode("utf-8").strip(JSON_SPACE)
        record = parsed_line(line, answer_key)
    except UnicodeDecodeError:
        return BadLine(str(path), number, "not UTF-8 text")
    except json.JSONDecodeError as exc:
        return BadLine(str(path), number, f"malformed JSON ({exc.msg})")
    except LineProblem as exc:
        return BadLine(str(path), number, str(exc))
    except RecursionError:
        return BadLine(str(path), number, "JSON nested too deeply")
    except ValueError as exc:  # an integer over Python's digit limit for conversion
        return BadLine(str(path), number, f"unreadable JSON ({str(exc).split(';')[0]})")
    for field in fields:
        text = record.get(field)
        if not isinstance(text, str) or not text.strip():
            return BadLine(str(path), number, f'empty or missing "{field}"')
        if (problem := text_problem(text)) is not None:
            return BadLine(str(path), number, f'"{field}" is {problem}')
    if b"\\u" in raw and (problem := _unencodable(record)) is not None:  # only a \u escape makes a lone surrogate
        return BadLine(str(path), number, problem)
    read = Record((field, record[field]) for field in READ_FIELDS if field in record)
    read.line = line
    return number, read


def _unencodable(record: dict) -> str | None:
    """Why a record is refused whole though its text is good, or None: a string, or a key, anywhere in it that is
    not valid Unicode (a lone surrogate, from a \\u escape), as a text would be."""
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"a field holds a string that is not valid Unicode: lone surrogate U+{ord(exc.object[exc.start]):04X} "
                "(half of a UTF-16 pair)")
    except RecursionError:
        return "JSON nested too deeply"
    return None


def command_line_records(texts: list[str] | None, pairs: list[str]) -> Iterator[tuple[int, dict] | BadLine]:
    if not texts:
        raise AttentiveError("give texts or --input FILE.jsonl")
    if pairs and len(pairs) != len(texts):
        raise AttentiveError(f"{len(pairs)} --pair texts for {len(texts)} texts: give one per text")
    for number, (text, pair) in enumerate(zip(texts, pairs or texts), start=1):
        if not text.strip() or (pairs and not pair.strip()):
            yield BadLine("text", number, "empty text: nothing to classify")
        elif (problem := text_problem(text)) is not None:
            yield BadLine("text", number, problem)
        elif pairs and (problem := text_problem(pair)) is not None:
            yield BadLine("text", number, f"its --pair text is {problem}")
        else:
            yield number, {"text": text, **({"text_pair": pair} if pairs else {})}


def answer_line(record: dict, prediction, answer_key: str | None) -> str:
    """The JSON line of one answer. With `answer_key`, the record's line (a `Record`) as its own text, byte for
    byte, with the answer spliced in before its closing brace under `answer_key` (which the line does not hold:
    `parsed_line`); without, the answer alone, flat (a command-line text has no fields of its own)."""
    if answer_key is None:
        return json.dumps(prediction.as_dict(), ensure_ascii=False)
    table = getattr(record, "table", None)  # a CSV or TSV row (attentive/scoring/input_tables.py): its own fields
    if table is not None:  # with the answer's columns after them
        return table.row(record.fields, prediction)
    return spliced(record.line, answer_key, prediction.as_dict())


def spliced(line: str, key: str, answer: dict) -> str:
    """A JSON object's text, byte for byte (without the whitespace around it), with `answer` added before its
    closing brace under `key`, a key it does not hold."""
    head = line.strip(JSON_SPACE)[:-1]  # the object without its closing brace
    comma = "" if head.rstrip(JSON_SPACE) == "{" else ", "
    return f"{head}{comma}{json.dumps(key, ensure_ascii=False)}: {json.dumps(answer, ensure_ascii=False)}}}"


def with_aspects(model, records: Iterable[tuple[int, dict] | BadLine], aspect_option: list[str],
                 source: str = "text") -> Iterator[Wanted | BadLine]:
    """(record, aspect) to answer: a record's own "aspect" field, else each --aspect, else every aspect category
    the model knows. Models without aspects get (record, None). Bad lines pass through in their place, and so does
    a record whose own aspect the model does not know (as a BadLine of `source`, the input file)."""
    if not model.uses_aspect and aspect_option:
        raise AttentiveError("this model classifies texts without an aspect: drop --aspect")
    known = set(model.aspects)
    unknown = sorted(set(aspect_option) - known) if known else []
    if unknown:
        raise AttentiveError(f"unknown aspect(s) {listed(unknown)}; this model knows {listed(model.aspects)}")
    for item in records:
        if isinstance(item, BadLine):
            yield item
            continue
        number, record = item
        if not model.uses_aspect:
            yield record, None
            continue
        own = record.get("aspect")
        choices = [own] if isinstance(own, str) and own.strip() else (aspect_option or model.aspects)
        if not choices:
            raise AttentiveError('this model takes open-ended aspects: give --aspect or an "aspect" field')
        if known and choices[0] not in known:  # only a record's own aspect can be unknown here
            yield BadLine(source, number, f"unknown aspect {choices[0]!r}; this model knows {listed(model.aspects)}")
            continue
        yield from ((record, aspect) for aspect in choices)


def answer(model, chunk: list[Wanted], method: str, **options) -> list:
    """`model.predict` or `model.explain` over (record, aspect) pairs, in their order: their texts, each checked when
    its record was read, are not checked again; their aspects are checked by the model."""
    texts = [record["text"] for record, _ in chunk]
    pairs = [record.get("text_pair") for record, _ in chunk] if model.is_pair else None
    if pairs is not None and None in pairs:
        pairs = None  # the model then says that it needs the second text
    aspects = [aspect for _, aspect in chunk] if model.uses_aspect else None
    expanded = Expanded(*model.inputs.expand(texts, pairs, aspects, checked=Checked.TEXTS))
    return getattr(model, method)(expanded, **options)


@dataclass
class Batch:
    """One network batch: good (record, aspect) pairs, their input lines, and how many of its answers are in the
    output already (a resumed run's first batch)."""

    items: list[Wanted]
    lines: list[int]  # each item's input line
    drop: int = 0

    @property
    def last_line(self) -> int:
        return self.lines[-1]


@dataclass
class Stop:
    """The end of the input, or the error that ends it (a bad line under "stop")."""

    last_line: int
    error: AttentiveError | None = None


def batches(numbered: Iterable[tuple[int, Wanted | BadLine]], batch_size: int, on_error: str,
            warn) -> Iterator[Batch | Stop]:
    """Network batches of `batch_size` good lines, a batch also ending at a bad line (the one cut of predict's
    stream, for `answered_in_batches` and `predict --jobs` alike), then one Stop: at the end of the input, or at the
    first bad line under "stop" (with its error), or at an AttentiveError while reading. Under "skip" a bad line is
    given to `warn` and read past."""
    if on_error not in ("stop", "skip"):
        raise AttentiveError(f"--on-error {on_error!r}: use stop or skip")
    items: list[Wanted] = []
    lines: list[int] = []
    line = 0
    try:
        for number, item in numbered:
            if isinstance(item, BadLine):
                if items:
                    yield Batch(items, lines)
                    items, lines = [], []
                if on_error == "stop":
                    yield Stop(line, item.error())
                    return
                warn(f"{item.source}:{item.number}: {item.problem} (skipped)")
                line = number
                continue
            items.append(item)
            lines.append(number)
            line = number
            if len(items) >= batch_size:
                yield Batch(items, lines)
                items, lines = [], []
    except AttentiveError as exc:
        if items:
            yield Batch(items, lines)
        yield Stop(line, exc)
        return
    if items:
        yield Batch(items, lines)
    yield Stop(line)


def answered_in_batches(model, wanted: Iterable[Wanted | BadLine], batch_size: int, on_error: str, method: str,
                        warn, **options) -> Iterator[tuple[dict, object]]:
    """(record, answer) in input order, a network batch (`batches`) at a time. At a bad line, or an error while
    reading, the answers of every good line before it are given first; then `on_error` "stop" raises its one-line
    error, "skip" calls `warn` with a line naming it and goes on."""
    for batch in batches(((0, item) for item in wanted), batch_size, on_error, warn):
        if isinstance(batch, Stop):
            if batch.error is not None:
                raise batch.error
            return
        answers = answer(model, batch.items, method, batch_size=batch_size, **options)
        yield from zip((record for record, _ in batch.items), answers)
