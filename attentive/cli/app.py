"""What the commands share: the typer app, the consoles, the options several commands declare, and the helpers
that pick threads, data and a model folder."""
from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

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
    """Set the threads (attentive.util.threads) and say on stderr, in one line, when the machine is oversubscribed."""
    from ..util.threads import machine_warning, use_threads

    threads = use_threads(threads, torch_needed)
    warning = machine_warning(threads)
    if warning:
        err.print(Text("warning: ", style="yellow") + Text(warning), soft_wrap=True)
    return threads


def _dataset(dataset, train_file, dev_file, test_file, text_column, label_column, data_dir, pair_column=None,
             aspect_column=None, label_separator=None):
    """A registry name, or the user's own files (`label_separator`: their label fields hold label sets), given one
    way (attentive.data.source)."""
    from ..data.source import CLI, DataSource

    return DataSource(dataset=dataset, train=train_file, dev=dev_file, test=test_file, text_column=text_column,
                      label_column=label_column, pair_column=pair_column, aspect_column=aspect_column,
                      label_separator=label_separator, data_dir=data_dir).load(spelling=CLI)


def _report_data(data) -> None:
    """What the readers dropped, merged or noticed, so that nothing is lost without a count: notes (rows dropped,
    rows spanning several lines, how dev was made) and warnings (labels only dev or test has)."""
    for note in data.notes:
        err.print(Text(f"{data.name}: {note}", style="dim"), soft_wrap=True)
    for warning in data.warnings:
        err.print(Text("warning: ", style="yellow") + Text(f"{data.name}/{warning}"), soft_wrap=True)


AspectOption = typer.Option([], "--aspect", help='aspect models: the aspect(s) to answer for (default: a JSONL '
                                                 '"aspect" field, else every aspect the model knows)')
InputOption = typer.Option(None, "--input", help='JSONL file, a "text" field a line ("text_pair" for pair models, '
                                                 'optionally "aspect" for aspect models)')
PairOption = typer.Option([], "--pair", help="pair models: the second text of each text, in order")


OnErrorOption = typer.Option("stop", "--on-error", help="a bad input line: stop (after answering every good line "
                                                     "before it) or skip it with a warning")


Fp32Option = typer.Option(False, "--fp32", help="an export holding model.int8.onnx (exported with --int8): run "
                                                  "model.onnx instead (default: the int8 graph, as exported)")


def _load_any(run: Path, threads: int | None = None, fp32: bool = False):
    """`attentive.api.open_model`: a saved model folder (PyTorch) or an exported one (ONNX Runtime, see `attentive
    export`: its int8 graph where it has one, unless `fp32`), computing with `threads` (None:
    attentive.util.threads.default_threads()), said on stderr where that oversubscribes the machine."""
    from ..opening import open_model

    return open_model(run, _use_threads(threads, torch_needed=False), int8=False if fp32 else None)
