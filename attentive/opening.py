"""Opening a model folder of either kind without importing PyTorch for an export: `open_model`, the one place the
command line, predict's worker processes and distillation's teachers decide between a saved model and an export."""
from __future__ import annotations

from pathlib import Path


def open_model(folder: str | Path, threads: int | None = None, int8: bool | None = None):
    """The model a folder holds, whichever kind: a saved one (PyTorch, `attentive.load`) or an exported one (ONNX
    Runtime, `attentive.answer.onnx_backend.load`: its int8 graph where it has one, unless `int8` is False), so that
    predict, explain, evaluate, serve, predict's workers and distillation's teachers open alike. `threads`: what it
    computes with (an export's lanes; PyTorch's threads, set for the process), None: the process's own setting for
    PyTorch, `attentive.util.threads.default_threads()` lanes for an export. An export is opened without importing
    PyTorch."""
    from .answer.onnx_backend import load as load_exported
    from .onnx_format.read import is_exported
    from .util.threads import use_threads

    if is_exported(folder):
        return load_exported(folder, int8=int8, threads=threads)
    from .api import load

    if threads is not None:
        use_threads(threads, torch_needed=True)
    return load(folder)
