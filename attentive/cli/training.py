"""`attentive train` and `attentive distill`: from data and a recipe to a saved model."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.text import Text

from ..errors import AttentiveError
from ..selection.limits import parse_budget
from .app import _report_data, _use_threads, app, console, err, said_as_warnings
from .options import (
    AspectColumn,
    DataDir,
    Dataset,
    DevFile,
    Device,
    LabelColumn,
    LabelSeparator,
    Overrides,
    PairColumn,
    Recipe,
    TestFile,
    TextColumn,
    Threads,
    TrainFile,
    checked_by,
    data_arguments,
    load_data,
    retold,
)

FEW_LABELS = 300  # labelled texts under which train says --few-labels exists


@app.command()
def train(
    out: Optional[Path] = typer.Option(None, "--out", help="folder for the saved model and its metrics log"),
    dataset: Optional[str] = Dataset,
    recipe: str = Recipe,
    set_: list[str] = Overrides,
    train_file: Optional[Path] = TrainFile,
    dev_file: Optional[Path] = DevFile,
    test_file: Optional[Path] = TestFile,
    text_column: str = TextColumn,
    label_column: str = LabelColumn,
    pair_column: Optional[str] = PairColumn,
    aspect_column: Optional[str] = AspectColumn,
    label_separator: Optional[str] = LabelSeparator,
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the model OUT already holds, or write beside "
                                                            "other files (only the model's own are replaced)"),
    resume: Optional[Path] = typer.Option(None, "--resume", help="continue the killed run in this folder from its "
                                                                 "last checkpoint (same data, recipe and seed)"),
    device: str = Device,
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
    nproc: int = typer.Option(1, "--nproc", min=1, help="train data-parallel in N processes on this machine: runs "
                                                        "torchrun --nproc-per-node N -m attentive train (the same "
                                                        "options); --threads then defaults to the cores / N"),
    compact: bool = typer.Option(False, "--compact", help="then export the model int8 into OUT-int8 (the model to "
                                                          "deploy) and compare the two on this machine; a model that "
                                                          "reads context (--recipe opinion) is first distilled into "
                                                          "the compact default, OUT-student, exported to "
                                                          "OUT-student-int8"),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="the seed of the network's start and its "
                                                                   "batches (the recipe's train.seed)"),
    few_labels: bool = typer.Option(False, "--few-labels", help="a few labelled texts: train a teacher that "
                                                                "carries pretrained knowledge (SetFit over MiniLM) "
                                                                "into OUT-teacher and distil the compact default "
                                                                "from it on --unlabelled into OUT"),
    unlabelled: Optional[str] = typer.Option(None, "--unlabelled", help="with --few-labels: your unlabelled texts "
                                                                        "(CSV, TSV, JSONL or .txt)"),
    teacher_iterations: int = typer.Option(20, "--teacher-iterations", min=1, help="with --few-labels: pairs made "
                                                                                   "per labelled text (SetFit's "
                                                                                   "num_iterations)"),
    pick: bool = typer.Option(False, "--pick", help="train the compact default and, within --budget, the recipe "
                                                    "opinion (word order, slower), and keep opinion only where dev "
                                                    "says it is better by more than the noise"),
    budget: str = typer.Option("15m", "--budget", callback=checked_by(parse_budget),
                               help="with --pick: time the two trainings may take in all: 30s, 15m, 1h"),
):
    """Train a recipe on a dataset; the best dev epoch is kept and saved to OUT, with a checkpoint after every epoch."""
    from ..util.run_settings import RunSettings

    if compact and nproc > 1:
        raise AttentiveError("--compact distils and measures in this process: train with --nproc first, then run "
                             "attentive distill and attentive export")
    source = {"dataset": dataset, "train_file": train_file, "dev_file": dev_file, "test_file": test_file,
              "text_column": text_column, "label_column": label_column, "pair_column": pair_column,
              "aspect_column": aspect_column, "data_dir": data_dir, "label_separator": label_separator}
    if nproc > 1:
        if resume is None and out is not None:  # refused here, in one line, before torchrun starts its processes
            _check_output_folder(out, overwrite)
        options = [("--out", out), ("--recipe", recipe), ("--resume", resume), ("--device", device),
                   ("--threads", threads), *(("--set", entry) for entry in set_)]
        args = [part for flag, value in options if value is not None for part in (flag, str(value))]
        args += data_arguments(source)
        raise typer.Exit(_launch_torchrun(nproc, ["train", *args, *(["--overwrite"] if overwrite else [])]))
    _use_threads(threads, torch_needed=False)  # PyTorch's threads are set once the data is read (below)
    if resume is not None:
        out = _check_resume(resume, out, set_, source)
    elif out is None:
        raise AttentiveError("give --out FOLDER for the model (or --resume RUN to continue a run)")
    if compact:  # every folder --compact writes is checked before training: a refusal leaves nothing behind
        from ..distill.compact import check_deployable_folders
        from ..recipes.loader import load_recipe

        check_deployable_folders(out, load_recipe(recipe, list(set_)), overwrite)
    if seed is not None:
        set_ = [*set_, f"train.seed={seed}"]
    in_the_sheet = [] if few_labels and unlabelled is None else None  # the train file's rows without a label
    data = load_data(unlabelled_rows=in_the_sheet, **source)
    _report_data(data)
    # PyTorch (a few seconds to import) only now: a missing file or a bad column is said at once
    from ..api import train as train_model
    from ..training.calibration import SmallDevWarning
    from ..training.distributed import is_main
    from ..util.threads import use_threads

    use_threads(threads, torch_needed=True)
    if few_labels:
        from .fewlabels import train_few_labels

        with said_as_warnings(SmallDevWarning):  # the student's dev: the teacher-labelled held-out pool texts
            train_few_labels(data, out, unlabelled, overwrite, compact, seed or 0, teacher_iterations, device,
                             source["data_dir"], text_column, in_the_sheet)
        return
    if unlabelled is not None:
        raise AttentiveError("--unlabelled is read with --few-labels (attentive distill --unlabelled distils on it "
                             "from a trained model)")
    labelled = len(data.splits["train"]) + len(data.splits["dev"])
    if labelled < FEW_LABELS:
        err.print(f"{data.name}: {labelled} labelled texts; with a few hundred or fewer, --few-labels and your "
                  "unlabelled texts (--unlabelled) learn from a pretrained teacher instead", soft_wrap=True,
                  markup=False)
    if is_main():  # under torchrun, rank 0 alone says it
        console.print(f"[bold]{data.name}[/]: train {len(data.splits['train'])}, dev {len(data.splits['dev'])}, "
                      f"test {len(data.splits.get('test', []))}; labels {', '.join(data.labels)}")
    recorded = {key: str(value) if isinstance(value, Path) else value for key, value in source.items()}
    with said_as_warnings(SmallDevWarning):  # a dev split too small to choose on, said once training starts
        settings = RunSettings(out, source["data_dir"], device, overwrite=overwrite, resume=resume is not None)
        if pick:
            model = _pick(data, recipe, set_, settings, parse_budget(budget))
        else:
            model = train_model(data, recipe, overrides=set_, settings=settings, source=recorded)
    summary = model.config["training"]
    if is_main():
        best = f"micro-F1 {summary['dev_micro_f1']:.4f}" if "dev_micro_f1" in summary else \
            f"accuracy {summary['dev_accuracy']:.4f}"
        console.print(f"best dev {best} at epoch {summary['best_epoch']}; saved to {out}")
        note = (model.config.get("calibration") or {}).get("note")
        if note:  # how the temperature was reached (attentive/training/calibration.py)
            console.print(Text(f"calibration: {note}"), soft_wrap=True)
        prior = model.config.get("prior") or {}
        if "weight" in prior:  # the recipe's linear model fitted after training (attentive/training/prior.py)
            console.print(f"with the linear model fitted after training (C {prior['C']:g}, weight "
                          f"{prior['weight']:.2f}): dev accuracy {prior['dev_accuracy']:.4f}")
        if "kept" in prior:  # what dev said about it, on texts its weight was not fitted on
            console.print(Text(
                f"linear model {'kept' if prior['kept'] else 'left out'}: on dev, cross-fitted, "
                f"{prior['dev_accuracy_with_crossfitted']:.4f} with it, {prior['dev_accuracy_without']:.4f} "
                f"without (± {prior['noise']:.4f}), {prior['dev_accuracy_linear']:.4f} by itself"), soft_wrap=True)
        if test_file is not None:  # scored once, on the model dev chose
            _score_test(model, out, test_file)
    if compact:
        _compact(model, data, overwrite, source["data_dir"], device, threads,
                 model.config["pick"]["picked"] if pick else Path(recipe).stem)


def _pick(data, recipe: str, overrides: list[str], settings, budget: float):
    """`train --pick`: attentive/selection/pick.py, and what it picked and why, said."""
    from ..selection.pick import pick

    if recipe != "default":
        raise AttentiveError("--pick chooses between the default and opinion: give no --recipe with it")
    model = pick(data, settings, budget, list(overrides))
    entry = model.config["pick"]
    costs = ", ".join(f"{name} {each['seconds']:.0f} s" for name, each in entry["candidates"].items())
    console.print(Text(f"picked {entry['picked']}: {entry['why']} (training: {costs})"), soft_wrap=True)
    return model


def _score_test(model, out: Path, test_file: Path) -> dict:
    """`train --test FILE`: the saved model scored on FILE once (read as the model reads its files, as `evaluate
    RUN --file FILE` reads it), printed, and written to OUT/eval-FILE-test.json, where `evaluate` writes the same
    result."""
    from ..folders.output_file import claim_file
    from ..folders.saved import evaluate_writes
    from ..util.atomic import atomic_write_json

    metrics = model.evaluate(Path(test_file))
    score = f"micro-F1 {metrics['micro_f1']:.4f}" if metrics.get("multi_label") else \
        f"accuracy {metrics['accuracy']:.4f}"
    target = Path(out) / f"eval-{metrics['dataset']}-test.json"
    target = claim_file(target, option=TestFile.param_decls[0], overwrite=evaluate_writes(target),
                        inputs=[test_file], models=[out], own=evaluate_writes)
    atomic_write_json(target, {**metrics, "model_id": model.config.get("model_id")})
    console.print(f"test {score}, macro-F1 {metrics['macro_f1']:.4f} on {metrics['n']} texts of {test_file}; "
                  f"written {target.name}", soft_wrap=True, markup=False)
    return metrics


def _compact(model, data, overwrite: bool, data_dir, device: str, threads: int | None, name: str) -> None:
    """`train --compact`: the model exported int8 beside OUT (distilled first into the compact default when it reads
    context), and the two compared (attentive/distill/compact.py)."""
    from ..distill.compact import compact_report, is_compact, make_deployable, measure

    if is_compact(model.recipe):
        console.print("exporting it with int8 weights")
    else:
        console.print("it reads context: distilling the compact default from it, then exporting that int8")
    student, exported = make_deployable(model, data, overwrite, data_dir, device)
    console.print("measuring both on this machine (dev accuracy, size, predict's texts/s and p50)")
    for line in compact_report([measure(name, model.folder, data, threads),
                                measure("int8", exported, data, threads)]):
        console.print(line, soft_wrap=True, markup=False)
    where = f" (the student's PyTorch model is in {student})" if student is not None else ""
    console.print(f"deploy {exported}: attentive serve {exported}{where}", markup=False, soft_wrap=True)


def _check_output_folder(out: Path, overwrite: bool) -> None:
    """The checks training makes of its output folder when it claims it (attentive/folders/output.py), made by the
    launcher of a data-parallel run, so that a folder rank 0 would refuse is refused before any rank starts."""
    from ..folders.output import check_claimable
    from ..training.pipeline import TRAINING_RUN

    check_claimable(out, TRAINING_RUN, overwrite)


def _launch_torchrun(nproc: int, args: list[str]) -> int:
    """Run `torchrun --standalone --nproc-per-node NPROC -m attentive ARGS` (torch.distributed.run, a free port
    chosen) and return its exit status. Each process computes with the usable cores divided by NPROC threads unless
    --threads or OMP_NUM_THREADS says otherwise."""
    import subprocess

    from ..util.threads import usable_cores

    if os.environ.get("WORLD_SIZE", "1") != "1":
        raise AttentiveError("--nproc starts torchrun, and this process already runs under it: drop --nproc")
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(max(usable_cores() // nproc, 1)))
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
               "-m", "attentive", *args]
    return subprocess.run(command, env=env).returncode


@app.command()
def distill(
    teachers: list[Path] = typer.Argument(..., help="the teacher model folders (saved or exported); several are "
                                                     "averaged"),
    out: Path = typer.Option(..., "--out", help="folder for the student model"),
    dataset: Optional[str] = Dataset,
    train_file: Optional[Path] = TrainFile,
    dev_file: Optional[Path] = DevFile,
    test_file: Optional[Path] = TestFile,
    text_column: str = TextColumn,
    label_column: str = LabelColumn,
    student: str = typer.Option("default", "--student", help="the student's recipe (a name or a YAML file)"),
    set_: list[str] = retold(Overrides, "override a student recipe entry: section.key=value"),
    unlabelled: Optional[str] = typer.Option(None, "--unlabelled", help="more in-domain texts to distil on: a JSONL "
                                                                        "file with a \"text\" field, or a dataset "
                                                                        "name (imdb_unsup)"),
    temperature: float = typer.Option(2.0, "--temperature", min=0.01),
    soft_weight: float = typer.Option(1.0, "--soft-weight", min=0.0, help="weight of the soft labels' loss beside "
                                                                          "the hard labels' (1)"),
    loss: str = typer.Option("mse", "--loss", help="mse (of the logits, Tang et al.) or kl (at --temperature)"),
    copies: int = typer.Option(8, "--augment", min=0, help="augmented copies of each training text"),
    augment_seed: int = typer.Option(0, "--augment-seed", min=0),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the model OUT already holds"),
    device: str = Device,
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
):
    """Train a small student on the teachers' probabilities over the training texts, seeded augmentations of them
    and any unlabelled texts; its epoch is chosen on dev and it is saved like any model."""
    from ..distill import Distillation
    from ..distill import distill as distill_student
    from ..text.augment import Augmentation

    _check_unlabelled(unlabelled)
    _use_threads(threads)
    try:
        how = Distillation(temperature, soft_weight, loss, Augmentation(copies=copies), augment_seed)
    except ValueError as exc:
        raise AttentiveError(str(exc)) from exc
    data = load_data(dataset=dataset, train_file=train_file, dev_file=dev_file, test_file=test_file,
                     text_column=text_column, label_column=label_column, data_dir=data_dir)
    _report_data(data)
    model = distill_student(teachers, data, out, student, how, unlabelled, set_, data_dir=data_dir, device=device,
                            overwrite=overwrite)
    summary, transfer = model.config["training"], model.config["distillation"]["transfer"]
    skipped = transfer["already_there"] + transfer["blank"]
    if transfer["copies"] < copies:
        console.print(f"{transfer['copies']} augmented copies of each training text, not {copies}: more would hold "
                      "more texts than the student's train.max_updates x train.batch_size reads")
    console.print(f"distilled on {transfer['labelled']} labelled texts, {transfer['augmented']} augmentations and "
                  f"{transfer['unlabelled']} unlabelled texts ({skipped} not added: already there or blank); best "
                  f"dev accuracy {summary['dev_accuracy']:.4f} at epoch {summary['best_epoch']}; saved to {out}")


def _check_unlabelled(unlabelled: str | None) -> None:
    """--unlabelled names a JSONL file or a dataset: one that is neither but reads as a file name (it has a suffix or
    a folder) is a missing file, said as every option naming a missing file says it, before any work starts; any
    other name is left to the dataset registry (which lists the names it knows)."""
    from ..data.registry import DATASETS
    from ..util.user_files import check_file

    if unlabelled is None or unlabelled in DATASETS:
        return
    path = Path(unlabelled)
    if not path.exists() and (path.suffix or len(path.parts) > 1):
        check_file(path)  # "file not found"


def _check_resume(run: Path, out: Path | None, overrides: list[str], source: dict) -> Path:
    """The folder to resume; the data options default to those the run was started with (updated in place)."""
    from ..training.pipeline import resume_source

    if out is not None and Path(out).resolve() != run.resolve():
        raise AttentiveError(f"--resume {run} continues that run in its own folder: drop --out {out}")
    if overrides:
        raise AttentiveError("--resume continues with the recipe the run started with: drop --set")
    if source["dataset"] is None and source["train_file"] is None:
        recorded = resume_source(run)
        for key, value in recorded.items():
            if key not in source:  # not a data option (what a run records is the source dict train gives it)
                continue
            is_path = key.endswith("_file") or key == "data_dir"
            source[key] = Path(value) if is_path and value is not None else value
    return run
