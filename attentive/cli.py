"""The `attentive` command line; each command is a thin wrapper over the Python API (attentive.api)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .errors import AttentiveError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Train, evaluate, explain compact attention-based text classifiers.")
console = Console()
err = Console(stderr=True)

DataDir = typer.Option(None, "--data-dir", help="benchmark data folder (default: $ATTENTIVE_DATA or ../shared/data)")
LabelSeparator = typer.Option(None, "--label-separator", help="CSV/TSV label fields hold several labels cut by "
                                                               "this (multi-label), e.g. '|'")
ThreadsOption = typer.Option(None, "--threads", min=1, envvar="ATTENTIVE_THREADS",
                             help="threads to compute with (default: $OMP_NUM_THREADS, else the usable cores divided "
                                  "by the local processes)")


def _use_threads(threads: int | None, torch_needed: bool = True) -> int:
    """Set the threads (attentive.threads) and say on stderr, in one line, when the machine is oversubscribed."""
    from .threads import machine_warning, use_threads

    threads = use_threads(threads, torch_needed)
    warning = machine_warning(threads)
    if warning:
        err.print(Text("warning: ", style="yellow") + Text(warning), soft_wrap=True)
    return threads


def _dataset(dataset, train_file, dev_file, test_file, text_column, label_column, data_dir, pair_column=None,
             aspect_column=None, label_separator=None):
    """A registry name, or the user's own files (`label_separator`: their label fields hold label sets)."""
    if train_file is not None or dataset is None:
        if train_file is None:
            raise AttentiveError("give --dataset NAME or --train FILE (see `attentive datasets`)")
        from .data.registry import load_files

        return load_files(train_file, dev=dev_file, test=test_file, text_column=text_column,
                          label_column=label_column, pair_column=pair_column, aspect_column=aspect_column,
                          label_separator=label_separator)
    from .api import resolve_dataset

    return resolve_dataset(dataset, data_dir)


def _report_data(data) -> None:
    """What the readers dropped, merged or noticed, so that nothing is lost without a count: notes (rows dropped,
    rows spanning several lines, how dev was made) and warnings (labels only dev or test has)."""
    for note in data.notes:
        err.print(Text(f"{data.name}: {note}", style="dim"), soft_wrap=True)
    for warning in data.warnings:
        err.print(Text("warning: ", style="yellow") + Text(f"{data.name}/{warning}"), soft_wrap=True)


@app.command()
def train(
    out: Optional[Path] = typer.Option(None, "--out", help="folder for the saved model and its metrics log"),
    dataset: Optional[str] = typer.Option(None, "--dataset", help="a dataset name from `attentive datasets`"),
    recipe: str = typer.Option("default", "--recipe", help="a recipe name or a YAML file"),
    set_: list[str] = typer.Option([], "--set", help="override a recipe entry: section.key=value"),
    train_file: Optional[Path] = typer.Option(None, "--train", help="your own training file (CSV/TSV/JSONL)"),
    dev_file: Optional[Path] = typer.Option(None, "--dev"),
    test_file: Optional[Path] = typer.Option(None, "--test"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    pair_column: Optional[str] = typer.Option(None, "--pair-column", help="second-text column, for pair recipes"),
    aspect_column: Optional[str] = typer.Option(None, "--aspect-column", help="aspect column, for aspect recipes"),
    label_separator: Optional[str] = LabelSeparator,
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the model OUT already holds, or write beside "
                                                            "other files (only the model's own are replaced)"),
    resume: Optional[Path] = typer.Option(None, "--resume", help="continue the killed run in this folder from its "
                                                                 "last checkpoint (same data, recipe and seed)"),
    device: str = typer.Option("auto", "--device", help="cpu, cuda or auto"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
    nproc: int = typer.Option(1, "--nproc", min=1, help="train data-parallel in N processes on this machine: runs "
                                                        "torchrun --nproc-per-node N -m attentive train (the same "
                                                        "options); --threads then defaults to the cores / N"),
):
    """Train a recipe on a dataset; the best dev epoch is kept and saved to OUT, with a checkpoint after every epoch."""
    from .api import train as train_model
    from .training.distributed import is_main

    if nproc > 1:
        options = [("--out", out), ("--dataset", dataset), ("--recipe", recipe), ("--train", train_file),
                   ("--dev", dev_file), ("--test", test_file), ("--text-column", text_column),
                   ("--label-column", label_column), ("--pair-column", pair_column),
                   ("--aspect-column", aspect_column), ("--label-separator", label_separator),
                   ("--resume", resume), ("--device", device),
                   ("--threads", threads), ("--data-dir", data_dir), *(("--set", entry) for entry in set_)]
        args = [part for flag, value in options if value is not None for part in (flag, str(value))]
        raise typer.Exit(_launch_torchrun(nproc, ["train", *args, *(["--overwrite"] if overwrite else [])]))
    _use_threads(threads)
    source = {"dataset": dataset, "train_file": train_file, "dev_file": dev_file, "test_file": test_file,
              "text_column": text_column, "label_column": label_column, "pair_column": pair_column,
              "aspect_column": aspect_column, "data_dir": data_dir, "label_separator": label_separator}
    if resume is not None:
        out = _check_resume(resume, out, set_, source)
    elif out is None:
        raise AttentiveError("give --out FOLDER for the model (or --resume RUN to continue a run)")
    else:
        from .recipes import load_recipe

        load_recipe(recipe, set_)  # a bad recipe or --set fails before the data is read
    data = _dataset(source["dataset"], source["train_file"], source["dev_file"], source["test_file"],
                    source["text_column"], source["label_column"], source["data_dir"], source["pair_column"],
                    source["aspect_column"], source.get("label_separator"))
    _report_data(data)
    if is_main():  # under torchrun, rank 0 alone says it
        console.print(f"[bold]{data.name}[/]: train {len(data.splits['train'])}, dev {len(data.splits['dev'])}, "
                      f"test {len(data.splits.get('test', []))}; labels {', '.join(data.labels)}")
    recorded = {key: str(value) if isinstance(value, Path) else value for key, value in source.items()}
    model = train_model(data, recipe, out, set_, source["data_dir"], device, overwrite=overwrite,
                        resume=resume is not None, source=recorded)
    summary = model.config["training"]
    if is_main():
        best = f"micro-F1 {summary['dev_micro_f1']:.4f}" if "dev_micro_f1" in summary else \
            f"accuracy {summary['dev_accuracy']:.4f}"
        console.print(f"best dev {best} at epoch {summary['best_epoch']}; saved to {out}")


def _launch_torchrun(nproc: int, args: list[str]) -> int:
    """Run `torchrun --standalone --nproc-per-node NPROC -m attentive ARGS` (torch.distributed.run, a free port
    chosen) and return its exit status. Each process computes with the usable cores divided by NPROC threads unless
    --threads or OMP_NUM_THREADS says otherwise."""
    import subprocess

    from .threads import usable_cores

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
    dataset: Optional[str] = typer.Option(None, "--dataset", help="a dataset name from `attentive datasets`"),
    train_file: Optional[Path] = typer.Option(None, "--train", help="your own training file (CSV/TSV/JSONL)"),
    dev_file: Optional[Path] = typer.Option(None, "--dev"),
    test_file: Optional[Path] = typer.Option(None, "--test"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    student: str = typer.Option("student", "--student", help="the student's recipe (a name or a YAML file)"),
    set_: list[str] = typer.Option([], "--set", help="override a student recipe entry: section.key=value"),
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
    device: str = typer.Option("auto", "--device", help="cpu, cuda or auto"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
):
    """Train a small student on the teachers' probabilities over the training texts, seeded augmentations of them
    and any unlabelled texts; its epoch is chosen on dev and it is saved like any model."""
    from .augment import Augmentation
    from .distill import Distillation, distill as distill_student
    from .recipes import load_recipe

    _use_threads(threads)
    load_recipe(student, set_)  # a bad recipe or --set fails before the data is read
    try:
        how = Distillation(temperature, soft_weight, loss, Augmentation(copies=copies), augment_seed)
    except ValueError as exc:
        raise AttentiveError(str(exc)) from exc
    data = _dataset(dataset, train_file, dev_file, test_file, text_column, label_column, data_dir)
    _report_data(data)
    model = distill_student(teachers, data, out, student, how, unlabelled, set_, data_dir, device,
                            overwrite=overwrite)
    summary, transfer = model.config["training"], model.config["distillation"]["transfer"]
    skipped = transfer["already_there"] + transfer["blank"]
    if transfer["copies"] < copies:
        console.print(f"{transfer['copies']} augmented copies of each training text, not {copies}: more would hold "
                      "more texts than the student's train.max_updates x train.batch_size reads")
    console.print(f"distilled on {transfer['labelled']} labelled texts, {transfer['augmented']} augmentations and "
                  f"{transfer['unlabelled']} unlabelled texts ({skipped} not added: already there or blank); best "
                  f"dev accuracy {summary['dev_accuracy']:.4f} at epoch {summary['best_epoch']}; saved to {out}")


def _check_resume(run: Path, out: Path | None, overrides: list[str], source: dict) -> Path:
    """The folder to resume; the data options default to those the run was started with (updated in place)."""
    from .training.pipeline import resume_source

    if out is not None and Path(out).resolve() != run.resolve():
        raise AttentiveError(f"--resume {run} continues that run in its own folder: drop --out {out}")
    if overrides:
        raise AttentiveError("--resume continues with the recipe the run started with: drop --set")
    if source["dataset"] is None and source["train_file"] is None:
        recorded = resume_source(run)
        for key, value in recorded.items():
            is_path = key.endswith("_file") or key == "data_dir"
            source[key] = Path(value) if is_path and value is not None else value
    return run


def print_metrics(metrics: dict) -> None:
    calibration = f"  ECE {metrics['ece']:.4f} (T={metrics.get('temperature', 1.0):.3g})" if "ece" in metrics else ""
    if metrics.get("multi_label"):
        console.print(f"[bold]{metrics['dataset']}/{metrics['split']}[/] n={metrics['n']}  micro-F1 "
                      f"[bold]{metrics['micro_f1']:.4f}[/]  macro-F1 {metrics['macro_f1']:.4f}  subset accuracy "
                      f"{metrics['subset_accuracy']:.4f}")
    else:
        console.print(f"[bold]{metrics['dataset']}/{metrics['split']}[/] n={metrics['n']}  "
                      f"accuracy [bold]{metrics['accuracy']:.4f}[/]  macro-F1 {metrics['macro_f1']:.4f}{calibration}")
    table = Table("class", "precision", "recall", "F1", "support")
    for label, row in metrics["per_class"].items():
        table.add_row(label, f"{row['precision']:.3f}", f"{row['recall']:.3f}", f"{row['f1']:.3f}",
                      str(row["support"]))
    console.print(table)
    if "confusion" not in metrics:  # multi-label: no one predicted class per text
        return
    confusion = Table("gold \\ predicted", *metrics["labels"], title="confusion matrix")
    for label, row in zip(metrics["labels"], metrics["confusion"]):
        confusion.add_row(label, *map(str, row))
    console.print(confusion)


@app.command()
def evaluate(
    run: Path = typer.Argument(..., help="a saved model folder"),
    dataset: Optional[str] = typer.Option(None, "--dataset"),
    split: str = typer.Option("test", "--split"),
    test_file: Optional[Path] = typer.Option(None, "--file", help="evaluate on your own labelled file"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    pair_column: Optional[str] = typer.Option(None, "--pair-column", help="second-text column, for pair models"),
    aspect_column: Optional[str] = typer.Option(None, "--aspect-column", help="aspect column, for aspect models"),
    label_separator: Optional[str] = LabelSeparator,
    output: Optional[Path] = typer.Option(None, "--output", help="JSON file (default RUN/eval-DATASET-SPLIT.json)"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
):
    """Accuracy, macro-F1, per-class report and confusion matrix; printed and written as JSON."""
    from .api import load
    from .io_utils import atomic_write_json
    from .saved import mark_stale_results

    _use_threads(threads)
    model = load(run)
    if test_file is not None:
        from .data.registry import load_test_file

        data = load_test_file(test_file, text_column=text_column, label_column=label_column, pair_column=pair_column,
                              aspect_column=aspect_column, label_separator=label_separator)
        split = "test"
    else:
        data = _dataset(dataset or model.config.get("dataset"), None, None, None, text_column, label_column,
                        data_dir)
    _report_data(data)
    metrics = model.evaluate(data, split)
    print_metrics(metrics)
    output = output or run / f"eval-{data.name}-{split}.json"
    atomic_write_json(output, {**metrics, "model_id": model.config.get("model_id")})
    if output.parent.resolve() == run.resolve() and output in mark_stale_results(run):
        err.print(f"[yellow]the model in {run} was replaced while it was evaluated: {output} is marked stale[/]")
    console.print(f"written {output}")


AspectOption = typer.Option([], "--aspect", help='aspect models: the aspect(s) to answer for (default: a JSONL '
                                                 '"aspect" field, else every aspect the model knows)')
InputOption = typer.Option(None, "--input", help='JSONL file, a "text" field a line ("text_pair" for pair models, '
                                                 'optionally "aspect" for aspect models)')
PairOption = typer.Option([], "--pair", help="pair models: the second text of each text, in order")


OnErrorOption = typer.Option("stop", "--on-error", help="a bad input line: stop (after answering every good line "
                                                     "before it) or skip it with a warning")


def _load_any(run: Path, threads: int | None = None):
    """A saved model folder (PyTorch) or an exported one (ONNX Runtime, see `attentive export`), computing with
    `threads` (None: attentive.threads.default_threads())."""
    from .runtime import is_exported

    if is_exported(run):
        from .runtime import load as load_exported

        return load_exported(run, threads=_use_threads(threads, torch_needed=False))
    from .api import load

    _use_threads(threads)
    return load(run)


def _wanted(model, texts, pair, input_file, aspect):
    from .cli_input import command_line_records, jsonl_records, with_aspects

    if input_file is not None:
        records = jsonl_records(input_file, ("text", "text_pair") if model.is_pair else ("text",))
    else:
        records = command_line_records(texts, pair)
    return with_aspects(model, records, aspect, str(input_file) if input_file is not None else "text")


@app.command()
def predict(
    run: Path = typer.Argument(..., help="a saved model folder"),
    texts: list[str] = typer.Argument(None, help="texts to classify"),
    input_file: Optional[Path] = InputOption,
    pair: list[str] = PairOption,
    aspect: list[str] = AspectOption,
    top_k: int = typer.Option(5, "--top-k", min=0, help="most attended words to report"),
    batch_size: int = typer.Option(256, "--batch-size", min=1, help="texts answered at a time: the network's batch, "
                                                                    "and how many lines are read before answering"),
    on_error: str = OnErrorOption,
    jobs: int = typer.Option(1, "--jobs", min=1, help="worker processes answering at once, each loading the model "
                                                      "and computing with --threads threads (default 1); the "
                                                      "output keeps the input's order"),
    output: Optional[Path] = typer.Option(None, "--output", help="write the JSON lines to this file (default: "
                                                                 "stdout), with its progress in FILE.progress"),
    resume: bool = typer.Option(False, "--resume", help="continue a killed run's --output FILE after its last "
                                                        "complete line (same input and model)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing --output FILE"),
    threads: Optional[int] = ThreadsOption,
):
    """Label, probabilities and top attended words as JSON lines, one per text (per text and aspect), streamed."""
    from .cli_input import answered_in_batches

    skipped = []

    def warn(message: str) -> None:
        skipped.append(message)
        err.print(Text("warning: ", style="yellow") + Text(message), soft_wrap=True)

    echo_record = input_file is not None  # a JSONL line's own fields come back with its answer
    if jobs > 1 or output is not None or resume:
        _predict_to(run, texts, pair, input_file, aspect, jobs, threads, batch_size, on_error, warn, top_k,
                    echo_record, output, resume, overwrite)
    else:
        model = _load_any(run, threads)
        answers = answered_in_batches(model, _wanted(model, texts, pair, input_file, aspect), batch_size, on_error,
                                      "predict", warn, top_k=top_k)
        for record, prediction in answers:
            print(json.dumps({**(record if echo_record else {}), **prediction.as_dict()}, ensure_ascii=False),
                  flush=True)
    if skipped:
        err.print(f"[yellow]{len(skipped)} line(s) skipped[/]")


def _predict_to(run, texts, pair, input_file, aspect, jobs, threads, batch_size, on_error, warn, top_k, echo_record,
                output, resume, overwrite) -> None:
    """predict with --jobs N (worker processes, attentive.parallel_predict) or --output FILE (resumable)."""
    from .cli_input import command_line_records, jsonl_records
    from .parallel_predict import predict as predict_records
    from .threads import oversubscription_warning, usable_cores

    if resume and output is None:
        raise AttentiveError("--resume continues an --output FILE: give --output FILE")
    if jobs > 1:
        model = _load_any(run, 1)  # this process reads and writes; the workers answer
        per_worker = threads or 1
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = None
        warning = oversubscription_warning(per_worker, jobs, usable_cores(), load)
        if warning:
            err.print(Text("warning: ", style="yellow") + Text(warning), soft_wrap=True)
    else:
        model = _load_any(run, threads)
    if input_file is not None:
        records = jsonl_records(input_file, ("text", "text_pair") if model.is_pair else ("text",))
    else:
        records = command_line_records(texts, pair)
    predict_records(model, run, records, aspect, str(input_file) if input_file is not None else "text", jobs=jobs,
                    threads=threads, batch_size=batch_size, on_error=on_error, warn=warn, top_k=top_k,
                    echo_record=echo_record, output=output, input_file=input_file, resume=resume,
                    overwrite=overwrite)


@app.command()
def explain(
    run: Path = typer.Argument(..., help="a saved model folder"),
    texts: list[str] = typer.Argument(None, help="texts to explain"),
    input_file: Optional[Path] = InputOption,
    pair: list[str] = PairOption,
    aspect: list[str] = AspectOption,
    heads: bool = typer.Option(False, "--heads", help="show every head, not only their sum"),
    per_word: bool = typer.Option(False, "--words", help="per word: attention score, weight and polarity score"),
    html_file: Optional[Path] = typer.Option(None, "--html", help="also write a self-contained HTML page"),
    png_file: Optional[Path] = typer.Option(None, "--png", help="also write a PNG heatmap (words x heads)"),
    threads: Optional[int] = ThreadsOption,
):
    """Prediction and an attention heatmap of each text: in the terminal, and as HTML and PNG files."""
    from .answers import faithfulness_line
    from .cli_input import BadLine, answer
    from .explain.terminal import explanation_table, word_table
    from .io_utils import atomic_write_text

    model = _load_any(run, threads)
    wanted = []
    for item in _wanted(model, texts, pair, input_file, aspect):  # the first bad line stops the reading
        if isinstance(item, BadLine):
            raise item.error()
        wanted.append(item)
    explanations = answer(model, wanted, "explain")
    console.print(explanation_table(explanations, heads=heads))
    faithful = faithfulness_line(model.config)  # None for a model trained before it was measured
    if faithful is not None:
        console.print(faithful, highlight=False, soft_wrap=True)
    if per_word:
        for explanation in explanations:
            console.print(word_table(explanation, model.labels))
    if html_file is not None:
        from .explain.html import explanation_html

        atomic_write_text(html_file, explanation_html(explanations, faithfulness=faithful))
        console.print(f"written {html_file}")
    if png_file is not None:
        from .explain.png import save_png

        save_png(explanations, png_file)
        console.print(f"written {png_file}")


@app.command()
def export(
    run: Path = typer.Argument(..., help="a saved model folder"),
    out: Path = typer.Option(..., "--out", help="folder for model.onnx, tokenizer.json and config.json"),
    int8: bool = typer.Option(False, "--int8", help="also write model.int8.onnx (dynamic int8 quantisation)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the export OUT holds, or write beside other "
                                                            "files (only the export's own four are replaced)"),
    threads: Optional[int] = ThreadsOption,
):
    """An ONNX graph (probabilities and attention) that `attentive predict`/`explain` and attentive.runtime run
    without PyTorch."""
    from .api import load
    from .export import GRAPH, GRAPH_INT8, export as export_model

    _use_threads(threads)
    folder = export_model(load(run), out, int8, overwrite=overwrite)
    graphs = [folder / GRAPH] + ([folder / GRAPH_INT8] if int8 else [])
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in graphs)
    console.print(f"exported {run} to {folder} ({sizes})")


@app.command()
def serve(
    run: Path = typer.Argument(..., help="a saved model folder, or an exported one (served without PyTorch)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to bind; other than loopback needs --api-key"),
    port: int = typer.Option(8000, "--port"),
    api_key: Optional[str] = typer.Option(None, "--api-key", envvar="ATTENTIVE_API_KEY",
                                          help="required on every request (X-API-Key header)"),
    max_texts: int = typer.Option(256, "--max-texts", min=1, help="texts a request may hold"),
    max_body: int = typer.Option(1_000_000, "--max-body", min=1, help="bytes a request body may hold"),
    threads: Optional[int] = ThreadsOption,
):
    """An HTTP API (POST /predict, /explain; GET /health, /info, /metrics) and a page at / showing the attention."""
    import uvicorn

    from .server import bound_socket, create_app

    if host not in ("127.0.0.1", "localhost", "::1") and not api_key:
        raise AttentiveError(f"--host {host} opens the server to other machines: give --api-key (or set "
                             "ATTENTIVE_API_KEY)")
    sock = bound_socket(host, port)  # a bad or busy port fails here, before anything says "serving"
    with sock:
        app_ = create_app(_load_any(run, threads), api_key=api_key, max_body=max_body, max_texts=max_texts)
        console.print(f"serving {run} on http://{host}:{port}/")
        uvicorn.Server(uvicorn.Config(app_, host=host, port=port, log_level="warning")).run(sockets=[sock])


@app.command()
def analyze(
    run: Path = typer.Argument(..., help="a saved model folder"),
    out: Path = typer.Option(..., "--out", help="report folder: PNGs, CSV/JSON and index.html"),
    dataset: Optional[str] = typer.Option(None, "--dataset", help="default: the dataset the model was trained on"),
    split: str = typer.Option("test", "--split"),
    test_file: Optional[Path] = typer.Option(None, "--file", help="analyse your own labelled file instead"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    limit: Optional[int] = typer.Option(2000, "--limit", help="analyse a seeded sample of this many texts (0: all)"),
    words: list[str] = typer.Option([], "--word", help="words whose weight distribution to plot (default: the top "
                                                         "attended words of each class)"),
    min_count: int = typer.Option(5, "--min-count", help="top words: least occurrences of a word in a class"),
    compare: list[Path] = typer.Option([], "--compare", help="other runs whose training curves join the plot"),
    deletion: bool = typer.Option(True, "--deletion/--no-deletion", help="run the deletion test"),
    overwrite: bool = typer.Option(False, "--overwrite", help="write the report into a folder holding other files "
                                                            "(only the report's own files are replaced)"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
):
    """What a model attends to over a whole split, and whether its attention explains its decisions."""
    from .api import load

    _use_threads(threads)
    model = load(run)
    if test_file is not None:
        from .data.registry import load_test_file

        data, split = load_test_file(test_file, text_column=text_column, label_column=label_column), "test"
    else:
        data = _dataset(dataset or model.config.get("dataset"), None, None, None, text_column, label_column, data_dir)
    _report_data(data)
    console.print(f"analysing up to {limit or 'all'} of the {len(data.splits.get(split) or [])} {data.name}/{split} "
                  "texts")
    summary = model.analyze(data, out, split, limit or None, words, min_count, compare, deletion, overwrite=overwrite)
    if "deletion" in summary:
        console.print(f"deletion test: {summary['deletion']['verdict']}")
    console.print(f"written {out / 'index.html'}")


@app.command()
def cv(
    out: Path = typer.Option(..., "--out", help="folder for cv.json, oof.jsonl, label_errors.csv/.html and the fold "
                                                "models (folds/K)"),
    dataset: Optional[str] = typer.Option(None, "--dataset", help="a dataset name from `attentive datasets` (its "
                                                                  "train split is cross-validated)"),
    train_file: Optional[Path] = typer.Option(None, "--train", help="your own labelled file (CSV/TSV/JSONL), read "
                                                                     "whole"),
    folds: int = typer.Option(10, "--folds", help="stratified folds (2 or more)"),
    recipe: str = typer.Option("default", "--recipe", help="a recipe name or a YAML file"),
    set_: list[str] = typer.Option([], "--set", help="override a recipe entry: section.key=value"),
    seed: int = typer.Option(13, "--seed", help="seeds the folds and each fold's dev split (the networks': "
                                                "--set train.seed=N)"),
    jobs: int = typer.Option(1, "--jobs", help="folds trained at once, each in a process of --threads threads "
                                               "(default 1)"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    pair_column: Optional[str] = typer.Option(None, "--pair-column", help="second-text column, for pair recipes"),
    aspect_column: Optional[str] = typer.Option(None, "--aspect-column", help="aspect column, for aspect recipes"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the cross-validation OUT holds, or write "
                                                            "beside other files (only cv's own are replaced)"),
    device: str = typer.Option("auto", "--device", help="cpu, cuda or auto"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
):
    """Stratified k-fold cross-validation: accuracy and macro-F1 per fold and mean ± std, every row's out-of-fold
    probabilities, and the rows whose label looks wrong (confident learning), as CSV and as an HTML page."""
    from .cross_validation import cv as cross_validate

    if jobs == 1:
        _use_threads(threads)

    def report(found, total):
        console.print(f"fold {found.number}/{total}: accuracy {found.metrics['accuracy']:.4f}  macro-F1 "
                      f"{found.metrics['macro_f1']:.4f}  (best epoch {found.best_epoch})")

    if dataset is None and train_file is None:
        raise AttentiveError("give --dataset NAME or --train FILE (see `attentive datasets`)")
    result = cross_validate(dataset, recipe, out, folds, set_, seed, jobs,
                            threads, data_dir, device, overwrite, show_progress=False, train=train_file,
                            text_column=text_column, label_column=label_column, pair_column=pair_column,
                            aspect_column=aspect_column, on_fold=report)
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
        top = Table("rank", "row", "given", "suggested", "p(given)", "text")
        for row in result.label_errors[:5]:
            top.add_row(str(row["rank"]), str(row["row"]), Text(row["given"]), Text(row["suggested"]),
                        f"{row['self_confidence']:.3f}", Text(row["text"][:80]))
        console.print(top)
    console.print(f"written {', '.join(str(path) for path in result.written)}; fold models in {out / 'folds'}")


@app.command()
def tune(
    out: Path = typer.Option(..., "--out", help="folder for the study (study.db), the best model (best/), trials.json "
                                                "and tune.png; a study already there is resumed"),
    dataset: Optional[str] = typer.Option(None, "--dataset", help="a dataset name from `attentive datasets`"),
    train_file: Optional[Path] = typer.Option(None, "--train", help="your own training file (CSV/TSV/JSONL)"),
    dev_file: Optional[Path] = typer.Option(None, "--dev", help="its dev file (default: a stratified tenth of train)"),
    budget: str = typer.Option("10m", "--budget", help="time to search: 30s, 10m, 1h (no trial starts after it)"),
    max_size: Optional[str] = typer.Option(None, "--max-size", help="largest model folder a trial may make, e.g. "
                                                                    "5MB (larger trials are pruned)"),
    recipe: str = typer.Option("default", "--recipe", help="a recipe name or a YAML file; its tune: section is the "
                                                           "search space"),
    set_: list[str] = typer.Option([], "--set", help="fix a recipe entry (not searched): section.key=value"),
    trials: Optional[int] = typer.Option(None, "--trials", min=1, help="at most this many trials in this call"),
    seed: int = typer.Option(0, "--seed", help="seeds the sampler (the networks': --set train.seed=N)"),
    text_column: str = typer.Option("text", "--text-column"),
    label_column: str = typer.Option("label", "--label-column"),
    pair_column: Optional[str] = typer.Option(None, "--pair-column", help="second-text column, for pair recipes"),
    aspect_column: Optional[str] = typer.Option(None, "--aspect-column", help="aspect column, for aspect recipes"),
    overwrite: bool = typer.Option(False, "--overwrite", help="start over in a folder holding a study, or write "
                                                            "beside other files (only tune's own are replaced)"),
    device: str = typer.Option("auto", "--device", help="cpu, cuda or auto"),
    threads: Optional[int] = ThreadsOption,
    data_dir: Optional[Path] = DataDir,
):
    """Search a recipe's settings (its tune: section) with Optuna on a time budget; the best dev accuracy wins and
    its model is saved to OUT/best. A second call with the same OUT resumes the study."""
    from .tuning import human_size, parse_budget, parse_size, tune as run_tune

    from .recipes import load_recipe

    parse_budget(budget), parse_size(max_size)  # a bad budget, size, recipe or --set fails before the data is read
    load_recipe(recipe, set_)
    _use_threads(threads)
    if dataset is None and train_file is None:
        raise AttentiveError("give --dataset NAME or --train FILE (see `attentive datasets`)")
    data = _dataset(dataset, train_file, dev_file, None, text_column, label_column, data_dir, pair_column,
                    aspect_column)
    _report_data(data)

    def report(row):
        dev = "" if row["dev_accuracy"] is None else f"dev {row['dev_accuracy']:.4f}  "
        console.print(Text(f"trial {row['number']}: {row['state']}  {dev}({row['seconds']}s"
                           f"{', ' + human_size(row['size']) if row['size'] else ''})"
                           + (f"  {row['note']}" if row["note"] else "")))

    result = run_tune(data, recipe, out, budget, max_size, set_, trials, seed, None, data_dir, device, overwrite,
                      on_trial=report)
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
    if result.interrupted:
        console.print("stopped by Ctrl-C: the best so far is kept")
    console.print(f"best model in {out / 'best'}; trial table {out / 'trials.json'}, plot {out / 'tune.png'}, "
                  f"study {out / 'study.db'} (run again with the same --out to resume)")


def _tuned_value(value) -> str:
    return "" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


@app.command()
def datasets(data_dir: Optional[Path] = DataDir,
             counts: bool = typer.Option(True, "--counts/--no-counts", help="load each dataset to count it")):
    """The named datasets with split sizes and label counts."""
    from .data.registry import DATASETS, load_dataset

    table = Table("name", "description", "train", "dev", "test", "labels (train counts)")
    for name, spec in DATASETS.items():
        if not counts:
            table.add_row(name, spec.description, "", "", "", "")
            continue
        try:
            data = load_dataset(name, data_dir=data_dir)
        except AttentiveError as exc:
            table.add_row(name, spec.description, "-", "-", "-", f"[red]{exc}[/]")
            continue
        labels = ", ".join(f"{k}:{v}" for k, v in data.label_counts("train").items()) if data.labels else "-"
        table.add_row(name, spec.description, *(str(len(data.splits.get(s, []))) for s in ("train", "dev", "test")),
                      labels)
    console.print(table)


@app.command()
def recipes():
    """The recipes shipped with attentive."""
    from .recipes import available_recipes, load_recipe

    table = Table("recipe", "description")
    for name in available_recipes():
        table.add_row(name, Text(load_recipe(name).description or ""))  # Text: "[word; aspect]" is not markup
    console.print(table)


@app.command()
def demo(out: Path = typer.Option(Path("runs/demo"), "--out"), recipe: str = typer.Option("default", "--recipe"),
         set_: list[str] = typer.Option([], "--set", help="recipe overrides: section.key=value"),
         show: int = typer.Option(6, "--show")):
    """Train on the bundled SST-2 sample, report test metrics and show attention heatmaps of a few test sentences."""
    from .api import train as train_model
    from .data.registry import load_dataset
    from .explain.terminal import explanation_table

    data = load_dataset("sst2_sample")
    console.print(f"[bold]demo[/]: {recipe} on {data.name} (train {len(data.splits['train'])}, "
                  f"dev {len(data.splits['dev'])}, test {len(data.splits['test'])})")
    model = train_model(data, recipe, out, set_, overwrite=True)  # the demo's folder is its own
    print_metrics(model.evaluate(data, "test"))
    sample = data.splits["test"][:show]
    console.print(explanation_table(model.explain([ex.text for ex in sample]), gold=[ex.label for ex in sample]))
    console.print(f"model saved to {out}; try: attentive explain {out} \"a gorgeous and witty film\"")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every error is one line on stderr with exit status 2, never a traceback (attentive.cli_errors)."""
    from .cli_errors import run_reporting_errors

    return run_reporting_errors(app, argv, err)


def run() -> None:
    sys.exit(main())
