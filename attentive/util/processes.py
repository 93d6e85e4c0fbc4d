"""Worker processes that start without importing the world again.

A "spawn" worker is a new interpreter that imports torch (or ONNX Runtime) and attentive before its first task:
seconds each, paid by every worker of every `predict --jobs N` and `cv --jobs N`. A "forkserver" worker is forked
from a server process that imported them once (`preload`), and is single-threaded when it forks, so that a worker
is as clean as a spawned one (no thread pool of the parent's is copied half-alive) but starts in milliseconds. The
server serves every pool the process opens and ends once the process and the workers it forked have ended; a worker
is the server's child, so one that must not outlive the process it works for watches that process itself
(attentive/serving/parallel_predict.py, `_exit_with`). A module of `preload` that is not
installed (torch under the torch-free runtime) is left out by multiprocessing itself. Where the platform has no fork
server (Windows), workers are spawned as before.
"""
from __future__ import annotations

import multiprocessing
from collections.abc import Sequence


def worker_context(preload: Sequence[str]):
    """The multiprocessing context for a pool of workers that import `preload`: a fork server that has imported
    them, or "spawn" where there is none. The server's imports are fixed when it starts (the first pool of the
    process): a worker needs no other, since a task's function imports what it uses."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context
