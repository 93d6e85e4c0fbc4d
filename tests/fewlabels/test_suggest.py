"""`attentive suggest`'s choice (margin sampling kept diverse) and its pool files, on a model that is a table of
probabilities: no training."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from attentive.errors import AttentiveError
from attentive.fewlabels import choose_for_labelling
from attentive.fewlabels.suggest import rank_for_labelling, read_pool, suggestions_file


class Table:
    """A model whose probabilities are given by text."""

    labels = ["neg", "pos"]

    def __init__(self, probabilities: dict[str, float]):
        self.positive = probabilities

    def predict_proba(self, texts):
        return np.array([[1 - self.positive[t], self.positive[t]] for t in texts])


def test_the_least_certain_come_first_and_rewordings_do_not_crowd_out_the_rest():
    texts = ["refund my card now", "refund my card now please", "refund my card now today", "where is my parcel",
             "great service", "terrible service"]
    model = Table({texts[0]: 0.5, texts[1]: 0.51, texts[2]: 0.52, texts[3]: 0.6, texts[4]: 0.99, texts[5]: 0.01})
    chosen = rank_for_labelling(model, texts, 2)
    assert chosen[0].text == "refund my card now" and chosen[0].margin == pytest.approx(0.0)
    assert chosen[1].text == "where is my parcel", "the next rewording of the first is passed over for another text"
    assert chosen[1].guess == "pos" and chosen[1].runner_up == "neg" and "pos 0.60 or neg 0.40" in chosen[1].why()


def test_the_rows_chosen_are_the_rows_suggested_in_their_order():
    texts = ["a b", "c d", "e f", "g h", "i j"]
    model = Table(dict(zip(texts, [0.9, 0.58, 0.45, 0.7, 0.5])))
    assert choose_for_labelling(model, texts, 3) == [s.row for s in rank_for_labelling(model, texts, 3)] == [4, 2, 1]


def test_n_must_be_one_or_more():
    with pytest.raises(AttentiveError, match="n: give 1 or more"):
        rank_for_labelling(Table({"a": 0.5}), ["a"], 0)


def test_a_csv_pool_comes_back_in_its_own_format_with_its_ids_and_a_column_to_fill(tmp_path):
    pool = tmp_path / "pool.csv"
    pool.write_bytes("\ufeffid,message,channel\r\n7,\"refund, please\",mail\r\n9,where is it,chat\r\n".encode())
    read = read_pool(pool, "message")
    assert read.texts == ["refund, please", "where is it"] and read.bom
    chosen = rank_for_labelling(Table({"refund, please": 0.9, "where is it": 0.5}), read.texts, 2)
    written = suggestions_file(read, chosen).decode("utf-8")
    assert written.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(written.lstrip("\ufeff"))))
    assert [row["id"] for row in rows] == ["9", "7"] and rows[1]["message"] == "refund, please"
    assert list(rows[0]) == ["id", "message", "channel", "label", "guess", "guess_probability", "runner_up", "why"]
    assert rows[0]["label"] == "" and rows[0]["guess"] in ("neg", "pos")


def test_a_jsonl_pool_keeps_every_key(tmp_path):
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"id": 3, "text": "a"}\n{"id": 4, "text": "b", "extra": [1]}\n')
    read = read_pool(pool)
    chosen = rank_for_labelling(Table({"a": 0.5, "b": 0.7}), read.texts, 1)
    record = json.loads(suggestions_file(read, chosen))
    assert record["id"] == 3 and record["label"] is None and record["guess"] in ("neg", "pos")


def test_a_pool_without_its_text_column_is_one_line(tmp_path):
    pool = tmp_path / "pool.csv"
    pool.write_text("id,body\n1,x\n")
    with pytest.raises(AttentiveError, match="pool.csv:1: no column 'message' in the header"):
        read_pool(pool, "message")


def test_a_row_without_text_is_left_out_and_its_line_kept(tmp_path):
    pool = tmp_path / "pool.csv"
    pool.write_text("id,text\n1,a fine film\n2,\n3,a dull film\n")
    read = read_pool(pool)
    assert read.texts == ["a fine film", "a dull film"] and read.blank == [3]
    chosen = rank_for_labelling(Table({"a fine film": 0.9, "a dull film": 0.2}), read.texts, 2)
    assert {row["id"] for row in csv.DictReader(io.StringIO(suggestions_file(read, chosen).decode()))} == {"1", "3"}


@pytest.mark.parametrize("setting", [{"iterations": 0}, {"epochs": True}, {"batch_size": 1.5}])
def test_the_teachers_settings_are_integers_of_one_or_more(setting):
    from attentive.fewlabels.teacher import TeacherSettings

    with pytest.raises(AttentiveError, match=rf"teacher.{next(iter(setting))}=.*: must be an integer ≥ 1"):
        TeacherSettings(**setting)


def test_a_random_draw_is_seeded_distinct_and_guessed_where_there_is_a_model():
    from attentive.fewlabels import sample_for_labelling

    texts = [f"text {i}" for i in range(30)]
    first = sample_for_labelling(None, texts, 10, seed=3)
    assert [s.row for s in first] == [s.row for s in sample_for_labelling(None, texts, 10, seed=3)]
    assert [s.row for s in first] != [s.row for s in sample_for_labelling(None, texts, 10, seed=4)]
    assert len({s.row for s in first}) == 10 and all(s.guess is None and s.why() == "" for s in first)
    guessed = sample_for_labelling(Table({t: i / 30 for i, t in enumerate(texts)}), texts, 40, seed=3)
    assert len(guessed) == 30 and [s.row for s in guessed[:10]] == [s.row for s in first]
    assert guessed[0].guess in ("neg", "pos") and guessed[0].text == texts[guessed[0].row]


def test_suggest_random_without_a_model_writes_the_first_rows_to_label(tmp_path, capsys):
    from attentive.cli import main

    pool = tmp_path / "pool.csv"
    pool.write_bytes("\ufeffticket,body\r\n".encode() + "".join(f"T{i},message {i}\r\n" for i in range(20)).encode())
    target = tmp_path / "first.csv"
    assert main(["suggest", "--random", "--unlabelled", str(pool), "--n", "5", "--output", str(target),
                 "--text-column", "body", "--seed", "1"]) == 0
    written = target.read_bytes().decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(written.lstrip("\ufeff"))))
    assert written.startswith("\ufeff") and list(rows[0]) == ["ticket", "body", "label"]
    assert len({row["ticket"] for row in rows}) == 5 and all(row["label"] == "" for row in rows)
    assert "5 of 20 texts to label next, drawn at random (seed 1)" in capsys.readouterr().out
    assert main(["suggest", "--unlabelled", str(pool), "--output", str(tmp_path / "x.csv")]) == 2
    assert "give a model to ask (RUN), or --random" in capsys.readouterr().err


def test_a_partly_labelled_file_offers_only_its_rows_without_a_label(tmp_path, capsys):
    from attentive.cli import main

    sheet = tmp_path / "sheet.csv"
    sheet.write_text("id,body,label\n1,first text,pos\n2,second text,\n3,third text, \n4,fourth text,neg\n")
    read = read_pool(sheet, "body", "label")
    assert read.texts == ["second text", "third text"] and read.labelled == [2, 5]
    jsonl = tmp_path / "sheet.jsonl"
    jsonl.write_text('{"body": "a", "label": ["x"]}\n{"body": "b", "label": []}\n{"body": "c", "label": null}\n')
    assert read_pool(jsonl, "body", "label").texts == ["b", "c"]
    target = tmp_path / "next.csv"
    assert main(["suggest", "--random", "--unlabelled", str(sheet), "--text-column", "body", "--n", "5",
                 "--output", str(target)]) == 0
    assert [row["id"] for row in csv.DictReader(io.StringIO(target.read_text()))] in (["2", "3"], ["3", "2"])
    assert "2 rows with a 'label' already left out (line 2, 5)" in capsys.readouterr().err
    sheet.write_text("id,body,label\n1,first text,pos\n")
    assert main(["suggest", "--random", "--unlabelled", str(sheet), "--text-column", "body", "--output",
                 str(tmp_path / "none.csv"), "--overwrite"]) == 2
    assert "no row left to label" in capsys.readouterr().err
