"""`attentive evaluate`, `predict` and `explain`: a model's answers, scores and reasons."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ..answer.answerer import check_top_words_by
from ..errors import AttentiveError
from .app import _load_any, _report_data, app, console, err
from .options import (
    AspectColumn,
    Aspects,
    DataDir,
    Fp32,
    InputFile,
    LabelledFile,
    LabelSeparator,
    ModelDataset,
    ModelLabelColumn,
    ModelTextColumn,
    OnError,
    PairColumn,
    PairTexts,
    Split,
    Threads,
    scored_data,
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
    if metrics.get("by_length"):
        from ..answer.length import length_line

        console.print(length_line(metrics["by_length"]), soft_wrap=True)
    if metrics.get("faithfulness"):
        from ..answer.types import faithfulness_line

        line = faithfulness_line(metrics)  # the deletion test on the split, on the model evaluated
        if line is not None:
            console.print(line, highlight=False, soft_wrap=True)
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
    run: Path = typer.Argument(..., help="a saved or exported model folder"),
    dataset: Optional[str] = ModelDataset,
    split: str = Split,
    test_file: Optional[Path] = LabelledFile,
    text_column: Optional[str] = ModelTextColumn,
    label_column: Optional[str] = ModelLabelColumn,
    pair_column: Optional[str] = PairColumn,
    aspect_column: Optional[str] = AspectColumn,
    label_separator: Optional[str] = LabelSeparator,
    output: Optional[Path] = typer.Option(None, "--output", help="JSON file (default RUN/eval-DATASET-SPLIT.json)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing --output file (an earlier "
                                                            "result of evaluate, in RUN)"),
    threads: Optional[int] = Threads,
    data_dir: Optional[Path] = DataDir,
    fp32: bool = Fp32,
):
    """Accuracy, macro-F1, per-class report and confusion matrix; printed and written as JSON."""
    from ..folders.output_file import claim_file
    from ..folders.saved import evaluate_writes, mark_stale_results
    from ..util.atomic import atomic_write_json

    model = _load_any(run, threads, fp32)  # an export answers from the graph predict and serve run
    data, split = scored_data(model, split, test_file, dataset=dataset, data_dir=data_dir, text_column=text_column,
                              label_column=label_column, pair_column=pair_column, aspect_column=aspect_column,
                              label_separator=label_separator)
    _report_data(data)
    # evaluating again replaces the earlier result the default name holds, as analyze replaces its earlier report;
    # a file the user names, or anything at the default name that is not evaluate's result, needs --overwrite
    again = output is None and evaluate_writes(default := run / f"eval-{data.name}-{split}.json")
    output = output or default
    target = claim_file(output, option="--output", overwrite=overwrite or again, inputs=[test_file], models=[run],
                        own=evaluate_writes)  # its own results in RUN; nothing else of any model folder
    metrics = model.evaluate(data, split)
    faithful = faithfulness_of(model, data.splits[split], split)
    if faithful is not None:
        metrics["faithfulness"] = faithful
    print_metrics(metrics)
    atomic_write_json(target, {**metrics, "model_id": model.config.get("model_id")})
    if target.parent == run.resolve() and target in [path.resolve() for path in mark_stale_results(run)]:
        err.print(f"[yellow]the model in {run} was replaced while it was evaluated: {output} is marked stale[/]")
    console.print(f"written {output}")


def faithfulness_of(model, examples: list, split: str) -> dict | None:
    """evaluate's `faithfulness`: the deletion test on at most 300 seeded texts of the split evaluated, measured on
    the model evaluated (attentive/answer/deletion.py measure: an export's graph in ONNX Runtime, its evidence by
    occlusion; the PyTorch network, its evidence exact or gradient × input), named so (`split`, `measured_on`, an
    export's `graph`). None where no text of the split has two words."""
    from ..answer.deletion import measure

    result = measure(model, examples)
    if result is None:
        return None
    graph = getattr(model, "graph", None)  # an export's: the one that runs (model.int8.onnx where it has one)
    return {"split": split, **result, "measured_on": "pytorch" if graph is None else "onnx",
            **({} if graph is None else {"graph": graph})}


def _one_source(texts, pair, input_file) -> None:
    """The texts come from the command line or from --input, never from both (one of them would be left out)."""
    if input_file is not None and texts:
        raise AttentiveError(f"give texts on the command line or --input {input_file}, not both")
    if input_file is not None and pair:
        raise AttentiveError('--pair goes with texts on the command line: an --input line gives its second text as '
                             'its "text_pair" field')


def _answer_key(answer_key: str | None, input_file) -> str | None:
    """Where an --input line's answer goes (`--answer-key`, "prediction" by default); None for texts given on the
    command line, which are answered flat."""
    from ..answer.inputs import unicode_problem
    from ..scoring.input_lines import ANSWER_KEY, READ_FIELDS

    if input_file is None:
        if answer_key is not None:
            raise AttentiveError("--answer-key names the field of an --input line's answer; texts given on the "
                                 "command line are answered without one: drop --answer-key or give --input FILE")
        return None
    if answer_key is None:
        return ANSWER_KEY
    if not answer_key.strip() or unicode_problem(answer_key) is not None:
        raise AttentiveError(f"--answer-key {answer_key!r}: give a name of valid Unicode text, not blank")
    if answer_key in READ_FIELDS:
        raise AttentiveError(f"--answer-key {answer_key}: predict reads that field of a line: choose another name")
    return answer_key


def _records(model, texts, pair, input_file, answer_key: str | None = None, threshold: float | None = None,
             every_probability: bool = False):
    """The records to answer: an --input file's lines, or the texts given (with their --pair texts); refused where
    the model has no use for --pair or --threshold. An --input file is read in its format (CSV, TSV, a text a line,
    else JSON lines: attentive/scoring/input_tables.py), a table's by the model's columns; its records carry the
    header line their output starts with (`header`, None but for a table)."""
    from ..scoring.input_lines import command_line_records
    from ..scoring.input_tables import file_records

    if pair and not model.is_pair:
        raise AttentiveError("this model classifies single texts, not pairs: drop --pair")
    if threshold is not None and model.thresholds is None:
        raise AttentiveError("--threshold replaces a multi-label model's threshold of every label; this model gives "
                             "one label per text: drop --threshold")
    if input_file is not None:
        return file_records(input_file, model, answer_key, every_probability=every_probability)
    return command_line_records(texts, pair)


def _wanted(model, texts, pair, input_file, aspect, answer_key: str | None = None, threshold: float | None = None,
            every_probability: bool = False):
    from ..scoring.input_lines import with_aspects
    from ..scoring.input_tables import HeadedRecords

    records = _records(model, texts, pair, input_file, answer_key, threshold, every_probability)
    return HeadedRecords(with_aspects(model, records, aspect, str(input_file) if input_file is not None else "text"),
                         getattr(records, "header", None))


@app.command()
def predict(
    run: Path = typer.Argument(..., help="a saved model folder, or an exported one (run without PyTorch)"),
    texts: list[str] = typer.Argument(None, help="texts to classify"),
    input_file: Optional[Path] = InputFile,
    pair: list[str] = PairTexts,
    aspect: list[str] = Aspects,
    top_k: int = typer.Option(5, "--top-k", min=0, help="top words to report"),
    top_words_by: str = typer.Option("auto", "--top-words-by", help="auto: the words of most evidence for the "
                                     "label (how much each adds to its lead over the runner-up, in logits; those "
                                     "above 0), what explain and the page show, where the model gives it, else the "
                                     "most attended; evidence; attention (docs/predict-and-explain.md)"),
    batch_size: int = typer.Option(256, "--batch-size", min=1, help="texts answered at a time: the network's batch, "
                                                                    "and how many lines are read before answering"),
    on_error: str = OnError,
    jobs: int = typer.Option(1, "--jobs", min=1, help="worker processes answering at once, each loading the model "
                                                      "and computing with --threads threads (default 1); the "
                                                      "output keeps the input's order"),
    output: Optional[Path] = typer.Option(None, "--output", help="write the answers to this file (default: "
                                                                 "stdout), with its progress in FILE.progress"),
    resume: bool = typer.Option(False, "--resume", help="continue a killed run's --output FILE after its last "
                                                        "whole line that FILE.progress covers (same input and "
                                                        "model)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing --output FILE"),
    answer_key: Optional[str] = typer.Option(None, "--answer-key", help='--input: the key of each line\'s answer '
                                             '(default "prediction"), added to the line, whose own text comes back '
                                             'byte for byte; a line holding it is a bad line'),
    threshold: Optional[float] = typer.Option(None, "--threshold", min=0.0, max=1.0,
                                              help="multi-label models: one threshold in place of every label's own"),
    abstain_below: Optional[float] = typer.Option(None, "--abstain-below", min=0.0, max=1.0,
                                                  help='single-label models: answer "none of these" (label null, '
                                                       '"abstained": true) where the most probable label\'s '
                                                       "probability is below P (default: the model's own, chosen by "
                                                       "`attentive abstain`; 0: never)"),
    probabilities: bool = typer.Option(False, "--probabilities", help="a CSV or TSV --input: add a column of each "
                                                                     "label's probability (JSON answers hold them "
                                                                     "all anyway)"),
    fp32: bool = Fp32,
    threads: Optional[int] = Threads,
):
    """Label, probabilities and top words as JSON lines, one per text (per text and aspect), streamed: an
    --input line comes back as it is, its answer under "prediction" (--answer-key). A CSV or TSV --input comes back
    in its own format, every column kept, the answer's columns added (prediction, prediction_probability,
    prediction_top_words); a .txt file (a text a line) comes back as JSON lines."""
    from ..scoring.input_lines import answer_line, answered_in_batches

    skipped = []

    def warn(message: str) -> None:
        skipped.append(message)
        err.print(Text("warning: ", style="yellow") + Text(message), soft_wrap=True)

    _one_source(texts, pair, input_file)
    check_top_words_by(top_words_by)
    key = _answer_key(answer_key, input_file)
    if jobs > 1 or output is not None or resume:
        from ..scoring.parallel_predict import PredictRequest

        options = {"top_k": top_k, "threshold": threshold, "top_words_by": top_words_by,
                   "abstain_below": abstain_below}
        request = PredictRequest(str(input_file) if input_file is not None else "text", aspect, jobs, threads,
                                 batch_size, on_error, options, key, output, input_file, resume, overwrite,
                                 probabilities)
        _predict_to(run, texts, pair, request, warn, fp32=fp32)
    else:
        model = _load_any(run, threads, fp32)
        wanted = _wanted(model, texts, pair, input_file, aspect, key, threshold, probabilities)
        if wanted.header is not None:  # a CSV or TSV input's header, with the answer's columns
            print(wanted.header, flush=True)
        answers = answered_in_batches(model, wanted,
                                      batch_size, on_error, "predict", warn, top_k=top_k, threshold=threshold,
                                      top_words_by=top_words_by, abstain_below=abstain_below)
        for record, prediction in answers:
            print(answer_line(record, prediction, key), flush=True)
    if skipped:
        err.print(f"[yellow]{len(skipped)} line(s) skipped[/]")


def _predict_to(run, texts, pair, request, warn, fp32: bool = False) -> None:
    """predict with --jobs N (worker processes, attentive.scoring.parallel_predict) or --output FILE (resumable), as
    `request` (a `PredictRequest`) says, of the command-line `texts` and their `pair` texts or of its --input file;
    `fp32`: an export's model.onnx, not its int8 graph."""
    from ..scoring.parallel_predict import predict as predict_records
    from ..util.threads import oversubscription_warning, usable_cores

    jobs, threads = request.jobs, request.threads
    if request.resume and request.output is None:
        raise AttentiveError("--resume continues an --output FILE: give --output FILE")
    if jobs > 1:
        model = _load_any(run, 1, fp32)  # this process reads and writes; the workers answer (the same graph)
        per_worker = threads or 1
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = None
        warning = oversubscription_warning(per_worker, jobs, usable_cores(), load)
        if warning:
            err.print(Text("warning: ", style="yellow") + Text(warning), soft_wrap=True)
    else:
        model = _load_any(run, threads, fp32)
    records = _records(model, texts, pair, request.input_file, request.answer_key, request.options["threshold"],
                       request.every_probability)
    predict_records(model, run, records, request, warn, header=getattr(records, "header", None))


@app.command()
def explain(
    run: Path = typer.Argument(..., help="a saved model folder, or an exported one (run without PyTorch)"),
    texts: list[str] = typer.Argument(None, help="texts to explain"),
    input_file: Optional[Path] = InputFile,
    pair: list[str] = PairTexts,
    aspect: list[str] = Aspects,
    heads: bool = typer.Option(False, "--heads", help="show every head, not only their sum"),
    per_word: bool = typer.Option(False, "--words", help="per word: attention score, weight and polarity score"),
    html_file: Optional[Path] = typer.Option(None, "--html", help="also write a self-contained HTML page"),
    png_file: Optional[Path] = typer.Option(None, "--png", help="also write a PNG heatmap (words x heads)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace an existing --html or --png file"),
    fp32: bool = Fp32,
    threads: Optional[int] = Threads,
):
    """Prediction, each word's evidence (how much it adds to the label's lead over the runner-up, in logits: what
    predict's top words rank by) and attention of each text: in the terminal, and as HTML and PNG files."""
    from ..answer.types import faithfulness_line
    from ..explain.terminal import explanation_table, word_table
    from ..folders.output_file import claim_file
    from ..scoring.input_lines import BadLine, answer
    from ..util.atomic import atomic_write_text

    _one_source(texts, pair, input_file)
    html_target, png_target = (None if path is None else claim_file(path, option=option, overwrite=overwrite,
                                                                    inputs=[input_file], models=[run])
                               for path, option in ((html_file, "--html"), (png_file, "--png")))
    if html_target is not None and html_target == png_target:
        raise AttentiveError(f"--png {png_file} is the --html file too: name another file for one of them")
    model = _load_any(run, threads, fp32)
    wanted = []
    for item in _wanted(model, texts, pair, input_file, aspect):  # the first bad line stops the reading
        if isinstance(item, BadLine):
            raise item.error()
        wanted.append(item)
    explanations = answer(model, wanted, "explain")
    console.print(explanation_table(explanations, heads=heads, plain=console.plain))
    faithful = faithfulness_line(model.config)  # None for a model trained before it was measured
    if faithful is not None:
        console.print(faithful, highlight=False, soft_wrap=True)
    if per_word:
        for explanation in explanations:
            console.print(word_table(explanation, model.labels))
    if html_file is not None:
        from ..explain.html import explanation_html

        atomic_write_text(html_target, explanation_html(explanations, faithfulness=faithful))
        console.print(f"written {html_file}")
    if png_file is not None:
        from ..explain.png import save_png

        save_png(explanations, png_target)
        console.print(f"written {png_file}")
