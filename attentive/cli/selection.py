"""`attentive analyze`, `cv` and `tune`: reports on a model, cross-validation and the search of a recipe."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ..selection.limits import parse_budget, parse_size
from ..util.run_settings import RunSettings
from .app import _report_data, _use_threads, app, console, said_as_warnings
from .options import (
    AspectColumn,
    DataDir,
    Dataset,
    DevFile,
    Device,
    LabelColumn,
    LabelledFile,
    ModelDataset,
    ModelLabelColumn,
    ModelTextColumn,
    Overrides,
    PairColumn,
    Recipe,
    Split,
    TextColumn,
    Threads,
    TrainFile,
    checked_by,
    data_source,
    load_data,
    retold,
    scored_data,
)


@app.command()
def analyze(
    run: Path = typer.Argument(..., help="a saved model folder"),
    out: Path = typer.Option(..., "--out", help="report folder: PNGs, CSV/JSON and index.html"),
    dataset: Optional[str] = ModelDataset,
    split: str = Split,
    test_file: Optional[Path] = LabelledFile,
    text_column: Optional[str] = ModelTextColumn,
    label_column: Optional[str] = ModelLabelColumn,
    limit: Optional[int] = typer.Option(2000, "--limit", min=0, help="analyse a seeded sample of this many texts "
                                                                  "(0: all)"),
    words: list[str] = typer.Option([], "--word", help="words whose weight distribution to plot (default: the top "
                                                         "attended words of each class)"),
    min_count: int = typer.Option(5, "--min-count", help="top words: least occurrences of a word in a class"),
    compare: list[Path] = typer.Option([], "--compare", help="other runs whose training curves join the plot"),
    deletion: bool = typer.Option(True, "--deletion/--no-deletion", help="run the deletion test"),
    overwrite: bool = typer.Option(False, "--overwrite", help="write the report into a folder holding other files "
                                                            "(only the report's own files are replaced)"),
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
):
    """What a model attends to over a whole split, and whether its attention explains its decisions."""
    from ..answer.length import length_line
    from ..api import load
    from ..explain.report import check_compared

    check_compared(compare)  # a run to compare that is none is refused before the model is read
    _use_threads(threads)
    model = load(run)
    data, split = scored_data(model, split, test_file, dataset=dataset, data_dir=data_dir, text_column=text_column,
                              label_column=label_column)
    _report_data(data)
    console.print(f"analysing up to {limit or 'all'} of the {len(data.splits.get(split) or [])} {data.name}/{split} "
                  "texts")
    summary = model.analyze(data, out, split, limit or None, words, min_count, compare, deletion, overwrite=overwrite)
    if "accuracy_by_length" in summary:
        console.print(length_line(summary["accuracy_by_length"]))
    if "deletion" in summary:
        console.print(f"deletion test: {summary['deletion']['verdict']}")
    console.print(f"written {out / 'index.html'}")


@app.command()
def cv(
    out: Path = typer.Option(..., "--out", help="folder for cv.json, oof.jsonl, label_errors.csv/.html and the fold "
                                                "models (folds/K)"),
    dataset: Optional[str] = retold(Dataset, "a dataset name from `attentive datasets` (its train split is "
                                             "cross-validated)"),
    train_file: Optional[Path] = retold(TrainFile, "your own labelled file (CSV/TSV/JSONL), read whole"),
    folds: int = typer.Option(10, "--folds", min=2, help="stratified folds (2 or more)"),
    recipe: str = Recipe,
    set_: list[str] = Overrides,
    seed: int = typer.Option(13, "--seed", help="seeds the folds and each fold's dev split (the networks': "
                                                "--set train.seed=N)"),
    jobs: int = typer.Option(1, "--jobs", min=1, help="folds trained at once, each in a process of --threads threads "
                                               "(default 1)"),
    text_column: str = TextColumn,
    label_column: str = LabelColumn,
    pair_column: Optional[str] = PairColumn,
    aspect_column: Optional[str] = AspectColumn,
    id_column: Optional[str] = typer.Option(None, "--id-column", help="your file's column naming each row, carried "
                                            "into label_errors.csv and oof.jsonl beside the row's line (default: a "
                                            "column named id, where there is one)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the cross-validation OUT holds, or write "
                                                            "beside other files (only cv's own are replaced)"),
    device: str = Device,
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
):
    """Stratified k-fold cross-validation: accuracy and macro-F1 per fold and mean ± std, every row's out-of-fold
    probabilities, and the rows whose label looks wrong (confident learning), as CSV and as an HTML page."""
    from ..selection.cv import cv as cross_validate

    if jobs == 1:
        _use_threads(threads)

    def report(found, total):
        console.print(f"fold {found.number}/{total}: accuracy {found.metrics['accuracy']:.4f}  macro-F1 "
                      f"{found.metrics['macro_f1']:.4f}  (best epoch {found.best_epoch})")

    data_source(dataset=dataset, train_file=train_file)  # none or both: one line, before anything is written
    settings = RunSettings(out, data_dir, device, threads, overwrite, show_progress=False)
    result = cross_validate(dataset, recipe, None, folds, set_, seed, jobs, settings=settings, train=train_file,
                            text_column=text_column, label_column=label_column, pair_column=pair_column,
                            aspect_column=aspect_column, id_column=id_column, on_fold=report)
    summary = result.summary
    table = Table("fold", "train", "dev", "test", "best epoch", "accuracy", "macro-F1",
                  title=f"{summary['dataset']}: {summary['folds']}-fold cross-validation of {summary['recipe']}")
    for row in summary["per_fold"]:
        table.add_row(str(row["fold"]), str(row["train"]), str(row["dev"]), str(row["n"]), str(row["best_epoch"]),
                      f"{row['accuracy']:.4f}", f"{row['macro_f1']:.4f}")
    accuracy, f1 = summary["accuracy"], summary["macro_f1"]
    table.add_row("mean ± std", "", "", str(summary["n"]), "", f"{accuracy['mean']:.4f} ± {accuracy['std']:.4f}",
                  f"{f1['mean']:.4f} ± {f1['std']:.4f}", style="bold")
    console.print(table)
    errors = summary["label_errors"]
    thresholds = ", ".join(f"{label} {t:.3f}" for label, t in errors["thresholds"].items())
    console.print(f"suspected label errors: {errors['suspects']} of {summary['n']} rows (thresholds: {thresholds})")
    if result.label_errors:
        top = Table("rank", "line" if train_file is not None else "row", "given", "suggested", "p(given)", "text")
        for row in result.label_errors[:5]:
            where = row["line"] if train_file is not None else row["row"]
            top.add_row(str(row["rank"]), str(where), Text(row["given"]), Text(row["suggested"]),
                        f"{row['self_confidence']:.3f}", Text(row["text"][:80]))
        console.print(top)
    console.print(f"written {', '.join(str(path) for path in result.written)}; fold models in {out / 'folds'}")


@app.command()
def tune(
    out: Path = typer.Option(..., "--out", help="folder for the study (study.db), the best model (best/), trials.json "
                                                "and tune.png; a study already there is resumed"),
    dataset: Optional[str] = Dataset,
    train_file: Optional[Path] = TrainFile,
    dev_file: Optional[Path] = DevFile,
    budget: str = typer.Option("10m", "--budget", callback=checked_by(parse_budget),
                               help="time to search: 30s, 10m, 1h (no trial starts after it)"),
    max_size: Optional[str] = typer.Option(None, "--max-size", callback=checked_by(parse_size),
                                            help="largest model folder a trial may make, e.g. 5MB (larger "
                                                 "trials are pruned)"),
    recipe: str = retold(Recipe, "a recipe name or a YAML file; its tune: section is the search space"),
    set_: list[str] = retold(Overrides, "fix a recipe entry (not searched): section.key=value"),
    trials: Optional[int] = typer.Option(None, "--trials", min=1, help="at most this many trials in this call"),
    compact: bool = typer.Option(False, "--compact", help="then export the best model int8 into OUT/best-int8 (the "
                                                          "model to serve) and compare the two side by side, as "
                                                          "train --compact does"),
    seed: int = typer.Option(0, "--seed", help="seeds the sampler (the networks': --set train.seed=N)"),
    text_column: str = TextColumn,
    label_column: str = LabelColumn,
    pair_column: Optional[str] = PairColumn,
    aspect_column: Optional[str] = AspectColumn,
    overwrite: bool = typer.Option(False, "--overwrite", help="start over in a folder holding a study, or write "
                                                            "beside other files (only tune's own are replaced)"),
    device: str = Device,
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
):
    """Search a recipe's settings (its tune: section) with Optuna on a time budget; the best dev accuracy wins and
    its model is saved to OUT/best. A second call with the same OUT resumes the study."""
    from ..selection.limits import human_size
    from ..selection.tune import tune as run_tune
    from ..training.calibration import SmallDevWarning

    _use_threads(threads)
    if compact:  # the folders --compact writes are checked before the search: a refusal costs no trial
        compacting = _check_compact(out, recipe, set_, overwrite)
    data = load_data(dataset=dataset, train_file=train_file, dev_file=dev_file, text_column=text_column,
                     label_column=label_column, pair_column=pair_column, aspect_column=aspect_column,
                     data_dir=data_dir)
    _report_data(data)

    def report(row):
        dev = "" if row["dev_accuracy"] is None else f"dev {row['dev_accuracy']:.4f}  "
        console.print(Text(f"trial {row['number']}: {row['state']}  {dev}({row['seconds']}s"
                           f"{', ' + human_size(row['size']) if row['size'] else ''})"
                           + (f"  {row['note']}" if row["note"] else "")))

    with said_as_warnings(SmallDevWarning):  # a dev split too small to choose a trial on, said once
        result = run_tune(data, recipe, out, budget, max_size, set_, trials, seed, on_trial=report,
                          settings=RunSettings(data_dir=data_dir, device=device, overwrite=overwrite))
    keys = sorted({key for row in result.trials for key in row["params"]})
    table = Table("trial", "state", "dev accuracy", "seconds", "size", *keys,
                  title=f"{data.name}: tuning {recipe}" + (f" ({len(set_)} settings fixed by --set)" if set_ else ""))
    for row in result.trials:
        table.add_row(str(row["number"]), row["state"],
                      "" if row["dev_accuracy"] is None else f"{row['dev_accuracy']:.4f}",
                      "" if row["seconds"] is None else f"{row['seconds']:.1f}", human_size(row["size"]),
                      *(_tuned_value(row["params"].get(key)) for key in keys),
                      style="bold" if row["number"] == result.best_trial else None)
    console.print(table)
    if result.importances:
        console.print("importance: " + ", ".join(f"{key} {value:.2f}" for key, value in result.importances.items()))
    settings = ", ".join(f"{key}={_tuned_value(value)}" for key, value in result.best_params.items())
    console.print(Text(f"best: trial {result.best_trial}, dev accuracy {result.best_dev_accuracy:.4f} ({settings})"))
    if result.tied and result.tied["note"]:  # trials dev's noise cannot tell apart
        console.print(Text(result.tied["note"]), soft_wrap=True)
    if result.interrupted:
        console.print("stopped by Ctrl-C: the best so far is kept")
    console.print(f"best model in {out / 'best'}; trial table {out / 'trials.json'}, plot {out / 'tune.png'}, "
                  f"study {out / 'study.db'} (run again with the same --out to resume)")
    if compact:
        from ..folders.manifest import writing_for
        from .training import _compact

        owner, replacing = compacting
        with writing_for(owner):  # written for OUT, as OUT/best is: tune's folder rule knows them as its own
            _compact(result.model, data, replacing, data_dir, device, threads, "best")


def _check_compact(out: Path, recipe: str, set_: list[str], overwrite: bool):
    """`tune --compact`: the folders it writes for OUT/best refused now where they are not its to write (the
    folder rule); returns (the owner they are written for, whether they may be replaced: with --overwrite, or where
    they hold only what an earlier `tune --compact` of OUT wrote)."""
    from ..distill.compact import check_deployable_folders, holds_only_own
    from ..folders.manifest import Owner, writing_for
    from ..recipes.loader import load_recipe
    from ..selection.tune import BEST

    typed = load_recipe(recipe, list(set_))
    owner = Owner.of("tune", out)
    replacing = overwrite or holds_only_own(out / BEST, typed, owner)
    with writing_for(owner):
        check_deployable_folders(out / BEST, typed, replacing)
    return owner, replacing


def _tuned_value(value) -> str:
    return "" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)
