"""A partly labelled training file: with `train --few-labels` and no --unlabelled, the rows without a label are the
unlabelled texts; without --few-labels, or in a dev or test file, an empty label stays an error naming its line. The
few-label pipeline itself is replaced by a recorder: no teacher is trained here."""
from __future__ import annotations

import pytest

from attentive.cli import main
from attentive.data.readers.generic import read_table
from attentive.data.registry import load_files
from attentive.errors import DataError

TEXTS = [f"a {'warm and funny' if i % 2 else 'dull and joyless'} film {i}" for i in range(20)]
LABELS = [("pos" if i % 2 else "neg") if i < 12 else "" for i in range(20)]  # rows 12-19 (lines 14-21): none
SHEET = "\ufeffticket,body,verdict\r\n" + "".join(f"T{i},{text},{label}\r\n"
                                                   for i, (text, label) in enumerate(zip(TEXTS, LABELS)))


@pytest.fixture
def sheet(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_bytes(SHEET.encode("utf-8"))
    return path


def test_the_rows_without_a_label_are_set_aside_only_when_asked(sheet):
    found: list[str] = []
    rows = read_table(sheet, text_column="body", label_column="verdict", unlabelled_rows=found)
    assert len(rows.examples) == 12 and found == TEXTS[12:]
    with pytest.raises(DataError, match=r"sheet\.csv:14: empty label in column 'verdict': label the row, or leave it"):
        read_table(sheet, text_column="body", label_column="verdict")
    with pytest.raises(DataError, match=r"sheet\.csv:14: empty label"):  # a dev file's rows must all be labelled
        load_files(sheet, dev=sheet, text_column="body", label_column="verdict", unlabelled_rows=[])


def test_train_few_labels_takes_the_sheets_unlabelled_rows_as_its_pool(sheet, tmp_path, monkeypatch, capsys):
    import attentive.fewlabels as fewlabels

    given = {}

    def recorder(data, pool, run):
        given.update(labelled=sum(len(data.splits[s]) for s in ("train", "dev")), pool=list(pool))
        raise SystemExit(0)

    monkeypatch.setattr(fewlabels, "train_few_labels", recorder)
    with pytest.raises(SystemExit):
        main(["train", "--few-labels", "--train", str(sheet), "--text-column", "body", "--label-column", "verdict",
              "--out", str(tmp_path / "m")])
    assert given["labelled"] == 12 and len(given["pool"]) == 8 and given["pool"][0] == "a dull and joyless film 12"
    assert "its 8 rows without a label are the unlabelled texts" in capsys.readouterr().out
    assert not (tmp_path / "m").exists()


def test_without_few_labels_an_empty_label_says_few_labels_learns_from_it(sheet, tmp_path, capsys):
    assert main(["train", "--train", str(sheet), "--text-column", "body", "--label-column", "verdict",
                 "--out", str(tmp_path / "m")]) == 2
    assert "(`train --few-labels` learns from the rows without a label)" in capsys.readouterr().err
