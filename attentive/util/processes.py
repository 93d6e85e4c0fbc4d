"""Worker processes that start without importing the world again.

A "spawn" worker is a new interpreter that imports torch (or ONNX Runtime) and attentive before its first task:
seconds each, paid by every worker of every `predict --jobs N` and `cv --jobs N`. A "forkserver" worker is forked
from a server process that imported them once (`preload`), and is single-threaded when it forks, so that a worker
is as clean as a spawned one (no thread pool of the parent's is copied half-alive) but starts in milliseconds. The
server serves every pool the process opens and ends once the process and the workers it forked have ended; a worker
is the server's child, so one that must not outlive the process it works for watches that process itself
(`exit_with`, called first by every worker of predict and cv). A module of `preload` that is not
installed (torch under the torch-free runtime) is left out by multiprocessing itself. Where the platform has no fork
server (Windows), workers are spawned as before.
"""
from __future__ import annotations

import multiprocessing
import os
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


def exit_with(parent: int, every: float = 0.5) -> None:
    """End this worker soon after `parent`, the process it works for, is gone: a killed `predict` or `cv` (SIGKILL,
    no cleanup) leaves no workers behind, holding a model and waiting for work that never comes, or training on and
    writing into a folder whose command has ended (os._exit: no cleanup, no write finished). The worker is the fork
    server's child, not `parent`'s (and the server lives as long as any worker does), so it watches `parent` itself:
    through a pidfd, readable once the process has ended, where Linux gives one; else by asking every `every`
    seconds whether the pid still exists."""
    import threading

    try:
        handle = os.pidfd_open(parent)
    except ProcessLookupError:  # gone already
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd here (not Linux, or before 5.3)
        handle = None

    def watch() -> None:
        if handle is not None:
            import select

            select.select([handle], [], [])
        else:
            import time

            while _exists(parent):
                time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, as another user's
        return True
