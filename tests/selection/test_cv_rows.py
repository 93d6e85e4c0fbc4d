"""cv's label-error report says where each suspect is in the user's file: the line its row starts on (blank lines,
dropped rows and multi-line rows counted as the file has them) and its id column's value. The folds are not trained
here: each fold's model is replaced by probabilities that make the rows marked "flip" suspects."""
from __future__ import annotations

import csv
import json
from types import SimpleNamespace

import numpy as np
import pytest

from attentive.cli import main
from attentive.data.example import Example
from attentive.data.readers.generic import read_table
from attentive.selection import cv as cv_module

LABELS = ["neg", "pos"]


@pytest.fixture
def fake_folds(monkeypatch):
    """Each fold 'answers' its test rows: the given label at 0.9, except rows whose text holds "flip" (0.05)."""

    def train_folds(jobs, processes):
        for job in jobs:
            test = job.data.splits["test"]
            given = np.array([LABELS.index(ex.label) for ex in test])
            own = np.array([0.05 if "flip" in ex.text else 0.9 for ex in test])
            probabilities = np.zeros((len(test), 2))
            probabilities[np.arange(len(test)), given] = own
            probabilities[np.arange(len(test)), 1 - given] = 1 - own
            yield cv_module.FoldResult(job.fold.number, {"accuracy": 0.5, "macro_f1": 0.5}, probabilities, 1, 0.5)

    def explanations(rows, examples, folds_dir):
        return [SimpleNamespace(evidence=None, attention=None) for _ in rows]

    monkeypatch.setattr(cv_module, "_train_folds", train_folds)
    monkeypatch.setattr(cv_module, "_explanations", explanations)


def write_file(path):
    """A CSV with an empty-text row (dropped), a blank line and a quoted two-line text before the flipped rows."""
    rows = ["key,text,label"]
    for i in range(12):
        rows.append(f"k{i},good film {i},pos")
        rows.append(f"n{i},bad film {i},neg")
        if i == 2:
            rows.append("gone,,pos")  # line 8: an empty text, dropped
            rows.append("")  # line 9: blank
            rows.append('two,"a film\nover two lines",pos')  # lines 10-11
    rows.append("f1,flip good film,neg")  # line 30
    rows.append("f2,flip bad film,pos")  # line 31
    path.write_text("\n".join(rows) + "\n")
    return path


def test_read_table_keeps_each_rows_line_and_id(tmp_path):
    path = write_file(tmp_path / "train.csv")
    examples = read_table(path).examples
    assert [ex.line for ex in examples[:8]] == [2, 3, 4, 5, 6, 7, 10, 12]
    assert [ex.id for ex in examples[:8]] == [None] * 8  # no column named id, none named
    examples = read_table(path, id_column="key").examples
    assert (examples[6].text, examples[6].line, examples[6].id) == ("a film\nover two lines", 10, "two")
    assert (examples[-1].line, examples[-1].id) == (31, "f2")
    assert examples[0] == Example("good film 0", "pos")  # where a row stands does not make it another example
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text('{"id": 7, "text": "a", "label": "x"}\n\n{"id": "b", "text": "b", "label": "y"}\n'
                       '{"text": "c", "label": "y"}\n')
    assert [(ex.line, ex.id) for ex in read_table(renamed).examples] == [(1, "7"), (3, "b"), (4, None)]


def test_label_errors_carry_the_files_line_and_id(tmp_path, fake_folds, capsys):
    path = write_file(tmp_path / "train.csv")
    out = tmp_path / "out"
    assert main(["cv", "--train", str(path), "--folds", "2", "--out", str(out), "--id-column", "key"]) == 0
    with open(out / "label_errors.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert sorted((row["line"], row["id"], row["text"]) for row in table) == [
        ("30", "f1", "flip good film"), ("31", "f2", "flip bad film")]
    assert sorted(int(row["row"]) for row in table) == [25, 26]  # the index among the rows read: not the line
    oof = [json.loads(line) for line in (out / "oof.jsonl").read_text().splitlines()]
    assert (oof[6]["line"], oof[6]["id"], oof[-1]["line"], oof[-1]["id"]) == (10, "two", 31, "f2")
    page = (out / "label_errors.html").read_text()
    assert "line 30, id f1" in page and "line 31, id f2" in page
    printed = capsys.readouterr().out
    assert "line" in printed


def test_a_column_named_id_is_the_id_by_default(tmp_path, fake_folds):
    import attentive

    path = tmp_path / "train.tsv"
    path.write_text("id\ttext\tlabel\n" + "".join(f"r{i}\tgood {i}\tpos\nq{i}\tbad {i}\tneg\n" for i in range(6))
                    + "\nflipped\tflip good\tneg\n")
    result = attentive.cv(train=str(path), folds=2, out=tmp_path / "out")
    assert [(row["line"], row["id"], row["text"]) for row in result.label_errors] == [(15, "flipped", "flip good")]
    assert result.examples[-1].line == 15
