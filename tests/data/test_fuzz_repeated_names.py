"""Property tests: every reader that reads column names (a header, or the keys of a JSON line) refuses a header or a
line that gives a name twice, whatever the names and wherever the repeat, at that line and naming the name: the CSV,
TSV and JSONL training files, the IMDB and SICK benchmark files, and predict's --input lines."""
from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attentive.data import readers as r
from attentive.errors import DataError
from attentive.scoring.input_lines import BadLine, jsonl_records

pytestmark = pytest.mark.slow  # fuzzing

FUZZ = settings(deadline=None, database=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])

# A name holds no line break or TAB (a TSV header could not), nor a byte order mark (dropped before a header: two
# names that differ by one are a repeat, tests/data/test_repeated_names.py); quotes, commas and spaces turn up often.
NAME = st.one_of(st.sampled_from(["text", "label", "id", "", " ", '"', ",", "a,b", 'say "x"', "text "]),
                 st.text(st.characters(codec="utf-8", exclude_characters="\n\r\t\ufeff\x00"), max_size=8))


@st.composite
def repeated(draw) -> tuple[list[str], str]:
    """Distinct names with one of them given again at any place, and that name."""
    names = draw(st.lists(NAME, min_size=1, max_size=6, unique=True))
    name = draw(st.sampled_from(names))
    names.insert(draw(st.integers(0, len(names))), name)
    return names, name


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """One folder for the module: Hypothesis reruns a test body many times, so no function-scoped tmp_path."""
    return tmp_path_factory.mktemp("repeats")


def _csv_line(fields: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(fields)
    return out.getvalue()


def _refused(read, path: Path, line: int, name: str) -> None:
    with pytest.raises(DataError) as refused:
        read(path)
    assert refused.value.line == line and repr(name) in refused.value.problem, str(refused.value)
    assert "\n" not in str(refused.value)


@FUZZ
@given(header=repeated(), rows=st.integers(0, 3))
def test_a_csv_header_giving_a_name_twice_is_refused(work, header, rows):
    names, name = header
    path = work / "header.csv"
    path.write_text(_csv_line(names) + _csv_line(["a text", "pos", *[""] * (len(names) - 2)]) * rows,
                    encoding="utf-8")
    _refused(r.read_table, path, 1, name)


@FUZZ
@given(header=repeated(), rows=st.integers(0, 3), gzipped=st.booleans())
def test_a_tsv_header_giving_a_name_twice_is_refused(work, header, rows, gzipped):
    names, name = header
    path = work / ("header.tsv.gz" if gzipped else "header.tsv")
    data = ("\t".join(names) + "\n" + "\t".join(["a text", "pos", *[""] * (len(names) - 2)]) * rows).encode()
    path.write_bytes(gzip.compress(data) if gzipped else data)
    _refused(r.read_table, path, 1, name)


@FUZZ
@given(header=repeated())
def test_a_sick_header_giving_a_name_twice_is_refused(work, header):
    names, name = header
    path = work / "SICK.txt"
    path.write_text("\t".join(names) + "\n", encoding="utf-8")
    _refused(r.read_sick, path, 1, name)


@FUZZ
@given(header=repeated())
def test_a_news_header_giving_a_name_twice_is_refused(work, header):
    names, name = header
    path = work / "news.tsv"
    path.write_text("\t".join(names) + "\n", encoding="utf-8")
    _refused(lambda path: r.read_news(path), path, 1, name)


def _jsonl(work: Path, suffix: str, good: list[dict], keys: list[str]) -> Path:
    """A JSONL file of the `good` objects, then one line giving `keys` (one of them twice), each with a value."""
    line = "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(f'value {i}')}" for i, key in enumerate(keys)) + "}"
    data = "".join(json.dumps(row) + "\n" for row in good) + line + "\n"
    path = work / f"keys{suffix}"
    path.write_bytes(gzip.compress(data.encode()) if suffix.endswith(".gz") else data.encode())
    return path


@FUZZ
@given(keys=repeated(), good=st.integers(0, 3))
def test_a_jsonl_training_line_giving_a_key_twice_is_refused(work, keys, good):
    names, name = keys
    path = _jsonl(work, ".jsonl", [{"text": "a text", "label": "pos"}] * good, names)
    _refused(r.read_table, path, good + 1, name)


@FUZZ
@given(keys=repeated(), good=st.integers(0, 3))
def test_an_imdb_line_giving_a_key_twice_is_refused(work, keys, good):
    names, name = keys
    path = _jsonl(work, ".jsonl.gz", [{"id": i, "text": "a text", "label": "pos"} for i in range(good)], names)
    _refused(r.read_imdb, path, good + 1, name)


@FUZZ
@given(keys=repeated(), good=st.integers(0, 3))
def test_a_predict_input_line_giving_a_key_twice_is_a_bad_line(work, keys, good):
    names, name = keys
    path = _jsonl(work, ".jsonl", [{"text": "a text"}] * good, names)
    *answered, bad = jsonl_records(path, ("text",))
    assert [number for number, _ in answered] == list(range(1, good + 1))
    assert isinstance(bad, BadLine) and bad.number == good + 1 and repr(name) in bad.problem
