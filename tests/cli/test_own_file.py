"""The whole path a user takes with their own spreadsheet export: a CSV with other column names, a byte order mark,
CRLF line ends, an empty message, a duplicate row and a label with a trailing space. `train --test` scores and saves
the test split; `evaluate`, `predict --input file.csv` and `explain` need no column option; the data report names
what is wrong with the data; Python's `model.evaluate("file.csv")` gives the CLI's numbers."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
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
    """The CLI's status, stdout and stderr (its consoles' too, whatever file they were given)."""
    cli_app = sys.modules["attentive.cli.app"]  # the package's `app` attribute is the Typer app

    out, err = io.StringIO(), io.StringIO()
    kept = cli_app.console._file, cli_app.err._file  # None: each writes to sys.stdout / sys.stderr as they are then
    cli_app.console.file, cli_app.err.file = out, err
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([str(arg) for arg in args])
    finally:
        cli_app.console._file, cli_app.err._file = kept
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


def test_the_data_report_names_the_empty_row_the_duplicate_and_the_label_spaces(trained):
    _, said = trained
    assert "1 empty text: line 7" in said
    assert "duplicate text" in said and "also in " in said
    assert "'negative ' (1x) read without the spaces around them, as 'negative'" in said


def test_the_python_api_says_the_same_of_the_label_spaces():
    from attentive.data.registry import load_texts

    data = load_texts(["a fine film", "dull", "great", "awful"] * 3, ["pos", "neg ", "pos", "neg"] * 3)
    assert data.labels == ["neg", "pos"]
    assert any("'neg ' (3x) read without the spaces around them" in line for line in data.warnings)


def test_predict_a_csv_gives_a_csv_every_column_kept_in_order(trained, tickets):
    out, _ = trained
    answers = tickets["folder"] / "answers.csv"
    status, _, stderr = run(["predict", out, "--input", tickets["test"], "--output", answers, "--top-k", "2"])
    assert status == 0, stderr
    raw = answers.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    with answers.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    with tickets["test"].open(encoding="utf-8-sig", newline="") as handle:
        given = list(csv.reader(handle))
    assert rows[0] == HEADER + ["prediction", "prediction_probability", "prediction_top_words"]
    assert [row[:4] for row in rows] == given
    model = attentive.load(out)
    assert [row[4] for row in rows[1:]] == [answer.label for answer in model.predict([row[1] for row in given[1:]])]
    assert all(0.5 <= float(row[5]) <= 1 for row in rows[1:])
    status, stdout, stderr = run(["predict", out, "--input", tickets["test"], "--top-k", "2"])  # to stdout
    assert status == 0, stderr
    assert stdout.replace("\r\n", "\n") == raw.decode("utf-8").replace("\r\n", "\n")


def test_predict_a_text_file_gives_json_lines_and_explain_needs_no_column(trained, tickets):
    out, _ = trained
    texts = tickets["folder"] / "texts.txt"
    texts.write_text("a gorgeous , witty film\n\ndull\n", encoding="utf-8")
    status, stdout, stderr = run(["predict", out, "--input", texts])
    assert status == 0, stderr
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [line["text"] for line in lines] == ["a gorgeous , witty film", "dull"]
    assert all("label" in line["prediction"] for line in lines)
    small = tickets["folder"] / "small.csv"
    spreadsheet_csv(small, sample_rows("test", 3))
    status, stdout, stderr = run(["explain", out, "--input", small])
    assert status == 0, stderr
