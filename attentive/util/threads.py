"""How many threads a process computes with, and the warning when the machine is oversubscribed.

Two jobs that each spin one thread per core on the same cores slow each other many times over. The default therefore
divides the usable cores among the local processes (torchrun's LOCAL_WORLD_SIZE), and honours OMP_NUM_THREADS where it
is set (torchrun sets it, and a script may, to pin one thread per process or lane).
"""
from __future__ import annotations

import os
import sys

from .checks import check_threads

# The load average (work already running) plus our threads may exceed the cores by this fraction of them before
# the machine counts as oversubscribed: a load average moves slowly and counts short jobs too.
LOAD_MARGIN = 0.5
ADVICE = ("two jobs on the same cores slow each other many times over; give --threads 1 to each, "
          "or run one at a time")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else every core)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def local_processes() -> int:
    """How many processes of this job share the machine: LOCAL_WORLD_SIZE (as torchrun sets it), else 1."""
    try:
        return max(int(os.environ.get("LOCAL_WORLD_SIZE", "1")), 1)
    except ValueError:
        return 1


def default_threads() -> int:
    """OMP_NUM_THREADS where it is set to a positive number, else the usable cores divided by the local processes;
    at least 1."""
    try:
        pinned = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        pinned = 0
    if pinned > 0:
        return pinned
    return max(usable_cores() // local_processes(), 1)


def use_threads(threads: int | None = None, torch_needed: bool = False) -> int:
    """Set PyTorch's intra-op threads to `threads` (None: default_threads()) when the command needs PyTorch or has
    imported it already (the torch-free runtime path does not import it); return the number, for an exported
    model's lanes (attentive/answer/lanes.py). Any other `threads` than None or an integer ≥ 1 is an ArgumentError,
    as the CLI's --threads refuses it."""
    threads = check_threads(threads) or default_threads()
    if torch_needed or "torch" in sys.modules:
        import torch

        torch.set_num_threads(threads)
    return threads


def oversubscription_warning(threads: int, processes: int, cores: int, load_average: float | None) -> str | None:
    """One line naming the numbers when `threads` x `processes` exceed `cores`, or when the job wants every core
    and the 1-minute `load_average` (the work already running, None where unknown) plus its threads exceed the cores
    by LOAD_MARGIN of them; None otherwise."""
    wanted = threads * processes
    if wanted > cores:
        return (f"{processes} process(es) x {threads} thread(s) = {wanted} threads on {cores} core(s): {ADVICE}")
    if load_average is not None and wanted >= cores and load_average + wanted > cores * (1 + LOAD_MARGIN):
        return (f"{wanted} thread(s) on {cores} core(s) already running a load of {load_average:.1f}: {ADVICE}")
    return None


def machine_warning(threads: int) -> str | None:
    """oversubscription_warning for this machine: its usable cores, local processes and 1-minute load average."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not every system has one
        load = None
    return oversubscription_warning(threads, local_processes(), usable_cores(), load)
