"""What the commands share: the typer app, the consoles and the helpers that pick threads, report the data read
and open a model folder (the options several commands declare are in attentive/cli/options.py)."""
from __future__ import annotations

import contextlib
from pathlib import Path

import typer
from rich.console import Console, ConsoleDimensions
from rich.text import Text

from ..errors import AttentiveError

PIPED_WIDTH = 240  # the columns of tables written to a pipe or a file, which has no width to fit


class Terminal(Console):
    """A console as wide as its terminal; writing to a pipe or a file (a log), where rich would cut every table at 80
    columns, PIPED_WIDTH wide (or $COLUMNS), so that `--words`, the confusion matrix and tune's trials are whole.
    Plain (`plain`) where colour does not show, so that the heatmaps mark their words in the text."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal and not self._environ.get("COLUMNS", "").isdigit():
            return ConsoleDimensions(PIPED_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)

    @property
    def plain(self) -> bool:
        """Whether colour does not show here: not a terminal, NO_COLOR, or no colour system."""
        return not self.is_terminal or self.no_color or self.color_system is None


app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Train, evaluate, explain compact attention-based text classifiers.")
console = Terminal()
err = Terminal(stderr=True)


def _use_threads(threads: int | None, torch_needed: bool = True) -> int:
    """Set the threads (attentive.util.threads) and say on stderr, in one line, when the machine is oversubscribed."""
    from ..util.threads import machine_warning, use_threads

    threads = use_threads(threads, torch_needed)
    warning = machine_warning(threads)
    if warning:
        err.print(Text("warning: ", style="yellow") + Text(warning), soft_wrap=True)
    return threads


def _report_data(data) -> None:
    """What the readers dropped, merged or noticed, so that nothing is lost without a count: notes (rows dropped,
    rows spanning several lines, how dev was made) and warnings (labels only dev or test has)."""
    for note in data.notes:
        err.print(Text(f"{data.name}: {note}", style="dim"), soft_wrap=True)
    for warning in data.warnings:
        err.print(Text("warning: ", style="yellow") + Text(f"{data.name}/{warning}"), soft_wrap=True)


@contextlib.contextmanager
def said_as_warnings(*categories: type[Warning]):
    """Inside: each Python warning of `categories` is said on stderr as the CLI says its warnings (one line, no file
    and line number), every time it is given; other warnings as Python shows them."""
    import warnings

    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, categories):
                err.print(Text("warning: ", style="yellow") + Text(str(message)), soft_wrap=True)
            else:
                shown(message, category, filename, lineno, file, line)

        for category in categories:
            warnings.simplefilter("always", category)
        warnings.showwarning = show
        yield


def _load_any(run: Path, threads: int | None = None, fp32: bool = False):
    """`attentive.opening.open_model`: a saved model folder (PyTorch) or an exported one (ONNX Runtime, see `attentive
    export`: its int8 graph where it has one, unless `fp32`, which a saved model refuses), computing with `threads`
    (None: attentive.util.threads.default_threads()), said on stderr where that oversubscribes the machine."""
    from ..opening import open_model

    if fp32:
        _check_fp32(run)
    return open_model(run, _use_threads(threads, torch_needed=False), int8=False if fp32 else None)


def _check_fp32(run: Path) -> None:
    """--fp32 picks an export's float graph over its int8 one: a saved (PyTorch) model has neither, and is refused
    rather than run as it would be without it. A folder that holds no model is left to opening it to say so."""
    from ..onnx_format.read import is_exported

    if (run / "config.json").is_file() and not is_exported(run):
        raise AttentiveError(f"--fp32 chooses between an export's int8 and float graphs; {run} is a saved PyTorch "
                             "model, which has neither: drop --fp32")
