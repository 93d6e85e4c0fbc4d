"""The line shown while word vectors are built before the first epoch (`vectors_progress`, read by
attentive/text/sources.py and attentive/text/distilled.py): the sources, the vocabulary's size, the time spent, and a
bar of the words encoded where the distilled vectors' encoder runs word by word."""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

_SHOWN: contextvars.ContextVar[bool] = contextvars.ContextVar("attentive_vectors_progress", default=False)
_STEP: contextvars.ContextVar[Callable[[int, int], None] | None] = contextvars.ContextVar("attentive_vectors_step",
                                                                                          default=None)


@contextlib.contextmanager
def vectors_progress(show: bool) -> Iterator[None]:
    """Within this block, `initial_vectors` shows a progress line while it builds the vectors where `show` (as the
    training loop shows its bar, attentive/training/loop.py): the sources and the vocabulary's size, the time spent,
    and a bar of the words encoded where they are computed word by word (the distilled vectors' encoder)."""
    token = _SHOWN.set(show)
    try:
        yield
    finally:
        _SHOWN.reset(token)


def vectors_step(done: int, total: int) -> None:
    """Tell the progress line that `done` of `total` words are encoded (nothing where none is shown)."""
    step = _STEP.get()
    if step is not None:
        step(done, total)


@contextlib.contextmanager
def building(what: str) -> Iterator[None]:
    """The progress line of `vectors_progress`, while the block runs (nothing unless shown)."""
    if not _SHOWN.get():
        yield
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn(f"[bold]{what}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=False) as progress:
        task = progress.add_task(what, total=None)
        token = _STEP.set(lambda done, total: progress.update(task, completed=done, total=total))
        try:
            yield
        finally:
            _STEP.reset(token)
