"""`attentive tune` (attentive/selection/tune.py): an Optuna search of a recipe's `tune:` settings on a time budget, its
study resumed from OUT/study.db, the best model saved as a normal model folder, `--set` settings never searched,
`--max-size`, and the folder rule."""
from __future__ import annotations

import json
import re

import pytest

import attentive
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.recipes.types import SearchSpace
from attentive.selection.limits import parse_budget, parse_size
from attentive.selection.tune_report import tied_trials
from attentive.training.calibration import small_dev_warning

from ..helpers import tiny_overrides

pytestmark = pytest.mark.slow  # a study trains a model per trial

RECIPE = "default"
TINY = tiny_overrides(RECIPE)  # fixes train.lr and pooler.heads, among others: tune searches the rest
SEARCHED = {"train.wide_lr", "embedder.dropout", "head.dropout"}


def _set(overrides):
    return [arg for item in overrides for arg in ("--set", item)]


def _write(data, folder):
    paths = {}
    for split in ("train", "dev"):
        paths[split] = folder / f"{split}.tsv"
        paths[split].write_text("text\tlabel\n" + "".join(f"{ex.text}\t{ex.label}\n" for ex in data.splits[split]))
    return paths


def test_tune_finishes_on_its_budget_saves_a_loadable_best_and_resumes(sst2_small, tmp_path):
    out = tmp_path / "tune"
    first = attentive.tune(sst2_small, RECIPE, out, budget="12s", overrides=TINY, seed=1)
    table = json.loads((out / "trials.json").read_text())
    rows = table["trials"]
    assert len(rows) >= 2 and [row["number"] for row in rows] == list(range(len(rows)))
    assert {row["state"] for row in rows} <= {"complete", "pruned", "fail"}
    complete = [row for row in rows if row["state"] == "complete"]
    assert complete and first.best_dev_accuracy == max(row["dev_accuracy"] for row in complete)
    assert table["best"]["trial"] == first.best_trial and table["best"]["params"] == first.best_params
    assert (out / "tune.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (out / "study.db").is_file()
    assert not (out / "trials").exists()  # each trial's scratch folder is gone once it ends
    # the best model is a normal model folder, trained with the best trial's settings
    best = attentive.load(out / "best")
    assert best.predict(["a gorgeous , witty film", "a dull mess"]) and len(best.labels) == 2
    assert best.config["training"]["dev_accuracy"] == pytest.approx(first.best_dev_accuracy)
    assert best.config["tuning"]["trial"] == first.best_trial
    assert best.config["recipe"]["embedder"]["dropout"] == pytest.approx(first.best_params["embedder.dropout"])
    # the settings --set fixed are not searched, and every trial's model has their value
    for row in rows:
        assert set(row["params"]) == SEARCHED, row["params"]
    assert best.config["recipe"]["train"]["lr"] == 0.005 and best.config["recipe"]["pooler"]["heads"] == 3
    assert table["fixed"]["train.lr"] == 0.005 and "tune" not in best.config["recipe"]
    # a second call on the same folder resumes the study: more trials, the earlier ones kept as they were
    second = attentive.tune(sst2_small, RECIPE, out, budget="6s", overrides=TINY, seed=1)
    rows_after = json.loads((out / "trials.json").read_text())["trials"]
    assert len(rows_after) > len(rows) and rows_after[:len(rows)] == rows
    assert second.best_dev_accuracy >= first.best_dev_accuracy
    assert attentive.load(out / "best").config["tuning"]["trial"] == second.best_trial


def test_resuming_with_other_settings_or_starting_over(sst2_small, tmp_path):
    out = tmp_path / "tune"
    attentive.tune(sst2_small, RECIPE, out, budget="60s", trials=1, overrides=TINY)
    with pytest.raises(AttentiveError, match="holds a study of other settings .*fixed"):
        attentive.tune(sst2_small, RECIPE, out, budget="60s", trials=1, overrides=[*TINY, "head.dropout=0.3"])
    result = attentive.tune(sst2_small, RECIPE, out, budget="60s", trials=1,
                            overrides=[*TINY, "head.dropout=0.3"], overwrite=True)  # starts over
    rows = json.loads((out / "trials.json").read_text())["trials"]
    assert len(rows) == 1 and "head.dropout" not in rows[0]["params"] and result.fixed["head.dropout"] == 0.3
    assert attentive.load(out / "best").config["recipe"]["head"]["dropout"] == 0.3


def test_trials_within_one_standard_error_of_the_best_are_said_to_be_tied():
    rows = [{"number": n, "state": state, "dev_accuracy": accuracy} for n, state, accuracy in
            [(0, "complete", 1.0), (1, "complete", 1.0), (2, "pruned", 1.0), (3, "complete", 29 / 30),
             (4, "complete", 28 / 30), (5, "fail", None)]]
    tied = tied_trials(rows, 0, 30)
    # p = 1.0 on 30 texts, smoothed to 31/32: one standard error is 3.2 points, one text 3.3
    assert tied["standard_error"] == pytest.approx((31 / 32 * 1 / 32 / 30) ** 0.5)
    assert tied["trials"] == [0, 1] and tied["dev_texts"] == 30
    assert tied["note"].startswith("2 trials (0, 1) are within one standard error (3.2 points on 30 dev texts)")
    assert "attentive cv" in tied["note"]
    tied = tied_trials([{**row, "dev_accuracy": 0.9} if row["number"] == 3 else row for row in rows], 0, 30)
    assert tied["trials"] == [0, 1]  # 0.9 is 10 points, three texts, below
    alone = tied_trials(rows[:1] + rows[3:], 0, 3000)  # on 3000 texts a text less is outside one standard error
    assert alone["trials"] == [0] and alone["note"] is None
    assert tied_trials(rows, None, 30) is None


def test_the_command_tunes_files_and_says_no_trial_fit_a_size_too_small(sst2_small, tmp_path, capsys):
    paths = _write(sst2_small, tmp_path)
    out = tmp_path / "small"
    code = main(["tune", "--train", str(paths["train"]), "--dev", str(paths["dev"]), "--out", str(out),
                 "--budget", "5s", "--max-size", "2KB", *_set(TINY)])
    said = capsys.readouterr().err.strip().splitlines()
    error = "\n".join(line for line in said if not line.startswith("warning: "))
    assert code == 2 and len(error.splitlines()) == 1 and "no trial fit the size" in error, error
    # its 150 dev texts are said to be too few to choose a trial on, once, however many trials ran
    assert [line for line in said if line.startswith("warning: ")] == [
        f"warning: train.tsv: {small_dev_warning(150, 'a tuning trial, an epoch or a temperature')}"], said
    rows = json.loads((out / "trials.json").read_text())["trials"]
    assert rows and all(row["state"] == "pruned" and row["size"] > 2000 for row in rows)
    assert all(row["note"].startswith("too large") for row in rows)
    assert not (out / "best").exists() and not (out / "trials").exists()
    # a size every model fits: the command prints its table and the best settings
    code = main(["tune", "--train", str(paths["train"]), "--dev", str(paths["dev"]), "--out", str(tmp_path / "fit"),
                 "--budget", "60s", "--trials", "2", "--max-size", "1GB", *_set(TINY)])
    printed = capsys.readouterr().out
    unfolded = printed.replace("\n", "")  # rich folds a path longer than its 80 columns (pytest-xdist's tmp_path is)
    assert code == 0 and "best: trial" in printed and "trials.json" in unfolded and "embedder.dropout" in printed
    assert len(json.loads((tmp_path / "fit" / "trials.json").read_text())["trials"]) == 2


def _recipe_with(tmp_path, tune_text: str):
    path = tmp_path / "mine.yaml"
    path.write_text("description: mine\nencoder: {type: bigru, hidden: 16}\npooler: {type: lama, heads: 3}\n"
                    f"head: {{type: mlp, hidden: 16}}\n{tune_text}\n")
    return path


@pytest.mark.parametrize("tune_text, message", [
    ("tune: {train.lr: {log_uniform: [0, 0.01]}}", r"tune\.train\.lr must be \{log_uniform"),
    ("tune: {train.lr: {between: [0.001, 0.01]}}", r"tune\.train\.lr must be one search space"),
    ("tune: {head.dropout: {uniform: [0.5, 0.1]}}", r"low < high"),
    ("tune: {pooler.heads: {choice: []}}", r"one value at least"),
    ("tune: {lr: {uniform: [0.1, 0.2]}}", r"tune\.lr: a tuned setting is section\.key"),
    ("tune: [train.lr]", r"tune must be a mapping"),
    ("tune: {head.dropout: {uniform: [0.1, 1.5]}}", r"tune\.head\.dropout: 1\.5 is no value of the setting"),
])
def test_a_bad_tune_space_is_one_line(sst2_small, tmp_path, capsys, tune_text, message):
    recipe = _recipe_with(tmp_path, tune_text)
    paths = _write(sst2_small, tmp_path)
    out = tmp_path / "out"
    assert main(["tune", "--train", str(paths["train"]), "--dev", str(paths["dev"]), "--out", str(out), "--budget",
                 "5s", "--recipe", str(recipe)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("error:") and re.search(message, error), error
    assert not out.exists()


def test_the_recipe_loader_checks_the_tune_section(tmp_path):
    good = _recipe_with(tmp_path, "tune: {train.lr: {log_uniform: [0.0001, 0.003]}, embedder.dropout: "
                                  "{uniform: [0.0, 0.5]}, pooler.heads: {choice: [4, 8, 10]}, "
                                  "train.batch_size: {int: [16, 64]}}")
    spaces = load_recipe(str(good)).tune  # typed, and written back as they were given
    assert spaces["pooler.heads"] == SearchSpace.model_validate({"choice": [4, 8, 10]})
    assert spaces["pooler.heads"].values == (4, 8, 10) and spaces["train.batch_size"].kind == "int"
    assert load_recipe(str(good)).as_dict()["tune"]["pooler.heads"] == {"choice": [4, 8, 10]}
    with pytest.raises(AttentiveError, match="tune.train.batch_size must be"):
        load_recipe({**load_recipe("default").as_dict(), "tune": {"train.batch_size": {"int": [1.5, 8]}}})
    for shipped in ("default", "opinion"):  # the shipped spaces: the rates, dropouts and heads
        spaces = load_recipe(shipped).tune
        assert {"train.lr", "train.wide_lr", "embedder.dropout", "head.dropout", "pooler.heads"} <= set(spaces)


def test_a_recipe_without_spaces_or_with_every_space_fixed_is_one_line(sst2_small, tmp_path):
    recipe = {**load_recipe("avg").as_dict(), "tune": None}
    with pytest.raises(AttentiveError, match="nothing to tune .*no tune: section"):
        attentive.tune(sst2_small, recipe, tmp_path / "a", budget="5s")
    fixing = [f"{key}={value}" for key, value in (("train.lr", 0.001), ("train.wide_lr", 0.01),
                                                   ("embedder.dropout", 0.1), ("head.dropout", 0.1),
                                                   ("pooler.heads", 4))]
    with pytest.raises(AttentiveError, match="--set fixes every setting"):
        attentive.tune(sst2_small, RECIPE, tmp_path / "b", budget="5s", overrides=[*TINY, *fixing])
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_folder_rule(sst2_small, tmp_path, capsys):
    paths = _write(sst2_small, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    args = ["tune", "--train", str(paths["train"]), "--dev", str(paths["dev"]), "--out", str(out), "--budget", "60s",
            "--trials", "1", *_set(TINY)]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert "holds files attentive tune did not write" in error and "notes.txt" in error
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert main([*args, "--overwrite"]) == 0  # beside them: only tune's own files are written
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == [".attentive-manifest.json", "best", "notes.txt", "study.db",
                                                     "trials.json", "tune.png"]
    (out / "best" / "mine.txt").write_text("mine")  # a file of the user's in the best model's folder: refused
    assert main(args) == 2
    assert "did not write" in capsys.readouterr().err and (out / "best" / "mine.txt").read_text() == "mine"


@pytest.mark.parametrize("given, seconds", [("30s", 30), ("10m", 600), ("1h", 3600), ("1.5h", 5400), (90, 90)])
def test_budgets(given, seconds):
    assert parse_budget(given) == seconds


@pytest.mark.parametrize("given, size", [("5MB", 5_000_000), ("500KB", 500_000), ("2MiB", 2 * 2**20), (1000, 1000),
                                         (None, None)])
def test_sizes(given, size):
    assert parse_size(given) == size


@pytest.mark.parametrize("bad", ["ten minutes", "0s", "-5m"])
def test_a_bad_budget_is_one_line(bad, capsys):
    with pytest.raises(AttentiveError, match="budget"):
        parse_budget(bad)
    assert main(["tune", "--dataset", "sst2_sample", "--out", "unused", "--budget", bad]) == 2
    assert "budget" in capsys.readouterr().err


def test_a_failed_trial_is_recorded_and_skipped_and_ctrl_c_keeps_the_best(sst2_small, tmp_path, monkeypatch):
    from attentive.training import pipeline

    real, calls = pipeline.train, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("CUDA out of memory (a test's)")
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "train", flaky)
    out = tmp_path / "tune"
    result = attentive.tune(sst2_small, RECIPE, out, budget="10m", overrides=TINY)
    rows = json.loads((out / "trials.json").read_text())["trials"]
    assert [row["state"] for row in rows] == ["complete", "fail", "fail"] and result.interrupted
    assert "out of memory" in rows[1]["note"] and "Ctrl-C" in rows[2]["note"]
    assert result.best_trial == 0 and attentive.load(out / "best").config["tuning"]["trial"] == 0


def test_a_new_study_tries_the_recipe_s_own_settings_first(sst2_small, tmp_path):
    """Trial 0 is the recipe as it stands (each searched setting at the recipe's value), so a search that finds
    nothing better reports the recipe itself; a value outside its space is left to the sampler."""
    from attentive.recipes.loader import entry
    from attentive.selection.tune import own_settings

    result = attentive.tune(sst2_small, RECIPE, tmp_path / "tune", trials=1, overrides=TINY, seed=3)
    recipe = load_recipe(RECIPE, TINY)
    [row] = result.trials
    assert row["params"] == {key: entry(recipe.as_dict(), key) for key in SEARCHED}
    spaces = {"train.lr": {"log_uniform": [0.01, 0.1]}, "pooler.heads": {"choice": [3, 5]},
              "head.dropout": {"uniform": [0.0, 0.9]}}
    spaces = {key: SearchSpace.model_validate(space) for key, space in spaces.items()}
    assert own_settings(recipe, spaces) == {"pooler.heads": 3, "head.dropout": recipe.head.dropout}


def test_compact_exports_the_best_model_int8_and_compares_the_two(sst2_small, tmp_path, capsys):
    paths = _write(sst2_small, tmp_path)
    out = tmp_path / "out"
    args = ["tune", "--train", str(paths["train"]), "--dev", str(paths["dev"]), "--out", str(out), "--budget", "60s",
            "--trials", "1", "--compact", *_set(TINY)]
    (out / "best-int8").mkdir(parents=True)
    (out / "best-int8" / "mine.txt").write_text("mine")  # not tune's to write: refused before the search
    assert main(args) == 2
    assert "did not write" in capsys.readouterr().err and not (out / "study.db").exists()
    (out / "best-int8" / "mine.txt").unlink()
    assert main(args) == 0
    printed = capsys.readouterr().out.replace("\n", " ")
    assert (out / "best-int8" / "model.int8.onnx").is_file() and (out / "best" / "model.safetensors").is_file()
    assert "dev accuracy" in printed and "texts/s" in printed and "the int8:" in printed and "of the best" in printed
    assert attentive.load(out / "best-int8").predict(["a fine film"])[0].label in ("negative", "positive")
    # resumed: its own export of the best model is replaced without --overwrite, as OUT/best is
    assert main(args) == 0
    assert len(json.loads((out / "trials.json").read_text())["trials"]) == 2
    assert (out / "best-int8" / "model.int8.onnx").is_file()
