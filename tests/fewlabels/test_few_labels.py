"""`attentive train --few-labels --compact` from 16 labelled texts a class and a pool of unlabelled ones, on the
bundled SST-2 sample, then `attentive suggest` on the pool: the SetFit teacher, the compact student distilled from it,
its int8 export, and a spreadsheet of the texts to label next with the pool's ids."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from attentive.cli import main
from attentive.fewlabels.teacher import FewLabelTeacher

pytestmark = pytest.mark.slow  # a MiniLM teacher fine-tuned, a student distilled

PER_CLASS = 16


def write_csv(path, header, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:  # as a spreadsheet saves it
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture(scope="module")
def few(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("few")
    train = sst2_small.splits["train"]
    labelled = [ex for label in sst2_small.labels for ex in [e for e in train if e.label == label][:PER_CLASS]]
    write_csv(folder / "small.csv", ["id", "message", "category"],
              [(f"L{i}", ex.text, ex.label) for i, ex in enumerate(labelled)])
    pool = [ex.text for ex in train if ex not in labelled][:240]
    write_csv(folder / "pool.csv", ["id", "message"], [(f"P{i}", text) for i, text in enumerate(pool)])
    write_csv(folder / "test.csv", ["id", "message", "category"],
              [(f"T{i}", ex.text, ex.label) for i, ex in enumerate(sst2_small.splits["test"][:100])])
    return folder


def test_from_a_handful_of_labels_to_a_deployed_compact_model(few, capsys):
    out = few / "runs" / "m"
    status = main(["train", "--few-labels", "--train", str(few / "small.csv"), "--test", str(few / "test.csv"),
                   "--text-column", "message", "--label-column", "category", "--unlabelled", str(few / "pool.csv"),
                   "--out", str(out), "--compact", "--teacher-iterations", "2"])
    said = capsys.readouterr()
    printed = said.out
    assert status == 0, printed
    assert "fixed rule, no dev split" in printed and "answers as its teacher on" in printed
    for chatter in ("embedding_loss", "train_runtime", "LOAD REPORT", "random weights", "Running training", "Map:"):
        assert chatter not in printed + said.err, f"the libraries' {chatter!r} reached the user"
    assert "test accuracy: teacher" in printed and "student" in printed
    teacher = FewLabelTeacher.load(few / "runs" / "m-teacher")
    assert teacher.labels == ["negative", "positive"] and teacher.card["labelled_texts"] == 2 * PER_CLASS
    assert json.loads((out / "config.json").read_text())["distillation"]["teachers"] == [str(few / "runs" /
                                                                                             "m-teacher")]
    assert (few / "runs" / "m-int8" / "model.int8.onnx").is_file()


def test_suggest_writes_the_pools_rows_with_their_ids_to_label(few, capsys):
    # the student and its export read files as its labelled file was read (text column message, label column
    # category, the column to fill in); the teacher is told the text column
    for model, name, told, label in ((few / "runs" / "m-int8", "student.csv", [], "category"),
                                     (few / "runs" / "m-teacher", "teacher.csv", ["--text-column", "message"],
                                      "label")):
        target = few / name
        assert main(["suggest", str(model), "--unlabelled", str(few / "pool.csv"), "--n", "12", "--output",
                     str(target), *told]) == 0
        with open(target, newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 12 and len({row["id"] for row in rows}) == 12
        assert all(row["id"].startswith("P") and row[label] == "" and row["guess"] in ("negative", "positive")
                   for row in rows)
        margins = [abs(2 * float(row["guess_probability"]) - 1) for row in rows]
        assert margins[0] <= sorted(margins)[len(margins) // 2], "the least certain text comes first"
    capsys.readouterr()


def test_the_pool_gets_two_augmented_copies_of_each_transfer_text_the_same_each_run():
    from attentive.fewlabels.pipeline import FewLabelRun
    from attentive.text.augment import Augmentation, augment_with_neighbours

    texts = ["the film is warm and funny", "a dull , slow and joyless ride"]
    two = Augmentation(copies=FewLabelRun(Path("m")).pool_copies)
    copies = augment_with_neighbours(texts, two, seed=0)
    assert len(copies) == 4 and copies == augment_with_neighbours(texts, Augmentation(copies=2), seed=0)
    assert all(copy.strip() for copy in copies) and copies != texts * 2
