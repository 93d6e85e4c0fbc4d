"""A call's network batches answered on several threads at once: ONNX Runtime's parallelism across batches, not
within each operator.

The exported graph of a small model runs each operator in microseconds. Splitting an operator over two intra-op
threads wakes the second thread for it (ONNX Runtime's idle threads sleep rather than spin:
attentive/onnx_format/read.py), which costs more than it saves on a small model's short texts. ONNX Runtime runs one
session's
`run` from several threads at once and releases the GIL while it computes, so `Lanes` runs whole batches side by side
instead, each on one thread, the caller's own thread being one of them. The batches are those the call would be
cut into on one thread, so every answer is bitwise the answer of one thread: only the time changes.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np


class Lanes:
    """`count` threads that answer a call's batches (the caller's thread and `count` - 1 workers, started on the
    first call that has work for two)."""

    def __init__(self, count: int):
        self.count = max(int(count), 1)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid: int | None = None  # a pool started before a fork has no threads in the child
        self._starting = threading.Lock()

    def run(self, batches: Sequence[np.ndarray], widths: Sequence[int], answer: Callable[[np.ndarray], None]) -> None:
        """`answer(batch)` for every batch (index arrays into the call's texts, `widths` their padded lengths), on
        up to `count` threads; the largest batches first, each lane taking the next batch as it finishes one (so a
        long batch does not leave the other lanes idle at the end). A lane whose worker is busy with another call's
        batches when this call's are all taken is dropped, not waited for. An exception of any batch is raised here,
        after every lane has stopped."""
        if self.count == 1 or len(batches) < 2:
            for batch in batches:
                answer(batch)
            return
        largest_first = sorted(range(len(batches)), key=lambda i: -len(batches[i]) * widths[i])
        queue, lock, failed = iter(largest_first), threading.Lock(), threading.Event()

        def lane() -> None:
            while not failed.is_set():
                with lock:
                    index = next(queue, None)
                if index is None:
                    return
                try:
                    answer(batches[index])
                except BaseException:
                    failed.set()  # the other lanes take no further batch
                    raise

        workers = [self._workers().submit(lane) for _ in range(min(self.count, len(batches)) - 1)]
        try:
            lane()
        finally:
            for worker in workers:  # a lane still queued (its worker busy with another call) is not waited for
                if not worker.cancel():
                    worker.exception()  # wait for every running lane before raising any lane's error
        for worker in workers:
            if not worker.cancelled():
                worker.result()

    def _workers(self) -> ThreadPoolExecutor:
        with self._starting:  # two calls from two threads start one pool
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = ThreadPoolExecutor(self.count - 1, thread_name_prefix="attentive-lane")
                self._pool_pid = os.getpid()
            return self._pool
