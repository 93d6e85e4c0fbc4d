"""`predict --input file.csv --probabilities`: a column of each label's probability after the answer's own, streamed
to stdout or written with --output, every column of the input kept."""
from __future__ import annotations

import csv
import io

import pytest

import attentive
from attentive.cli import main


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("id,text\n1,a gorgeous film\n2,\"dull , dull , dull\"\n", encoding="utf-8")
    return path


def rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("to_file", [False, True])
def test_each_labels_probability_gets_a_column(tiny_run, table, tmp_path, capsys, to_file):
    output = tmp_path / "answers.csv"
    args = ["predict", str(tiny_run), "--input", str(table), "--probabilities"]
    assert main([*args, *(["--output", str(output)] if to_file else [])]) == 0
    rows = rows_of(output.read_text() if to_file else capsys.readouterr().out)
    labels = attentive.load(tiny_run).labels
    assert list(rows[0])[:2] == ["id", "text"] and [row["id"] for row in rows] == ["1", "2"]
    assert [name for name in rows[0] if name.startswith("prediction_p_")] == [f"prediction_p_{x}" for x in labels]
    for row in rows:
        values = [float(row[f"prediction_p_{label}"]) for label in labels]
        assert sum(values) == pytest.approx(1.0, abs=1e-4)
        assert float(row["prediction_probability"]) == pytest.approx(max(values), abs=1e-5)


def test_without_the_option_no_probability_columns(tiny_run, table, capsys):
    assert main(["predict", str(tiny_run), "--input", str(table)]) == 0
    assert not [name for name in rows_of(capsys.readouterr().out)[0] if name.startswith("prediction_p_")]
