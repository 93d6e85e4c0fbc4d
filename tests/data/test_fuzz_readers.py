"""Property tests of the generic readers: whatever the bytes, a reader returns rows or raises a one-line error, and
what csv.writer / json.dumps wrote reads back exactly (after the documented `.strip()`), with no row lost."""
from __future__ import annotations

import csv
import gzip
import io
import json
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attentive.data import readers as r
from attentive.data.example import Dataset
from attentive.data.registry import load_files
from attentive.errors import AttentiveError, DataError

pytestmark = pytest.mark.slow  # fuzzing

FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

# characters that matter to the parsers, mixed into arbitrary unicode so that they turn up often
SPECIAL = st.sampled_from(list('",\n\r\t {}[]:\\\'\x00\ufeff\u2028') + ['""', "\r\n", "1.0", "text,label\n"])
TEXT = st.one_of(st.text(), st.lists(st.one_of(SPECIAL, st.characters(codec="utf-8")), max_size=25).map("".join))
LABEL = st.one_of(st.sampled_from(["pos", "neg", "neutral", "1", "1.0", "01", "2", " ", ""]), TEXT)
ROWS = st.lists(st.tuples(TEXT, LABEL), max_size=12)
HEADERS = st.sampled_from([b"", b"text,label\n", b"text\tlabel\n", b'\xef\xbb\xbftext,label\r\n', b"label,text\n"])
PIECES = st.one_of(
    st.sampled_from([b'"', b",", b"\n", b"\r\n", b"\r", b"\t", b"text,label\n", b'{"text": ', b'"label": ', b"}",
                     b"1.0", b"1", b'"pos"', b"\xef\xbb\xbf", b"a b", b'""', b'{"text": "a", "label": 1}\n', b"[[["]),
    st.text(st.characters(codec="utf-8"), max_size=3).map(str.encode),
    st.binary(max_size=2),
)
BYTES = st.one_of(
    st.binary(max_size=200),
    st.tuples(HEADERS, st.lists(PIECES, max_size=40).map(b"".join)).map(b"".join),
)
SUFFIXES = [".csv", ".tsv", ".jsonl", ".csv.gz"]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """One folder for the module: Hypothesis reruns a test body many times, so no function-scoped tmp_path."""
    return tmp_path_factory.mktemp("fuzz")


def _write(work: Path, name: str, data: bytes) -> Path:
    path = work / name
    path.write_bytes(data)
    return path


def _csv_bytes(rows, lineterminator: str = "\r\n") -> tuple[bytes, list[int]]:
    """The file csv.writer writes, and the line each row starts at."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow(["text", "label"])
    starts = []
    for row in rows:
        starts.append(out.getvalue().count("\n") + 1)
        writer.writerow(row)
    return out.getvalue().encode("utf-8"), starts


def _jsonl_bytes(rows, ascii_only: bool) -> tuple[bytes, list[int]]:
    lines = [json.dumps({"text": text, "label": label}, ensure_ascii=ascii_only) for text, label in rows]
    return "".join(line + "\n" for line in lines).encode("utf-8"), list(range(1, len(rows) + 1))


def _same_number_clash(labels) -> bool:
    """Independent oracle: do distinct label strings collapse to fewer distinct numbers?"""
    numbers = {}
    for label in set(labels):
        try:
            value = Decimal(label)
        except (InvalidOperation, ValueError):
            continue
        if not value.is_nan():
            numbers.setdefault(value, set()).add(label)
    return any(len(names) > 1 for names in numbers.values())


def _expected(rows, starts):
    """What read_table must give: (examples, dropped, multiline), or (error text, line) for a documented error."""
    examples, dropped = [], 0
    for (text, label), start in zip(rows, starts):
        if not text.strip():
            dropped += 1
        elif not label.strip():
            return "empty label", start
        else:
            examples.append((text.strip(), label.strip()))
    if _same_number_clash(label for _, label in examples):
        return "same number", None
    return examples, dropped, sum("\n" in text + label for text, label in rows)


def _bare_carriage_return(rows, lineterminator: str) -> bool:
    """Whether csv.writer left a "\r" unquoted (Python < 3.13 does when "\r" is not in its lineterminator)."""
    def quoted(field):
        out = io.StringIO()
        csv.writer(out, lineterminator=lineterminator).writerow([field])
        return out.getvalue().startswith('"')
    return any("\r" in field and not quoted(field) for row in rows for field in row)


def _check_roundtrip(path: Path, rows, starts, may_fail: str | None = None) -> None:
    if may_fail:  # a documented error, not a wrong reading
        try:
            r.read_table(path)
        except DataError as err:
            if may_fail in str(err):
                return
    expected = _expected(rows, starts)
    if isinstance(expected[0], str):
        with pytest.raises(DataError, match=expected[0]) as err:
            r.read_table(path)
        assert expected[1] is None or err.value.line == expected[1]
        return
    examples, dropped, multiline = expected
    result = r.read_table(path)
    assert [(ex.text, ex.label) for ex in result.examples] == examples
    assert result.skipped == dropped == result.dropped["empty text"]
    assert len(result.examples) + result.skipped == len(rows)
    if path.suffix == ".csv":
        assert result.multiline == multiline


# ---------------------------------------------------------------- (a) arbitrary bytes

@settings(FUZZ, max_examples=700)
@given(data=BYTES, suffix=st.sampled_from(SUFFIXES), compress=st.sampled_from(["no", "yes", "truncated"]))
def test_any_bytes_give_rows_or_a_data_error(work, data, suffix, compress):
    if suffix.endswith(".gz") and compress != "no":
        packed = gzip.compress(data)
        data = packed if compress == "yes" else packed[: len(packed) // 2]
    path = _write(work, "any" + suffix, data)
    try:
        result = r.read_table(path)
    except AttentiveError as err:  # DataError included; one line whatever the bytes
        assert "\n" not in str(err) and "\r" not in str(err)
        return
    assert isinstance(result, r.Rows)
    assert all(ex.text and ex.text == ex.text.strip() and ex.label for ex in result.examples)


# ---------------------------------------------------------------- (b) written by csv.writer / json.dumps reads back

@settings(FUZZ, max_examples=600)
@given(rows=ROWS, lineterminator=st.sampled_from(["\r\n", "\n"]))
def test_csv_writer_output_reads_back_exactly(work, rows, lineterminator):
    data, starts = _csv_bytes(rows, lineterminator)
    bare_cr = "carriage return" if _bare_carriage_return(rows, lineterminator) else None
    _check_roundtrip(_write(work, "written.csv", data), rows, starts, may_fail=bare_cr)


@settings(FUZZ, max_examples=300)
@given(rows=ROWS, ascii_only=st.booleans())
def test_json_dumps_output_reads_back_exactly(work, rows, ascii_only):
    data, starts = _jsonl_bytes(rows, ascii_only)
    _check_roundtrip(_write(work, "written.jsonl", data), rows, starts)


# ---------------------------------------------------------------- (c) load_files

@settings(FUZZ, max_examples=250)
@given(train=ROWS, dev=st.one_of(st.none(), ROWS, BYTES), fraction=st.sampled_from([0.0, 0.1, 0.5]))
def test_load_files_gives_a_dataset_or_an_attentive_error(work, train, dev, fraction):
    train_path = _write(work, "train.csv", _csv_bytes(train)[0])
    dev_path = None
    if dev is not None:
        dev_path = _write(work, "dev.csv", dev if isinstance(dev, bytes) else _csv_bytes(dev)[0])
    try:
        dataset = load_files(train_path, dev=dev_path, dev_fraction=fraction, seed=0)
    except AttentiveError:
        return
    assert isinstance(dataset, Dataset) and list(dataset.splits) == ["train", "dev", "test"]
    if not isinstance(dev, bytes):  # every row given is kept in some split or counted as skipped
        kept = sum(len(part) for part in dataset.splits.values())
        assert kept + sum(dataset.skipped.values()) == len(train) + len(dev or [])
    assert dataset.labels == sorted({ex.label for part in dataset.splits.values() for ex in part})


# ---------------------------------------------------------------- (d) one stray double quote never merges rows silently

PLAIN = st.text(st.sampled_from("ab ,."), max_size=8)


@settings(FUZZ, max_examples=300)
@given(rows=st.lists(st.tuples(PLAIN, st.sampled_from(["pos", "neg"])), min_size=1, max_size=12), where=st.data())
def test_a_stray_quote_is_an_error_or_harmless(work, rows, where):
    data = _csv_bytes(rows)[0].decode()
    lines = data.split("\r\n")[:-1]
    row = where.draw(st.integers(0, len(lines) - 1))
    at = where.draw(st.integers(0, len(lines[row])))
    lines[row] = lines[row][:at] + '"' + lines[row][at:]
    path = _write(work, "stray.csv", "".join(line + "\r\n" for line in lines).encode())
    try:
        result = r.read_table(path)
    except DataError:
        return
    assert len(result.examples) + result.skipped == len(rows)
