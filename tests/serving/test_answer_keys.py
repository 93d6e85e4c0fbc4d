"""A user's input fields are never overwritten, and nothing given is silently ignored (issue 43, items 2, 4 and 7:
their predict and server parts). `predict --input` gives each line back as its own text, byte for byte, with the
answer under "prediction" (`--answer-key`); a line holding that key, or giving a key twice, is a bad line; texts from
the command line keep the flat form. `--pair` for a single-text model, texts beside `--input`, `--threshold` for a
single-label model are one-line errors; `--threshold` replaces a multi-label model's thresholds. The server refuses
unknown fields and values of another type, serves no page loading scripts from a CDN, and prints an IPv6 address in
brackets. `--resume` of an output cut below its progress record cuts it back to its last whole line and goes on."""
from __future__ import annotations

import io
import json
import re
import socket
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attentive
import attentive.api
from attentive.cli import main
from attentive.data.example import Dataset, Example
from attentive.data.registry import load_dataset
from attentive.serving import server
from attentive.serving.server import create_app

from ..helpers import copy_of_tiny_run, tiny_overrides

ANSWER_FIELDS = ["label", "labels", "probabilities", "top_words", "aspect", "text_pair", "prediction", "answer"]


@pytest.fixture(scope="module")
def model(tiny_run, tmp_path_factory):
    return attentive.load(copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("answer_keys") / "run"))


@pytest.fixture
def loaded_once(model, monkeypatch):
    """The CLI's `load` answers with the fixture's model (load once, test the input path)."""
    monkeypatch.setattr(attentive.api, "load", lambda folder, device=None: model)
    return model


def cli(*args) -> tuple[int, str, list[str]]:
    """Exit status, stdout and the lines of stderr of `attentive ARGS`."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([str(arg) for arg in args])
    return status, out.getvalue(), err.getvalue().strip().splitlines()


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    return path


LABELLED = ['{"id": "007",  "text": "a gorgeous , witty film", "label": "gold", "labels": ["x"], '
            '"probabilities": {"a": 1}, "top_words": [], "aspect": "food", "text_pair": "p", "score": 1.50, '
            '"note": "caf\\u00e9 é"   }',
            '{"text":"dull , dull , dull","label":"negative"}']


def test_a_labelled_lines_fields_come_back_byte_for_byte_with_the_answer_under_prediction(loaded_once, tmp_path):
    source = write_lines(tmp_path / "in.jsonl", LABELLED)
    status, out, _ = cli("predict", loaded_once.folder, "--input", source)
    assert status == 0
    lines = out.splitlines()
    for line, given_line in zip(lines, LABELLED, strict=True):
        assert line.startswith(given_line[:-1]) and line.endswith("}")  # the line's own text, then its answer
        answer = json.loads(line)
        assert {k: v for k, v in answer.items() if k != "prediction"} == json.loads(given_line)
        assert set(answer["prediction"]) == {"label", "probabilities", "top_words"}
        assert answer["prediction"]["label"] in ("negative", "positive")
    assert '"score": 1.50' in lines[0] and '"caf\\u00e9 é"' in lines[0]  # not re-serialised

    status, out, _ = cli("predict", loaded_once.folder, "--input", source, "--answer-key", "answer")
    assert status == 0 and all("answer" in json.loads(line) and "prediction" not in json.loads(line)
                               for line in out.splitlines())


def test_texts_from_the_command_line_keep_the_flat_form(loaded_once):
    status, out, _ = cli("predict", loaded_once.folder, "a gorgeous film")
    answer = json.loads(out)
    assert status == 0 and set(answer) == {"label", "probabilities", "top_words"}


@pytest.mark.parametrize("line, problem", [
    ('{"text": "a fine film", "prediction": "mine"}', "already has a field 'prediction': choose another --answer-key"),
    ('{"text": "a fine film", "text": "another"}', "the key 'text' is given twice: keep one"),
    ('{"id": 1, "text": "a fine film", "id": 2}', "the key 'id' is given twice: keep one"),
])
def test_a_line_holding_the_answer_key_or_a_key_twice_is_a_bad_line(loaded_once, tmp_path, line, problem):
    source = write_lines(tmp_path / "in.jsonl", ['{"text": "a good film"}', line, '{"text": "a dull film"}'])
    status, out, err = cli("predict", loaded_once.folder, "--input", source)
    assert status == 2 and len(out.splitlines()) == 1
    assert err == [f"error: {source}:2: {problem}"]
    status, out, err = cli("predict", loaded_once.folder, "--input", source, "--on-error", "skip")
    assert status == 0 and [json.loads(a)["text"] for a in out.splitlines()] == ["a good film", "a dull film"]
    assert f"{source}:2: {problem} (skipped)" in " ".join(err)


def test_nested_objects_may_repeat_keys_and_come_back_as_written(loaded_once, tmp_path):
    line = '{"text": "a fine film", "meta": {"k": 1, "k": 2}}'
    status, out, _ = cli("predict", loaded_once.folder, "--input", write_lines(tmp_path / "in.jsonl", [line]))
    assert status == 0 and out.startswith(line[:-1] + ', "prediction": {')


def test_an_output_file_gets_the_same_lines(loaded_once, tmp_path):
    source = write_lines(tmp_path / "in.jsonl", LABELLED * 3)
    status, printed, _ = cli("predict", loaded_once.folder, "--input", source, "--batch-size", "2")
    assert status == 0
    assert cli("predict", loaded_once.folder, "--input", source, "--batch-size", "2", "--output",
               tmp_path / "out.jsonl")[0] == 0
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == printed


@pytest.mark.parametrize("args, message", [
    (["--answer-key", "answer", "a fine film"], "--answer-key names the field of an --input line's answer"),
    (["--input", "IN", "--answer-key", "text"], "--answer-key text: predict reads that field of a line"),
    (["--input", "IN", "--answer-key", " "], "--answer-key ' ': give a name"),
    (["--input", "IN", "a fine film"], "give texts on the command line or --input"),
    (["--input", "IN", "--pair", "a second text"], "--pair goes with texts on the command line"),
    (["a fine film", "--pair", "a second text"], "this model classifies single texts, not pairs: drop --pair"),
    (["a fine film", "--threshold", "0.3"], "--threshold replaces a multi-label model's threshold of every label"),
])
def test_what_predict_would_ignore_is_a_one_line_error(loaded_once, tmp_path, args, message):
    source = write_lines(tmp_path / "in.jsonl", ['{"text": "a good film"}'])
    status, out, err = cli("predict", loaded_once.folder, *[source if arg == "IN" else arg for arg in args])
    assert status == 2 and out == "" and len(err) == 1 and message in err[0], err


def test_explain_also_refuses_texts_beside_input_and_pair_for_a_single_text_model(loaded_once, tmp_path):
    source = write_lines(tmp_path / "in.jsonl", ['{"text": "a good film"}'])
    status, _, err = cli("explain", loaded_once.folder, "a fine film", "--input", source)
    assert status == 2 and len(err) == 1 and "not both" in err[0]
    status, _, err = cli("explain", loaded_once.folder, "a fine film", "--pair", "a second one")
    assert status == 2 and len(err) == 1 and "drop --pair" in err[0]


# Every field comes back byte for byte: random field names (every answer key among them) and values

names = st.one_of(st.sampled_from(ANSWER_FIELDS), st.text(max_size=6))
values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
spacing = st.sampled_from([(", ", ": "), (",", ":"), (" ,\t", " :  ")])
lines = st.tuples(st.dictionaries(names.filter(lambda name: name != "text"), values, max_size=6),
                  st.sampled_from(["a gorgeous film", "dull , dull", "ça va é ☃"]), spacing, st.booleans(),
                  st.integers(0, 6))


def line_text(fields: dict, text: str, spacing, ascii_only: bool, at: int) -> str:
    pairs = list(fields.items())
    pairs.insert(min(at, len(pairs)), ("text", text))  # "text" anywhere among the fields
    comma, colon = spacing
    dumped = [(json.dumps(key, ensure_ascii=ascii_only), json.dumps(value, ensure_ascii=ascii_only))
              for key, value in pairs]
    return "{" + comma.join(key + colon + value for key, value in dumped) + "}"


@pytest.mark.slow  # fuzzing: 120 runs of predict (the tests above give the cases by hand)
@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(given_lines=st.lists(lines, min_size=1, max_size=5))
def test_every_input_field_comes_back_byte_for_byte(loaded_once, given_lines):
    texts = [line_text(*line) for line in given_lines]
    with tempfile.TemporaryDirectory() as tmp:
        source = write_lines(Path(tmp) / "in.jsonl", texts)
        status, out, err = cli("predict", loaded_once.folder, "--input", source, "--on-error", "skip")
    assert status == 0, err
    kept = [text for text, (fields, *_) in zip(texts, given_lines) if "prediction" not in fields]
    answers = out.split("\n")[:-1]  # JSONL: a line ends at "\\n" alone (a field may hold U+0085)
    assert len(answers) == len(kept)
    assert sum("already has a field 'prediction'" in line for line in err) == len(texts) - len(kept)
    for answer, text in zip(answers, kept):
        assert answer.startswith(text[:-1])
        assert re.fullmatch(r'(, )?"prediction": \{.*\}\}', answer[len(text) - 1:], flags=re.DOTALL)
        parsed = json.loads(answer)
        assert {k: v for k, v in parsed.items() if k != "prediction"} == json.loads(text)
        assert parsed["prediction"]["label"] in ("negative", "positive")


def test_ray_answers_go_under_the_answer_key_too():
    import numpy as np

    from attentive.scoring import ray_batch as batch

    answer = {"label": np.array(["pos"], dtype=object), "probabilities": np.array([[0.25, 0.75]], dtype=np.float32)}
    own = '{"text": "a",  "label": "gold", "n": 1.50}'
    rows = {"record": np.array([own], dtype=object), "path": np.array(["in.jsonl"]), "line": np.array([1]), **answer}
    assert batch.answer_lines(rows, ["neg", "pos"], "record") == [
        own[:-1] + ', "prediction": {"label": "pos", "probabilities": {"neg": 0.25, "pos": 0.75}}}']
    columns = {"id": np.array([7]), "text": np.array(["a"], dtype=object), **answer}
    assert batch.answer_lines(columns, ["neg", "pos"], None, "answer") == [
        '{"id": 7, "text": "a", "answer": {"label": "pos", "probabilities": {"neg": 0.25, "pos": 0.75}}}']


# --threshold: multi-label models alone

def _sets(ex) -> tuple[str, ...]:
    return (*(["film"] if "film" in ex.text else []), *(["long"] if len(ex.text.split()) > 18 else []))


@pytest.fixture(scope="module")
def multi_label_folder(tmp_path_factory):
    sample = load_dataset("sst2_sample")
    splits = {split: [Example(text=ex.text, labels=_sets(ex)) for ex in sample.splits[split][:size]]
              for split, size in (("train", 300), ("dev", 80), ("test", 20))}
    data = Dataset("sst2_sets", splits, ["film", "long"])
    folder = tmp_path_factory.mktemp("answer_keys_multilabel") / "run"
    attentive.train(data, "default", folder, show_progress=False,
                    overrides=tiny_overrides("default") + ["wide.buckets=4096", "train.epochs=1"])
    return folder


def test_threshold_replaces_every_labels_threshold_of_a_multi_label_model(multi_label_folder, tmp_path):
    texts = ["a film about a film", "dull", "a long and winding and very slow and tiresome film that goes on and on "
             "without ever finding its feet or its heart or any reason to exist at all"]
    answers = {}
    for threshold in (None, "0", "1"):
        options = [] if threshold is None else ["--threshold", threshold]
        status, out, err = cli("predict", multi_label_folder, *texts, *options)
        assert status == 0, err
        answers[threshold] = [json.loads(line) for line in out.splitlines()]
    thresholds = json.loads((multi_label_folder / "config.json").read_text())["thresholds"]
    for threshold, answered in answers.items():
        for answer in answered:
            cut = thresholds if threshold is None else dict.fromkeys(thresholds, float(threshold))
            probabilities = answer["probabilities"]
            assert answer["labels"] == sorted((label for label in probabilities if probabilities[label] >= cut[label]),
                                              key=lambda label: -probabilities[label])
    assert all(len(a["labels"]) == 2 for a in answers["0"])  # every label reaches 0
    assert [a["probabilities"] for a in answers["0"]] == [a["probabilities"] for a in answers[None]]
    source = write_lines(tmp_path / "in.jsonl", [json.dumps({"text": text}) for text in texts])
    assert cli("predict", multi_label_folder, "--input", source, "--threshold", "0", "--output",
               tmp_path / "out.jsonl")[0] == 0  # the --output path answers with it too
    written = [json.loads(line)["prediction"] for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [a["labels"] for a in written] == [a["labels"] for a in answers["0"]]
    status, _, err = cli("predict", multi_label_folder, "a film", "--threshold", "1.5")
    assert status == 2 and len(err) == 1


# The server

def test_unknown_fields_and_values_of_another_type_are_422_naming_the_field(model):
    with TestClient(create_app(model)) as client:
        assert client.post("/predict", json={"texts": ["a fine film"], "top_k": 2}).status_code == 200
        for body, field in [({"texts": ["a fine film"], "threshold": 0.5}, "threshold"),
                            ({"texts": ["a fine film"], "topk": 3}, "topk"),
                            ({"texts": ["a fine film"], "top_k": True}, "top_k"),
                            ({"texts": ["a fine film"], "top_k": "3"}, "top_k"),
                            ({"texts": "a fine film"}, "texts")]:
            for path in ("/predict", "/explain"):
                response = client.post(path, json=body)
                assert response.status_code == 422, (path, body)
                assert response.json()["detail"].startswith(f"{field}: "), response.json()


def test_no_page_loads_scripts_from_elsewhere(model):
    with TestClient(create_app(model)) as client:
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
        assert client.get("/openapi.json").status_code == 200
        page = client.get("/")
        assert page.status_code == 200
        assert not re.search(r"<script[^>]*\bsrc\s*=\s*[\"']?(https?:)?//", page.text, flags=re.IGNORECASE)
        assert not re.search(r"https?://", page.text)


def test_serve_on_ipv6_prints_its_address_in_brackets(loaded_once, monkeypatch):
    import uvicorn

    assert server.address("::1", 8123) == "http://[::1]:8123/"
    assert server.address("127.0.0.1", 8123) == "http://127.0.0.1:8123/"
    monkeypatch.setattr(server, "bound_socket", lambda host, port: socket.socket())
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    status, out, err = cli("serve", loaded_once.folder, "--host", "::1", "--port", "8123")
    assert status == 0, err
    assert "on http://[::1]:8123/" in " ".join(out.split())


# --resume of an output cut below its progress record

def test_an_output_cut_below_its_progress_is_cut_back_to_a_whole_line_and_continued(loaded_once, sst2_small,
                                                                                     tmp_path):
    texts = [ex.text for ex in sst2_small.splits["train"][:60]]
    source = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": i, "text": t}) for i, t in enumerate(texts)])
    common = ["predict", loaded_once.folder, "--input", source, "--batch-size", "4"]
    assert cli(*common, "--output", tmp_path / "whole.jsonl")[0] == 0
    whole = (tmp_path / "whole.jsonl").read_bytes()
    out = tmp_path / "out.jsonl"
    for keep_lines, torn in [(23, b'{"id": 23, "te'), (0, b'{"id'), (40, b""), (59, b"")]:
        assert cli(*common, "--output", out, "--overwrite")[0] == 0
        assert json.loads((tmp_path / "out.jsonl.progress").read_text())["output_lines"] == 60
        out.write_bytes(b"".join(whole.splitlines(keepends=True)[:keep_lines]) + torn)  # lost below the record
        status, printed, err = cli(*common, "--output", out, "--resume")
        assert status == 0 and printed == "", err
        assert err == [f"cut {out} back to line {keep_lines}: continuing"]
        assert out.read_bytes() == whole
        progress = json.loads((tmp_path / "out.jsonl.progress").read_text())
        assert progress["output_lines"] == 60 and progress["input_line"] == 60 and progress["complete"] is True
