"""Fuzzing the command line's input paths (Hypothesis): whatever bytes `predict --input` is given, it answers every
good line, in order, and either stops at the first bad one with a one-line error (status 2) or skips each bad one with
a warning; never a traceback, never a line silently dropped."""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import attentive
import attentive.api
from attentive.cli import main

from ..helpers import copy_of_tiny_run

pytestmark = pytest.mark.slow  # fuzzing


@pytest.fixture(scope="module")
def model(tiny_run, tmp_path_factory):
    return attentive.load(copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("fuzz") / "run"))


def good(line: bytes, first: bool) -> bool:
    """Whether a JSONL line can be answered: a JSON object (after a byte order mark on the first line) with a
    non-empty "text" string, every string in it valid Unicode (no lone surrogate from a \\ud800 escape), no key
    given twice, no "prediction" field (where its answer goes)."""
    try:
        text = line.decode("utf-8").removeprefix("\ufeff" if first else "")
        record = json.loads(text)
        json.dumps(record, ensure_ascii=False).encode("utf-8")
        keys = [key for key, _ in json.loads(text, object_pairs_hook=list)] if isinstance(record, dict) else []
    except (ValueError, RecursionError):  # not UTF-8, not JSON, a number too long; a lone surrogate
        return False
    return (isinstance(record, dict) and isinstance(record.get("text"), str) and bool(record["text"].strip())
            and len(set(keys)) == len(keys) and "prediction" not in record)


texts = st.text(st.characters(codec="utf-8"), max_size=30)
surrogates = st.integers(0xD800, 0xDFFF).map(chr)
records = st.one_of(
    st.builds(lambda t: json.dumps({"text": t}).encode(), texts),
    st.builds(lambda t: json.dumps({"text": t}, ensure_ascii=False).encode(), texts),
    st.builds(lambda v: json.dumps({"text": v}).encode(), st.one_of(st.none(), st.integers(), st.lists(st.integers()))),
    st.just(b"[1, 2]"), st.just(b"   "), st.just(b'{"text": "unterminated'), st.binary(max_size=20),
    st.builds(lambda t, s: json.dumps({"text": t + s}).encode(), texts, surrogates),  # \ud800: valid JSON
    st.builds(lambda t, s: json.dumps({"text": t, "id": s}).encode(), texts, surrogates),
    # nested well within Python's recursion limit, or well past it: between, whether json.loads recurses too deep
    # depends on how deep the call stack already is (the CLI's frames against this oracle's), not on the line
    st.one_of(st.integers(1, 400), st.integers(2000, 3000)).map(
        lambda depth: b'{"text": "deep", "x": ' + b"[" * depth + b"]" * depth + b"}"),
    st.integers(4000, 5000).map(lambda digits: b'{"text": "long", "id": ' + b"7" * digits + b"}"),
    st.builds(lambda t, key: b'{"text": %s, "%s": 1, "id": 2}' % (json.dumps(t).encode(), key), texts,
              st.sampled_from([b"id", b"text", b"prediction", b"label"])),  # a key twice, the answer's key
)
files = st.one_of(st.lists(records, max_size=8).map(lambda lines: b"\n".join(lines)), st.binary(max_size=200))


def run_predict(folder: Path, data: bytes, on_error: str) -> tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        source.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["predict", str(folder), "--input", str(source), "--on-error", on_error,
                           "--batch-size", "3"])
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=files, bom=st.booleans(), on_error=st.sampled_from(["stop", "skip"]))
@example(data=b"\xef\xbb\xbf\n\xef\xbb\xbf", bom=False, on_error="stop")  # line 2 repeats line 1's bytes
def test_predict_input_answers_every_good_line_or_says_which_line_is_bad(model, monkeypatch, data, bom, on_error):
    monkeypatch.setattr(attentive.api, "load", lambda folder, device=None: model)  # load once, fuzz the input path
    data = (b"\xef\xbb\xbf" if bom else b"") + data
    status, out, err = run_predict(model.folder, data, on_error)
    assert "Traceback" not in err and status in (0, 2), err
    lines = [(number, line) for number, line in enumerate(data.split(b"\n"))
             if line.removeprefix(b"\xef\xbb\xbf" if number == 0 else b"").strip()]
    verdicts = [good(line, number == 0) for number, line in lines]
    answered = [json.loads(line) for line in out.split("\n") if line]  # JSONL: a line ends at \n only
    if on_error == "skip" or all(verdicts):
        assert status == 0 and len(answered) == sum(verdicts)
        assert err.count("(skipped)") == len(verdicts) - sum(verdicts)
    else:
        first_bad = verdicts.index(False)
        number = lines[first_bad][0] + 1  # by position: a later line may repeat an earlier one's bytes
        assert status == 2 and len(answered) == first_bad
        assert f"in.jsonl:{number}:" in err
        assert len(err.strip().splitlines()) == 1
