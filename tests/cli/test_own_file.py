"""The whole path a user takes with their own spreadsheet export: a CSV with other column names, a byte order mark,
CRLF line ends, an empty message, a duplicate row and a label with a trailing space. `train --test` scores and saves
the test split; `evaluate`, `predict --input file.csv` and `explain` need no column option; the data report names
what is wrong with the data; Python's `model.evaluate("file.csv")` gives the CLI's numbers."""
from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

import attentive
from attentive.cli import main

from ..helpers import tiny_overrides

SAMPLE = Path(attentive.__file__).parent / "sample"
HEADER = ["id", "message", "category", "channel"]
COLUMNS = ["--text-column", "message", "--label-column", "category"]


def sample_rows(split: str, n: int) -> list[tuple[str, str]]:
    lines = (SAMPLE / f"sst2_{split}.tsv").read_text(encoding="utf-8").splitlines()[:n]
    return [tuple(line.split("\t", 1)) for line in lines]


def spreadsheet_csv(path: Path, rows: list[tuple[str, str]]) -> Path:
    """`rows` (label, text) as a spreadsheet writes them: a BOM, CRLF, an id and a channel column around them."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(HEADER)
    for number, (label, text) in enumerate(rows, start=1):
        writer.writerow([f"T{number}", text, label, "email" if number % 2 else "chat"])
    path.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    return path


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(arg) for arg in args])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def tickets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tickets")
    train = sample_rows("train", 300)
    train.insert(5, ("positive", ""))  # an empty message: file line 7 (the header is line 1)
    train.append(train[10])  # a duplicate row (another id)
    train[20] = ("negative ", train[20][1])  # a label with a trailing space
    test = sample_rows("test", 80)
    test.append(train[30])  # a test row that is also in train
    return {"train": spreadsheet_csv(folder / "tickets.csv", train),
            "test": spreadsheet_csv(folder / "tickets_test.csv", test), "folder": folder}


@pytest.fixture(scope="module")
def trained(tickets):
    out = tickets["folder"] / "run"
    settings = [part for entry in tiny_overrides("default") + ["train.epochs=1"] for part in ("--set", entry)]
    status, stdout, stderr = run(["train", "--train", tickets["train"], "--test", tickets["test"], *COLUMNS,
                                  "--out", out, *settings])
    assert status == 0, stderr
    return out, stdout + stderr


def test_train_test_prints_and_saves_the_test_score(trained, tickets):
    out, said = trained
    saved = json.loads((out / "eval-tickets_test.csv-test.json").read_text())
    assert saved["n"] == 81 and saved["split"] == "test"
    assert f"test accuracy {saved['accuracy']:.4f}" in said
    status, stdout, stderr = run(["evaluate", out, "--file", tickets["test"], "--output",
                                  tickets["folder"] / "eval.json"])
    assert status == 0, stderr
    evaluated = json.loads((tickets["folder"] / "eval.json").read_text())
    assert (evaluated["accuracy"], evaluated["macro_f1"], evaluated["n"]) == \
        (saved["accuracy"], saved["macro_f1"], saved["n"])
    model = attentive.load(out)
    in_python = model.evaluate(str(tickets["test"]))
    assert (in_python["accuracy"], in_python["macro_f1"], in_python["n"]) == \
        (saved["accuracy"], saved["macro_f1"], saved["n"])
    with tickets["test"].open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_texts = model.evaluate([row["message"] for row in rows], [row["category"] for row in rows])
    assert by_texts["accuracy"] == saved["accuracy"] and by_texts["n"] == saved["n"]


def test_the_model_remembers_its_columns(trained, tickets):
    out, _ = trained
    reading = json.loads((out / "config.json").read_text())["reading"]
    assert (reading["text_column"], reading["label_column"]) == ("message", "category")
    status, _, stderr = run(["evaluate", out])  # no named dataset to fall back on: told to give --file
    assert status == 2 and "--file" in stderr and "'message'" in stderr
    status, _, stderr = run(["export", out, "--out", tickets["folder"] / "exported"])
    assert status == 0, stderr
    exported = json.loads((tickets["folder"] / "exported" / "config.json").read_text())
    assert exported["reading"] == reading
    status, stdout, stderr = run(["evaluate", tickets["folder"] / "exported", "--file", tickets["test"],
                                  "--output", tickets["folder"] / "exported-eval.json"])
    assert status == 0, stderr
