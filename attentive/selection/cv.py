"""`attentive cv` (`attentive.cv`): stratified k-fold cross-validation over a training split, with every row's
out-of-fold probabilities and a report of the rows whose given label looks wrong (confident learning, Northcutt et al.
2021).

    result = attentive.cv("mr", folds=10, out="runs/mr-cv")     # or train="data.csv", or texts=, labels=
    result.summary["accuracy"]          # {"mean": ..., "std": ...}
    result.label_errors[:5]             # the most suspect rows, ranked

Each fold's held-out tenth (with `folds=10`) is its test; a seeded stratified dev split carved from the fold's other
rows (`data/splits.py:carve_dev`) chooses the epoch, and the fold is trained by the ordinary pipeline
(`training/pipeline.py:train`) into `OUT/folds/K/`, a normal model folder (loadable with `attentive.load`). The
folds' test parts are disjoint and together hold every row once, so every row gets one out-of-fold probability
vector, from the one model that never saw it. `jobs` > 1 trains folds in that many processes of one thread each
(forked from a server that imported the trainer once, attentive/util/processes.py); each fold is seeded on its own,
so the figures do not depend on `jobs`.

The output folder follows the folder rule (attentive/folders/output.py): `CV_RUN` names the files cv writes
(cv.json, oof.jsonl, label_errors.csv, label_errors.html, and the fold models under folds/); nothing else there is
ever replaced or removed.
"""
from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..data.example import Dataset, Example
from ..data.source import DataSource
from ..errors import AttentiveError
from ..folders.manifest import Owner, remove_owned, writing_for
from ..folders.output import OutputKind, check_contents, claim, is_hidden
from ..recipes.for_data import recipe_for_data
from ..recipes.types import Recipe
from ..util.run_settings import RunSettings
from .folds import Fold, check_fold_training, check_folds, fold_splits

SUMMARY, OOF, ERRORS_CSV, ERRORS_HTML, FOLDS = "cv.json", "oof.jsonl", "label_errors.csv", "label_errors.html", "folds"
MAX_FOLDS = 100
HTML_ROWS = 200  # suspects shown, with their evidence and attention, on label_errors.html (the CSV lists them all)
EVIDENCE_WORDS = 5  # the words of most evidence named above each suspect's evidence row
CV_DATA = frozenset({"texts", "labels", "train", "text_column", "label_column", "pair_column", "aspect_column",
                     "id_column"})
CV_FILES = frozenset({SUMMARY, OOF, ERRORS_CSV, ERRORS_HTML})
CV_RUN = OutputKind(command="cv", output="a cross-validation", files=CV_FILES,
                    holds_output=lambda folder: (folder / SUMMARY).is_file(),
                    folders={FOLDS: frozenset(str(k) for k in range(1, MAX_FOLDS + 1))})


@dataclass
class FoldJob:
    """What one process needs to train and test one fold (picklable, for the worker processes): `settings.out` is
    the fold's model folder, `settings.threads` the threads it computes with (None: as they are)."""

    fold: Fold
    data: Dataset
    recipe: Recipe
    settings: RunSettings
    owner: Owner | None = None  # the output folder the fold writes for (cv's OUT); None without one


@dataclass(frozen=True)
class CVRun:
    """What one `cv` call cross-validates, and how: its rows and folds, the typed recipe (`name`: as the summary
    names it), the folds' seed, the processes, the run's settings and the callback, passed as one to `_run`."""

    data: Dataset
    examples: list[Example]
    splits: list[Fold]
    recipe: Recipe
    name: str
    seed: int
    jobs: int
    settings: RunSettings
    on_fold: Callable[[FoldResult, int], None] | None = None


@dataclass
class FoldResult:
    number: int
    metrics: dict
    probabilities: np.ndarray  # the fold's test rows x labels
    best_epoch: int | None
    dev_accuracy: float | None
    log_probabilities: np.ndarray | None = None  # their logarithms, from the logits (never -inf, never a tie at 0)


@dataclass
class CVResult:
    """What `cv` found: `summary` (cv.json's content), `probabilities` (every row's out-of-fold probabilities, rows
    x `labels`), `fold_of` (each row's test fold, from 1), `folds` (each fold's row indices), `label_errors` (the
    suspected rows, most suspect first, as label_errors.csv lists them: `row`, the row's index in `examples`, and
    for a file, `line`, the line of the file it starts on, and `id`, its id column's value), `examples` (the rows,
    each with its `line` and `id`), `out` and
    `log_probabilities` (the logarithms of `probabilities`, computed from the logits: what ranks the suspects)."""

    summary: dict
    labels: list[str]
    examples: list[Example]
    probabilities: np.ndarray
    fold_of: np.ndarray
    folds: list[Fold]
    label_errors: list[dict]
    out: Path | None = None
    written: list[Path] = field(default_factory=list)
    log_probabilities: np.ndarray | None = None


def cv(dataset: str | Dataset | DataSource | None = None, recipe: str | dict | Recipe = "default",
       out: str | Path | None = None, folds: int = 10, overrides: list[str] | str | None = None, seed: int = 13,
       jobs: int = 1, dev_fraction: float = 0.1, *, settings: RunSettings | None = None,
       on_fold: Callable[[FoldResult, int], None] | None = None, **given) -> CVResult:
    """Stratified `folds`-fold cross-validation of `recipe` over a training split (see the module's docstring).

    The data is one of: a named dataset or a `Dataset` (its train split; a named dataset without an official dev
    split is read whole, no dev carved), `texts=` and `labels=`, or `train=` (a CSV/TSV/JSONL file, read whole,
    with `text_column=`, `label_column=`, `pair_column=`, `aspect_column=`, and `id_column=`, the column naming each
    row in the reports, by default one named `id` where the file has it), or a `DataSource` of them. The run goes
    as `settings` says (an `attentive.RunSettings`: `data_dir`, `device`, `threads`, `overwrite`, `show_progress`,
    default off), each of its fields also a keyword (`device="cpu"`) that wins over it; `out` is its `out`. Every
    other keyword is a setting of the recipe (`epochs=3`), as in `attentive.train`.
    `seed` seeds the folds (scikit-learn's StratifiedKFold) and each fold's dev split (`dev_fraction` of the fold's
    training rows); the networks' seed is the recipe's `train.seed`. `overrides` and the recipe's keywords change the
    recipe as in `attentive.train`. With `out`, writes cv.json, oof.jsonl, label_errors.csv, label_errors.html and
    the fold models (folds/1 ... folds/K) there; without it the fold models live in a temporary folder and nothing
    is written. `jobs`: folds trained at once, each in its own process computing with `threads` threads (default
    1); with `jobs=1` the folds train in this process with `threads` (None: as it is). `on_fold(result, folds)` is
    called as each fold finishes. One class, a class with fewer rows than `folds`, `folds` < 2, rows without a
    label, multi-label data, a fold left without training rows of two labels or a dev row, `resume` (cv has none)
    and `threads` that is not None or an integer ≥ 1 are one line (AttentiveError)."""
    from ..data.keywords import split_keywords
    from ..util.checks import check_threads, overrides_argument

    source, settings, recipe_settings = split_keywords(dataset, settings, given, CV_DATA, out)
    if settings.resume:
        raise AttentiveError("cv has no resume: a cross-validation starts over (give overwrite=True)")
    threads = settings.threads

    if isinstance(folds, bool) or not isinstance(folds, int) or not 2 <= folds <= MAX_FOLDS:
        raise AttentiveError(f"folds: cross-validation needs between 2 and {MAX_FOLDS} folds (got {folds!r})")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise AttentiveError(f"jobs: give 1 or more processes (got {jobs!r})")
    check_threads(threads)
    if not 0 < dev_fraction < 1:
        raise AttentiveError(f"dev_fraction: give a fraction between 0 and 1 (got {dev_fraction!r})")
    data = source.load(dev_fraction=0.0)  # every row in train, no dev carved from it
    examples = list(data.splits["train"])
    if data.multi_label:
        raise AttentiveError(f"{data.name}: its labels are sets (multi-label data), which cross-validation does not "
                             "support (its folds are stratified by each row's one label): train with a dev split "
                             "instead (attentive train)")
    check_folds(data.name, [ex.label for ex in examples], folds)
    # the run's one parse of its recipe, before any fold trains; the summary names it as it was given
    typed = recipe_for_data(data, recipe, overrides_argument(overrides), recipe_settings)
    name = recipe if isinstance(recipe, str) else typed.name
    splits = fold_splits([ex.label for ex in examples], folds, seed, dev_fraction)
    check_fold_training(data.name, [ex.label for ex in examples], splits)
    run = CVRun(data, examples, splits, typed, name, seed, jobs, settings, on_fold)
    if settings.out is None:
        with tempfile.TemporaryDirectory(prefix="attentive-cv-") as scratch:
            return _run(replace(run, settings=replace(settings, overwrite=True)), Path(scratch), None)
    out = Path(settings.out)
    with claim(out, CV_RUN, overwrite=settings.overwrite) as folder:
        return _run(run, out / FOLDS, folder)


def _run(run: CVRun, folds_dir: Path, folder) -> CVResult:
    """Train and test every fold of `run` (their models in `folds_dir`), then rank the suspects; with `folder` (cv's
    claimed OUT), write cv.json, oof.jsonl and the label-error files there."""
    from ..training.pipeline import TRAINING_RUN

    data, examples, splits, settings, jobs = run.data, run.examples, run.splits, run.settings, run.jobs
    owner = folder.owner if folder is not None else None
    for fold in splits:  # a fold folder the run may not write fails now, not after the folds before it trained
        fold_folder = folds_dir / str(fold.number)
        if fold_folder.is_dir():
            check_contents(fold_folder, replace(TRAINING_RUN, command="cv", alternatives=""), settings.overwrite,
                           owner)
    threads = settings.threads if jobs == 1 else settings.threads or 1
    jobs_ = [FoldJob(fold, _fold_data(data, examples, fold), run.recipe,
                     replace(settings, out=folds_dir / str(fold.number), threads=threads,
                             show_progress=settings.progress(False) and jobs == 1), owner) for fold in splits]
    results = {}
    for result in _train_folds(jobs_, jobs):
        results[result.number] = result
        if run.on_fold is not None:
            run.on_fold(result, len(splits))
    probabilities = np.zeros((len(examples), len(data.labels)), dtype=np.float64)
    log_probabilities = np.zeros_like(probabilities)
    fold_of = np.zeros(len(examples), dtype=np.int64)
    for fold in splits:
        found = results[fold.number]
        probabilities[list(fold.test)] = found.probabilities
        log_probabilities[list(fold.test)] = _logs(found)
        fold_of[list(fold.test)] = fold.number
    given = np.asarray([data.labels.index(ex.label) for ex in examples])
    suspects, thresholds = label_issues(probabilities, given, log_probabilities)
    label_errors = [_error_row(rank, int(row), examples[row], data.labels, probabilities[row], int(suggested),
                               int(fold_of[row]), float(log_probabilities[row, given[row]]))
                    for rank, (row, suggested) in enumerate(suspects, 1)]
    summary = _summary(data, examples, splits, results, probabilities, given, thresholds, label_errors, run.seed,
                       run.name)
    result = CVResult(summary, list(data.labels), examples, probabilities, fold_of, splits, label_errors,
                      folder.path if folder is not None else None, log_probabilities=log_probabilities)
    if folder is not None:
        page = errors_html(label_errors[:HTML_ROWS], _explanations(label_errors[:HTML_ROWS], examples, folds_dir),
                           data.name, len(label_errors), len(examples))
        files = {SUMMARY: (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
                 OOF: _oof_lines(examples, data.labels, probabilities, fold_of),
                 ERRORS_CSV: _errors_csv(label_errors, data.labels, examples),
                 ERRORS_HTML: page.encode("utf-8")}
        folder.commit(files)
        _remove_stale_folds(folds_dir, len(splits), owner)
        result.written = [folder.path / name for name in (SUMMARY, OOF, ERRORS_CSV, ERRORS_HTML)]
    return result


def _logs(found: FoldResult) -> np.ndarray:
    """A fold's log-probabilities: from its logits where it kept them, else the logarithms of its probabilities."""
    if found.log_probabilities is not None:
        return found.log_probabilities
    return np.log(np.maximum(found.probabilities, np.finfo(np.float64).tiny))


def _fold_data(data: Dataset, examples: list[Example], fold: Fold) -> Dataset:
    return Dataset(f"{data.name}-fold{fold.number}", {"train": [examples[i] for i in fold.train],
                                                      "dev": [examples[i] for i in fold.dev],
                                                      "test": [examples[i] for i in fold.test]}, list(data.labels))


def _train_folds(jobs: list[FoldJob], processes: int):
    """Each fold's FoldResult, as the folds finish: in this process, or in `processes` worker processes."""
    if processes == 1 or len(jobs) == 1:
        for job in jobs:
            yield train_fold(job)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from ..util.processes import exit_with, worker_context

    context = worker_context(("attentive.selection.cv", "attentive.training.pipeline"))
    with ProcessPoolExecutor(max_workers=min(processes, len(jobs)), mp_context=context, initializer=exit_with,
                             initargs=(os.getpid(),)) as pool:  # a killed cv leaves no fold training on
        pending = {pool.submit(train_fold, job) for job in jobs}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()


def train_fold(job: FoldJob) -> FoldResult:
    """Train one fold into its folder (the pipeline's `train`) and test it on its held-out rows (a worker's task)."""
    from scipy.special import log_softmax

    from ..answer.inference import infer
    from ..answer.metrics import compute_metrics
    from ..training.calibration import quiet_small_dev
    from ..training.pipeline import train
    from ..util.threads import use_threads

    if job.settings.threads is not None:
        use_threads(job.settings.threads, torch_needed=True)
    writing = writing_for(job.owner) if job.owner is not None else contextlib.nullcontext()
    with quiet_small_dev(), writing:  # a fold's dev is small by design, and cross-validation is what it advises
        model = train(job.data, job.recipe, job.settings)
    test = job.data.splits["test"]
    answered = infer(model.network, model.encode_examples(test), device=model.device, temperature=model.temperature)
    probabilities = answered.probabilities
    logs = log_softmax(np.asarray(answered.logits, dtype=np.float64) / model.temperature, axis=1)
    labels = model.labels
    metrics = compute_metrics([ex.label for ex in test], [labels[i] for i in probabilities.argmax(1)], labels,
                              probabilities)
    training = model.config.get("training", {})
    return FoldResult(job.fold.number, metrics, np.asarray(probabilities, dtype=np.float64),
                      training.get("best_epoch"), training.get("dev_accuracy"), logs)


def label_issues(probabilities: np.ndarray, given: np.ndarray,
                 log_probabilities: np.ndarray | None = None) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The rows whose given label looks wrong, by confident learning (Northcutt, Jiang & Chuang 2021, "Confident
    Learning: Estimating Uncertainty in Dataset Labels", JAIR 70, §2.1 and §3.1, the confident joint).

    `probabilities`: out-of-fold probabilities, rows x classes; `given`: each row's given class id. The threshold of
    class j is t_j, the mean probability of j over the rows labelled j (the class's expected self-confidence). A row
    counts for class j when p_j >= t_j; where several classes pass, it counts for the one of them with the highest
    probability (the paper's argmax rule, which keeps the confident joint from counting a row twice). A row labelled
    i that counts for some class j != i is a suspect, off the diagonal of the confident joint. Suspects are ranked
    by their self-confidence p_i, lowest first, read as its logarithm from `log_probabilities` where given (the
    out-of-fold log-softmax of the logits: a p_i that rounds to 0 or 1 in float still ranks by how far it is; ties
    left by row). Returns [(row, suggested class j)] in rank order, and the thresholds."""
    probabilities, given = np.asarray(probabilities, dtype=np.float64), np.asarray(given, dtype=np.int64)
    classes = probabilities.shape[1]
    thresholds = np.array([probabilities[given == j, j].mean() if (given == j).any() else np.inf
                           for j in range(classes)])
    above = probabilities >= thresholds[None, :] - 1e-12
    masked = np.where(above, probabilities, -np.inf)
    counted = masked.argmax(1)
    suspect = above.any(1) & (counted != given)
    rows = np.flatnonzero(suspect)
    if log_probabilities is None:
        self_confidence = probabilities[rows, given[rows]]
    else:
        self_confidence = np.asarray(log_probabilities, dtype=np.float64)[rows, given[rows]]
    order = np.lexsort((rows, self_confidence))
    return [(int(rows[k]), int(counted[rows[k]])) for k in order], thresholds


def _error_row(rank: int, row: int, example: Example, labels: list[str], probabilities: np.ndarray, suggested: int,
               fold: int, log_self_confidence: float) -> dict:
    given = labels.index(example.label)
    return {"rank": rank, "row": row, "line": example.line, "id": example.id, "fold": fold, "given": example.label,
            "suggested": labels[suggested],
            "self_confidence": float(probabilities[given]), "log_self_confidence": log_self_confidence,
            "probabilities": {label: float(p) for label, p in zip(labels, probabilities)}, "text": example.text,
            **({"text_pair": example.text_pair} if example.text_pair is not None else {}),
            **({"aspect": example.aspect} if example.aspect is not None else {})}


def _summary(data, examples, splits, results, probabilities, given, thresholds, label_errors, seed,
             recipe: str) -> dict:
    from ..answer.metrics import macro_f1

    per_fold = []
    for fold in splits:
        found = results[fold.number]
        per_fold.append({"fold": fold.number, "accuracy": found.metrics["accuracy"],
                         "macro_f1": found.metrics["macro_f1"], "n": len(fold.test), "train": len(fold.train),
                         "dev": len(fold.dev), "best_epoch": found.best_epoch, "dev_accuracy": found.dev_accuracy})

    def spread(key):
        values = np.array([row[key] for row in per_fold])
        return {"mean": float(values.mean()), "std": float(values.std())}  # std over folds, ddof 0 (as numpy's)

    predicted = probabilities.argmax(1)
    labels = list(data.labels)
    return {"dataset": data.name, "recipe": recipe,
            "folds": len(splits), "seed": seed, "n": len(examples), "labels": labels,
            "accuracy": spread("accuracy"), "macro_f1": spread("macro_f1"), "per_fold": per_fold,
            "out_of_fold": {"accuracy": float((predicted == given).mean()),
                            "macro_f1": macro_f1([labels[i] for i in given], [labels[i] for i in predicted], labels)},
            "label_errors": {"method": "confident learning (Northcutt et al. 2021): off-diagonal of the confident "
                                       "joint, ranked by self-confidence",
                             "suspects": len(label_errors),
                             "thresholds": {label: float(t) for label, t in zip(labels, thresholds)}}}


def _oof_lines(examples, labels, probabilities, fold_of) -> bytes:
    lines = []
    for row, (example, probs) in enumerate(zip(examples, probabilities)):
        record = {"row": row, "line": example.line, **({"id": example.id} if example.id is not None else {}),
                  "text": example.text, "label": example.label,
                  "probabilities": {label: round(float(p), 6) for label, p in zip(labels, probs)},
                  "fold": int(fold_of[row])}
        if example.text_pair is not None:
            record["text_pair"] = example.text_pair
        if example.aspect is not None:
            record["aspect"] = example.aspect
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _errors_csv(rows: list[dict], labels: list[str], examples: list[Example]) -> bytes:
    """label_errors.csv: a suspect a line, with where it is in the user's file (`line`, and `id` where the rows have
    ids; `row` is its index among the rows read, blank lines and dropped rows not counted)."""
    extra = [key for key in ("text_pair", "aspect") if any(getattr(ex, key) is not None for ex in examples)]
    ids = ["id"] if any(ex.id is not None for ex in examples) else []
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["rank", "line", *ids, "row", "fold", "given", "suggested", "self_confidence",
                     *(f"p_{label}" for label in labels), "text", *extra])
    for row in rows:
        where = [_blank(row["line"]), *(_blank(row["id"]) for _ in ids)]
        writer.writerow([row["rank"], *where, row["row"], row["fold"], row["given"], row["suggested"],
                         f"{row['self_confidence']:.6f}", *(f"{row['probabilities'][label]:.6f}" for label in labels),
                         row["text"], *(row.get(key, "") for key in extra)])
    return buffer.getvalue().encode("utf-8")


def _blank(value) -> str:
    """A CSV field of `value`, empty for None (rows given in memory have no line and no id)."""
    return "" if value is None else str(value)


def _explanations(rows: list[dict], examples: list[Example], folds_dir: Path) -> list:
    """Each row's explanation by the fold model that held it out (in the order of `rows`), with its signed
    evidence."""
    from ..api import load

    found: dict[int, object] = {}
    for fold in sorted({row["fold"] for row in rows}):
        mine = [row for row in rows if row["fold"] == fold]
        model = load(folds_dir / str(fold))
        wanted = [examples[row["row"]] for row in mine]
        pairs = [ex.text_pair or "" for ex in wanted] if model.is_pair else None
        aspects = [ex.aspect for ex in wanted] if model.uses_aspect else None
        for row, explanation in zip(mine, model.explain([ex.text for ex in wanted], pairs, aspects=aspects)):
            found[row["rank"]] = explanation
    return [found[row["rank"]] for row in rows]


def errors_html(rows: list[dict], explanations: list, name: str, suspects: int, total: int) -> str:
    """The label-error page: per suspect its rank, text, given and suggested label, out-of-fold probabilities, and
    what the fold model that held it out read: the words of most signed evidence for its own answer (which moved its
    margin over the runner-up most: `Explanation.evidence`, drawn as attentive/explain/html.py draws it), then its
    attention (the summed heads). Evidence first: the words a model attends to need not be those that decide, and a
    suspect the model itself gets wrong (a negation it misreads) shows so by the words that pushed it."""
    from ..explain.html import STYLE, _evidence_row, _row, legend

    title = f"attentive cv: suspected label errors in {name}"
    blocks = []
    for row, explanation in zip(rows, explanations):
        probs = ", ".join(f"{html.escape(label)} {p:.3f}" for label, p in row["probabilities"].items())
        parts = [f"<h3>{row['rank']}. given <em>{html.escape(row['given'])}</em>, suggested "
                 f"<em>{html.escape(row['suggested'])}</em> ({html.escape(_where(row))}fold {row['fold']})</h3>",
                 f"<div class='probs'>out-of-fold probabilities: {probs}</div>"]
        for key in ("aspect", "text_pair"):
            if key in row:
                parts.append(f"<div class='probs'>{key}: {html.escape(str(row[key]))}</div>")
        evidence = explanation.evidence
        if evidence is not None:
            top = [explanation.words[i] for i in np.argsort(-evidence, kind="stable")[:EVIDENCE_WORDS]
                   if evidence[i] > 0]
            parts.append(f"<div class='probs'>the fold model answers <em>{html.escape(explanation.prediction.label)}"
                         f"</em>; the words of most evidence for it: {html.escape(', '.join(top)) or '(none)'}</div>")
            parts.append(_evidence_row(explanation.words, evidence))
        if explanation.attention is not None:
            parts.append(_row(explanation.words, explanation.summed, "attention"))
        elif evidence is None:
            parts.append(f"<p>{html.escape(row['text'])} (this model has no attention)</p>")
        blocks.append(f"<div class='text'>{''.join(parts)}</div>")
    shown = f"the first {len(rows)} of " if len(rows) < suspects else ""
    intro = (f"<p>{shown}{suspects} suspects among {total} rows: rows whose given label gets a low out-of-fold "
             "probability while another class passes its threshold (confident learning, Northcutt et al. 2021), "
             "most suspect first. label_errors.csv lists them all.</p>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{intro}{legend()}{''.join(blocks)}"
            "</body></html>\n")


def _where(row: dict) -> str:
    """Where a suspect is, for its heading: its file's line and id where it has them, else its row index."""
    parts = [f"line {row['line']}" if row.get("line") is not None else f"row {row['row']}"]
    if row.get("id") is not None:
        parts.append(f"id {row['id']}")
    return ", ".join(parts) + ", "


def _remove_stale_folds(folds_dir: Path, folds: int, owner: Owner) -> None:
    """The fold models an earlier cv with more folds left (folds/K for K > `folds`): only the files this output
    folder's cv wrote are removed, and the folder only when that leaves it empty."""
    for number in range(folds + 1, MAX_FOLDS + 1):
        remove_owned(folds_dir / str(number), owner, skip=is_hidden)


__all__ = ["CVResult", "CV_RUN", "Fold", "FoldResult", "check_folds", "cv", "fold_splits", "label_issues"]
