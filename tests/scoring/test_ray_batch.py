"""Scoring on Ray Data (attentive/scoring/ray_batch.py; issue 36, item 4), on a local Ray instance of 2 CPUs: a JSONL
file and a Dataset are answered in input order with the labels and probabilities of `attentive.answer.onnx_backend`, and
the same labels as `attentive predict --jobs 2`; a bad row stops the run with one line; the output is written whole or
not at all."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.onnx_format.write import export
from attentive.scoring import ray_batch as batch

from ..helpers import copy_of_tiny_run

pytestmark = pytest.mark.slow  # a Ray cluster

ray = pytest.importorskip("ray", reason="attentive[ray] is not installed")

ROWS = 300
BATCH = 64


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def exported(tiny_run, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray_batch")
    model = attentive.load(copy_of_tiny_run(tiny_run, folder / "run"))
    return export(model, folder / "onnx")


@pytest.fixture(scope="module")
def texts(sst2_small) -> list[str]:
    return [ex.text for split in ("train", "dev") for ex in sst2_small.splits[split]][:ROWS]


def write_input(path, texts):
    path.write_text("".join(json.dumps({"id": f"{i:04d}", "text": text, "note": "é"}, ensure_ascii=False) + "\n"
                            for i, text in enumerate(texts)), encoding="utf-8")
    return path


def test_a_jsonl_file_is_answered_in_order_as_the_runtime_and_predict_jobs_answer_it(local_ray, exported, texts,
                                                                                     tmp_path, capsys):
    texts = [*texts[:5], texts[5] + " \u2028 \x85 \r and after", *texts[6:]]  # no line ends there, for JSON
    source = write_input(tmp_path / "in.jsonl", texts)
    written = batch.predict(source, exported, output=tmp_path / "ray.jsonl", batch_size=BATCH, concurrency=1)
    raw = written.read_text(encoding="utf-8").split("\n")[:-1]
    given = source.read_text(encoding="utf-8").split("\n")[:-1]
    assert all(line.startswith(own[:-1] + ', "prediction": {') for line, own in zip(raw, given, strict=True))
    lines = [json.loads(line) for line in raw]
    assert [line["id"] for line in lines] == [f"{i:04d}" for i in range(ROWS)]  # in order, "0007" kept a string
    assert all(line["note"] == "é" and line["text"] == text for line, text in zip(lines, texts))

    model = onnx_backend.load(exported)
    expected = model.predict_proba(texts, batch_size=BATCH)
    got = np.array([[line["prediction"]["probabilities"][label] for label in model.labels] for line in lines])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    assert [line["prediction"]["label"] for line in lines] == [model.labels[i] for i in expected.argmax(1)]

    capsys.readouterr()
    assert main(["predict", str(exported), "--input", str(source), "--batch-size", str(BATCH), "--jobs", "2",
                 "--output", str(tmp_path / "jobs.jsonl")]) == 0
    jobs = [json.loads(line) for line in (tmp_path / "jobs.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
            ]
    assert [line["prediction"]["label"] for line in lines] == [line["prediction"]["label"] for line in jobs]
    assert [{**line, "prediction": {k: v for k, v in line["prediction"].items() if k != "top_words"}}
            for line in jobs] == [{**line, "prediction": {**line["prediction"], "probabilities": pytest.approx(
                line["prediction"]["probabilities"], abs=1e-6)}} for line in lines]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "jobs.jsonl", "jobs.jsonl.progress",
                                                                "ray.jsonl"]  # no scratch file left


def test_a_dataset_keeps_its_columns_and_gets_labels_and_probabilities(local_ray, exported, texts):
    model = onnx_backend.load(exported)
    dataset = ray.data.from_items([{"id": i, "text": text} for i, text in enumerate(texts)])
    answers = batch.predict(dataset, exported, batch_size=BATCH, concurrency=1).take_all()
    assert [row["id"] for row in answers] == list(range(ROWS))
    probabilities = np.stack([row["probabilities"] for row in answers])
    assert probabilities.shape == (ROWS, len(model.labels))
    np.testing.assert_allclose(probabilities, model.predict_proba(texts, batch_size=BATCH), rtol=0, atol=1e-6)
    assert [row["label"] for row in answers] == [model.labels[i] for i in probabilities.argmax(1)]


def test_a_bad_line_stops_the_run_with_one_line_and_writes_nothing(local_ray, exported, texts, tmp_path):
    source = write_input(tmp_path / "in.jsonl", texts[:20])
    with open(source, "a", encoding="utf-8") as handle:
        handle.write('{"id": "bad", "text": "   "}\n')
    with pytest.raises(AttentiveError) as error:
        batch.predict(source, exported, output=tmp_path / "out.jsonl", batch_size=8, concurrency=1)
    assert str(error.value) == f'{source}:21: "text" is empty: nothing to classify'
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl"]


@pytest.mark.parametrize("line, problem", [
    ('{"id": "x", "text": "a fine film", "prediction": 1}',
     "already has a field 'prediction': choose another answer_key"),
    ('{"id": "x", "text": "a fine film", "id": "y"}', "the key 'id' is given twice: keep one"),
])
def test_a_line_holding_the_answer_key_or_a_key_twice_stops_the_run(local_ray, exported, texts, tmp_path, line,
                                                                     problem):
    source = write_input(tmp_path / "in.jsonl", texts[:5])
    with open(source, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    with pytest.raises(AttentiveError) as error:
        batch.predict(source, exported, output=tmp_path / "out.jsonl", batch_size=8, concurrency=1)
    assert str(error.value) == f"{source}:6: {problem}"
    written = batch.predict(source, exported, output=tmp_path / "out.jsonl", batch_size=8, concurrency=1,
                            answer_key="answer") if "prediction" in line else None
    assert written is None or json.loads(written.read_text(encoding="utf-8").split("\n")[5])["answer"]["label"]


def test_wrong_calls_are_refused_before_ray_runs(exported, tmp_path):
    (tmp_path / "there.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(AttentiveError, match="exists: give overwrite=True"):
        batch.predict(tmp_path / "in.jsonl", exported, output=tmp_path / "there.jsonl")
    (tmp_path / "in.jsonl").write_text('{"text": "a fine film"}\n', encoding="utf-8")
    for output, problem in ((tmp_path / "in.jsonl", "is the input file"),  # the file rule, even with overwrite
                            (exported / "config.json", "is inside the folder of the model it reads"),
                            (tmp_path / "missing" / "out.jsonl", "does not exist")):
        with pytest.raises(AttentiveError, match=problem):
            batch.predict(tmp_path / "in.jsonl", exported, output=output, overwrite=True)
    assert not (tmp_path / "missing").exists() and (tmp_path / "in.jsonl").read_text() == '{"text": "a fine film"}\n'
    with pytest.raises(AttentiveError, match="not an exported model"):
        batch.predict(tmp_path / "in.jsonl", exported.parent / "run")
    with pytest.raises(AttentiveError, match="batch_size"):
        batch.predict(tmp_path / "in.jsonl", exported, batch_size=0)


def test_ray_is_imported_only_when_used_and_its_absence_is_one_line(exported, tmp_path, monkeypatch):
    script = "import sys, attentive.scoring.ray_batch; assert 'ray' not in sys.modules, 'ray imported'"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-600:]
    monkeypatch.setitem(sys.modules, "ray.data", None)  # as if attentive[ray] were not installed
    with pytest.raises(AttentiveError, match=r"pip install 'attentive\[ray\]'"):
        batch.predict(tmp_path / "in.jsonl", exported)
