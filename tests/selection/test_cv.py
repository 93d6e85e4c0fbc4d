"""`attentive cv` (issue 35 item 2): stratified k-fold cross-validation, out-of-fold probabilities and the
label-error report (confident learning). Tiny recipes, small subsets of the bundled SST-2 sample."""
from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest

import attentive
from attentive.cli import main
from attentive.data.example import Dataset, Example
from attentive.errors import AttentiveError
from attentive.selection.cv import fold_splits, label_issues
from attentive.training import pipeline

from ..helpers import tiny_overrides

pytestmark = pytest.mark.slow  # cross-validation trains a model per fold

RECIPE = "default"
FAST = tiny_overrides(RECIPE) + ["train.epochs=1"]
# 300 rows, 30 labels flipped. A tiny model learns too little from 270 SST-2 sentences to tell a flipped label from
# a hard one, so each sentence also ends with a cue word of its true class: a model that learns the cues gives the
# flipped rows a low out-of-fold probability of their given label; a random ranking puts 6 of the 30 in the top 60.
# Each fold runs its 15 epochs (the epoch its 20 dev texts choose is noise): over train.seed 0-3 the top 20 held 9 to
# 13 flipped rows and the top 60 held 17 to 20, so the bounds below leave a margin of a few rows for other CPUs.
PLANTED = tiny_overrides(RECIPE) + ["train.epochs=15", "train.patience=15", "train.lr=0.02"]
CUES = {"positive": ["superb", "wonderful", "delightful"], "negative": ["dreadful", "tedious", "awful"]}
FLIP = {"positive": "negative", "negative": "positive"}


def subset(sst2_small, n: int, name: str = "subset") -> Dataset:
    return Dataset(name, {"train": sst2_small.splits["train"][:n], "dev": [], "test": []}, list(sst2_small.labels))


@pytest.fixture(scope="module")
def planted(sst2_small, tmp_path_factory):
    """cv (3 folds) over 300 rows with 30 planted flipped labels; the datasets each fold was trained on, recorded."""
    rows = [Example(f"{ex.text} {CUES[ex.label][i % 3]}", ex.label)
            for i, ex in enumerate(sst2_small.splits["train"][:300])]
    flipped = set(random.Random(0).sample(range(len(rows)), 30))
    rows = [Example(ex.text, FLIP[ex.label]) if i in flipped else ex for i, ex in enumerate(rows)]
    data = Dataset("planted", {"train": rows, "dev": [], "test": []}, list(sst2_small.labels))
    trained, train = [], pipeline.train

    def recording(dataset, *args, **kwargs):
        trained.append(dataset)
        return train(dataset, *args, **kwargs)

    out = tmp_path_factory.mktemp("cv") / "planted"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "train", recording)
        result = attentive.cv(data, RECIPE, out, folds=3, overrides=PLANTED, seed=0)
    return result, rows, flipped, trained, out


def test_no_fold_tests_a_row_it_trained_or_chose_its_epoch_on(planted):
    result, rows, _, trained, _ = planted
    assert len({ex.text for ex in rows}) == len(rows)  # texts identify rows
    row_of = {ex.text: i for i, ex in enumerate(rows)}
    tested = []
    assert len(trained) == len(result.folds) == 3
    for fold, data in zip(result.folds, trained):  # jobs=1 trains the folds in order
        seen = {split: [row_of[ex.text] for ex in data.splits[split]] for split in ("train", "dev", "test")}
        assert seen == {"train": list(fold.train), "dev": list(fold.dev), "test": list(fold.test)}
        assert not set(seen["test"]) & (set(seen["train"]) | set(seen["dev"]))
        assert not set(seen["train"]) & set(seen["dev"]) and seen["dev"]
        assert len(seen["train"]) + len(seen["dev"]) + len(seen["test"]) == len(rows)
        tested += seen["test"]
    assert sorted(tested) == list(range(len(rows)))  # every row tested exactly once
    assert [int(f) for f in result.fold_of] == [next(f.number for f in result.folds if i in f.test)
                                                for i in range(len(rows))]


def test_fold_splits_are_stratified_seeded_and_disjoint():
    labels = ["a"] * 40 + ["b"] * 20 + ["c"] * 10
    folds = fold_splits(labels, 5, seed=3)
    assert folds == fold_splits(labels, 5, seed=3) and folds != fold_splits(labels, 5, seed=4)
    assert sorted(i for fold in folds for i in fold.test) == list(range(len(labels)))
    for fold in folds:
        assert [labels[i] for i in fold.test].count("c") == 2  # stratified: each class in every fold's share
        assert not set(fold.test) & (set(fold.train) | set(fold.dev)) and not set(fold.train) & set(fold.dev)
        assert {labels[i] for i in fold.dev} == {"a", "b", "c"}


def test_the_label_error_report_ranks_the_planted_flips_near_the_top(planted):
    result, rows, flipped, _, out = planted
    ranked = [error["row"] for error in result.label_errors]
    given = [result.labels.index(rows[r].label) for r in ranked]
    assert len(set(ranked) & flipped) > 0 and ranked == sorted(
        ranked, key=lambda r: (result.log_probabilities[r, result.labels.index(rows[r].label)], r))
    self_confidence = [result.probabilities[r, g] for r, g in zip(ranked, given)]
    assert self_confidence == sorted(self_confidence)  # the log-probabilities rank as the probabilities do
    np.testing.assert_allclose(np.exp([result.log_probabilities[r, g] for r, g in zip(ranked, given)]),
                               self_confidence, rtol=1e-4, atol=1e-7)
    # the top of the ranking is decided by the fold models, not by ties: no two suspects share a score there
    top = [result.log_probabilities[r, g] for r, g in zip(ranked[:20], given[:20])]
    assert len(set(top)) == len(top)
    found = len(set(ranked[:60]) & flipped)
    assert found >= 14, f"only {found} of the 30 flipped rows in the top 60 (random: about 6)"
    found = len(set(ranked[:20]) & flipped)
    assert found >= 7, f"only {found} of the 30 flipped rows in the top 20 (random: about 2)"
    # the files say the same
    summary = json.loads((out / "cv.json").read_text())
    assert summary["folds"] == 3 and len(summary["per_fold"]) == 3 and summary["n"] == 300
    accuracies = [fold["accuracy"] for fold in summary["per_fold"]]
    assert summary["accuracy"]["mean"] == pytest.approx(np.mean(accuracies))
    assert summary["accuracy"]["std"] == pytest.approx(np.std(accuracies))
    assert all(fold["best_epoch"] >= 1 and fold["n"] == 100 for fold in summary["per_fold"])
    assert summary["label_errors"]["suspects"] == len(ranked)
    oof = [json.loads(line) for line in (out / "oof.jsonl").read_text().splitlines()]
    assert [record["row"] for record in oof] == list(range(300))
    assert all(record["label"] == rows[record["row"]].label and record["text"] == rows[record["row"]].text
               and abs(sum(record["probabilities"].values()) - 1) < 1e-4 for record in oof)
    with open(out / "label_errors.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [int(row["row"]) for row in table] == ranked and table[0]["rank"] == "1"
    page = (out / "label_errors.html").read_text()
    assert page.count("class='text'") == min(len(ranked), 200) and 'class="w"' in page
    # each suspect leads with the words that decided the fold model's answer, signed, then its attention
    assert page.count("the words of most evidence for it") == min(len(ranked), 200)
    assert page.count('class="w ev"') > 0 and page.index('class="w ev"') < page.index('class="w"')
    assert attentive.load(out / "folds" / "1").labels == result.labels  # the fold models stay, loadable


def test_label_issues_follow_the_confident_joint():
    probabilities = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.6, 0.4, 0.0], [0.1, 0.8, 0.1],
                              [0.05, 0.05, 0.9], [0.3, 0.1, 0.6]])
    given = np.array([0, 0, 1, 1, 2, 2])
    suspects, thresholds = label_issues(probabilities, given)
    assert thresholds == pytest.approx([0.55, 0.6, 0.75])
    # row 1 (labelled 0, p1 0.7 >= t1) and row 2 (labelled 1, p0 0.6 >= t0); row 5's p2 0.6 < t2 and p0 < t0
    assert suspects == [(1, 1), (2, 0)]  # ranked by self-confidence: 0.2, then 0.4


def test_jobs_2_gives_the_figures_of_jobs_1(sst2_small):
    data = subset(sst2_small, 120)
    one = attentive.cv(data, RECIPE, folds=2, overrides=FAST, seed=1, jobs=1, threads=1)
    two = attentive.cv(data, RECIPE, folds=2, overrides=FAST, seed=1, jobs=2)
    assert [f["accuracy"] for f in one.summary["per_fold"]] == [f["accuracy"] for f in two.summary["per_fold"]]
    np.testing.assert_allclose(one.probabilities, two.probabilities, atol=1e-6)


def test_the_folder_rule(sst2_small, tmp_path, capsys):
    data = subset(sst2_small, 60)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(AttentiveError, match="did not write"):
        attentive.cv(data, RECIPE, out, folds=3, overrides=FAST)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    result = attentive.cv(data, RECIPE, out, folds=3, overrides=FAST, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == [".attentive-manifest.json", "cv.json", "folds", "label_errors.csv",
                                                     "label_errors.html", "notes.txt", "oof.jsonl"]
    assert sorted(p.name for p in (out / "folds").iterdir()) == ["1", "2", "3"] and result.out == out
    with pytest.raises(AttentiveError, match="already holds a cross-validation"):
        attentive.cv(data, RECIPE, out, folds=2, overrides=FAST)
    (out / "folds" / "1" / "mine.txt").write_text("mine")  # a file of the user's in a fold model's folder
    # through the command line, two folds now: the third fold's model, cv's own, is removed; nothing else is
    overrides = [arg for item in FAST for arg in ("--set", item)]
    train = tmp_path / "train.tsv"
    train.write_text("text\tlabel\n" + "".join(f"{ex.text}\t{ex.label}\n" for ex in data.splits["train"]))
    assert main(["cv", "--train", str(train), "--folds", "2", "--out", str(out), "--overwrite", *overrides]) == 0
    printed = capsys.readouterr().out
    assert "mean ± std" in printed and "suspected label errors" in printed and "cv.json" in printed
    assert sorted(p.name for p in (out / "folds").iterdir()) == ["1", "2"]
    assert (out / "notes.txt").read_text() == "mine" and (out / "folds" / "1" / "mine.txt").read_text() == "mine"
    assert json.loads((out / "cv.json").read_text())["folds"] == 2


@pytest.mark.parametrize("rows, folds, message", [
    ([("good", "pos")] * 12, 3, "two classes"),
    ([("good", "pos")] * 12 + [("bad", "neg")] * 2, 3, "'neg' has 2 rows, fewer than the 3 folds"),
    ([("good", "pos")] * 12 + [("bad", "neg")] * 12, 1, "at least 2|between 2 and|greater than or equal to 2"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, rows, folds, message):
    train = tmp_path / "train.tsv"
    train.write_text("text\tlabel\n" + "".join(f"{text} {i}\t{label}\n" for i, (text, label) in enumerate(rows)))
    assert main(["cv", "--train", str(train), "--folds", str(folds), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("error:")
    import re

    assert re.search(message, " ".join(error.split()))
    assert not (tmp_path / "out").exists()
