"""`attentive evaluate`, `predict` and `explain`: a model's answers, scores and reasons."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ..errors import AttentiveError
from .app import (
    AspectOption,
    DataDir,
    InputOption,
    LabelSeparator,
    OnErrorOption,
    PairOption,
    ThreadsOption,
    _dataset,
    _load_any,
    _report_data,
    _use_threads,
    app,
    console,
    err,
)


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
    from ..api import load
    from ..folders.saved import mark_stale_results
    from ..util.atomic import atomic_write_json

    _use_threads(threads)
    model = load(run)
    if test_file is not None:
        from ..data.registry import load_test_file

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


def _wanted(model, texts, pair, input_file, aspect):
    from ..serving.input_lines import command_line_records, jsonl_records, with_aspects

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
    from ..serving.input_lines import answered_in_batches

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
    """predict with --jobs N (worker processes, attentive.serving.parallel_predict) or --output FILE (resumable)."""
    from ..serving.input_lines import command_line_records, jsonl_records
    from ..serving.parallel_predict import predict as predict_records
    from ..util.threads import oversubscription_warning, usable_cores

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
    from ..answer.types import faithfulness_line
    from ..explain.terminal import explanation_table, word_table
    from ..serving.input_lines import BadLine, answer
    from ..util.atomic import atomic_write_text

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
        from ..explain.html import explanation_html

        atomic_write_text(html_file, explanation_html(explanations, faithfulness=faithful))
        console.print(f"written {html_file}")
    if png_file is not None:
        from ..explain.png import save_png

        save_png(explanations, png_file)
        console.print(f"written {png_file}")
