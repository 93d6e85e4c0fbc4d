"""Data-parallel training under torchrun (PyTorch DDP: gloo on CPU, NCCL on CUDA).

`torchrun --nproc-per-node N -m attentive train ...` (or `attentive train --nproc N`, which launches it) starts N
processes; torchrun sets WORLD_SIZE, RANK and LOCAL_RANK in each. `session` joins them into a process group for
the length of a training run (and leaves it at the end, when it made it). Every rank builds the same batch list
of an epoch from the same seeded generator and trains on its `shard` of it; DistributedDataParallel (`wrap`)
averages the gradients of each step over the ranks, so the parameters stay identical. Dev accuracy is measured on
rank 0 and its numbers `broadcast_object` to the others, so that every rank takes the same best-epoch and
early-stopping decisions and none waits for a step the others never take. Only rank 0 (`is_main`) writes files.

Dropout: each rank draws its own seeded stream (`seed_rank_stream`, started afresh every epoch from the epoch's
batches and the rank), so that the ranks do not drop the same units of their different batches, and a run resumed
from rank 0's checkpoint draws in each rank what the uninterrupted run drew there.

Outside torchrun (no WORLD_SIZE above 1 and no process group) every function is the single-process answer: rank
0 of a world of 1, `shard` the identity, `barrier` and `broadcast_object` no-ops.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.distributed as dist

from ..errors import AttentiveError


def launched() -> bool:
    """Whether this process is one of several that torchrun started (WORLD_SIZE above 1)."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1")) > 1
    except ValueError:
        return False


def active() -> bool:
    """Whether a process group of more than one process is set up."""
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def rank() -> int:
    """This process's rank: the process group's, else torchrun's RANK, else 0."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank()
    try:
        return int(os.environ.get("RANK", "0")) if launched() else 0
    except ValueError:
        return 0


def world_size() -> int:
    """The number of processes training together (1 without a process group)."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def is_main() -> bool:
    """Whether this process is rank 0, the one that writes the model, logs and checkpoints."""
    return rank() == 0


def barrier() -> None:
    """Wait until every rank is here (nothing without a process group)."""
    if active():
        dist.barrier()


def broadcast_object(obj):
    """Rank 0's `obj` (any picklable value), on every rank; `obj` itself without a process group."""
    if not active():
        return obj
    holder = [obj if is_main() else None]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def all_sum(values: Sequence[float]) -> list[float]:
    """The element-wise sum of `values` over the ranks (the values themselves without a process group)."""
    if not active():
        return list(values)
    device = f"cuda:{torch.cuda.current_device()}" if dist.get_backend() == "nccl" else "cpu"
    tensor = torch.tensor(list(values), dtype=torch.float64, device=device)
    dist.all_reduce(tensor)
    return tensor.tolist()


def shard_size(count: int) -> int:
    """How many of `count` batches each rank trains on: ceil(count / world), so that every text is seen."""
    return math.ceil(count / world_size()) if count else 0


def shard(batches: Sequence) -> list:
    """This rank's share of an epoch's `batches`: rank r takes batches r, r + N, r + 2N, ...; the last round is
    padded from the start of the list so that every rank takes `shard_size` steps (DDP needs the same number of
    steps on every rank: one more on one rank would wait forever for the others' gradients). It is called once an
    epoch, before the epoch's steps, and starts this rank's dropout stream for them (`seed_rank_stream`)."""
    world = world_size()
    if world == 1:
        return list(batches)
    me = rank()
    seed_rank_stream(batches, me)
    return [batches[(me + step * world) % len(batches)] for step in range(shard_size(len(batches)))]


def rank_seed(batches: Sequence, rank_: int) -> int:
    """A seed (below 2**63) from an epoch's batches (arrays of row indices) and a rank: the same on every call with
    the same batches, another for every rank."""
    digest = hashlib.sha256(f"rank {rank_};".encode("ascii"))
    for batch in batches:
        digest.update(np.ascontiguousarray(batch, dtype=np.int64).tobytes())
        digest.update(b";")
    return int.from_bytes(digest.digest()[:8], "little") >> 1


def seed_rank_stream(batches: Sequence, rank_: int) -> None:
    """Seed torch's generators (dropout's) for this rank's steps of the epoch whose batches are `batches`.

    Why a stream per rank: seeded alike, every rank would draw the same dropout masks for the different batches
    it trains on, the same units dropped everywhere in a step. Why afresh every epoch, from the batches: every rank
    draws the same batches from the run's seeded numpy generator, which the checkpoint keeps (rank 0's, the same
    as every rank's), and draws them again when the run is resumed; torch's generator differs between the ranks
    and only rank 0's is in the checkpoint. So a resumed data-parallel run trains, on CPU, the model the
    uninterrupted run trains (tests/training/test_ddp.py)."""
    torch.manual_seed(rank_seed(batches, rank_))


def local_device(device: str) -> str:
    """The device of this rank: on CUDA under torchrun, the GPU numbered LOCAL_RANK; `device` otherwise."""
    if launched() and device == "cuda":
        return f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}"
    return device


@contextlib.contextmanager
def session(device: str) -> Iterator[None]:
    """The process group of a torchrun job for the run inside (NCCL on CUDA, gloo on CPU), made where torchrun
    started this process and none exists yet, and left at the end (only when made here); nothing otherwise.

    torch.distributed.nn is imported before the group is made. Its functions take `group=group.WORLD` as a default,
    evaluated on import: imported while a group exists (as training does, through torch._dynamo, on its first
    seeded initialisation), ten of them keep that group for good, `destroy_process_group` leaves its threads
    running, and a rank then aborted now and then at exit ("terminate called without an active exception") after
    the model was saved, failing the job (tests/training/test_ddp.py looks for the threads)."""
    if not launched() or (dist.is_available() and dist.is_initialized()):
        yield
        return
    if not dist.is_available():
        raise AttentiveError("torchrun started this process, but this PyTorch build has no torch.distributed")
    import torch.distributed.nn  # noqa: F401  (before init_process_group: see above)
    cuda = device.startswith("cuda")
    if cuda:
        torch.cuda.set_device(torch.device(device))
    dist.init_process_group("nccl" if cuda else "gloo")
    try:
        yield
        dist.barrier()  # every rank done before any tears the group down (a rank that failed skips it: the others'
        # barrier then fails at once, as any collective would)
    finally:
        dist.destroy_process_group()


@contextlib.contextmanager
def main_first() -> Iterator[None]:
    """Rank 0 runs the block first, the others once it is done (to read what it cached, word vectors say)."""
    if not is_main():
        barrier()
    yield
    if is_main():
        barrier()


def check_same(text: str, what: str) -> None:
    """Stop with one line where this rank's `text` differs from rank 0's (say the vocabulary each rank built)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if broadcast_object(digest) != digest:
        raise AttentiveError(f"rank {rank()} built another {what} than rank 0 from the same data: data-parallel "
                             "training needs every rank to read the same data")


def wrap(model: torch.nn.Module, device: str, find_unused: bool = False) -> torch.nn.Module:
    """`model` in DistributedDataParallel (rank 0's parameters and buffers copied to every rank now; each step's
    gradients averaged over the ranks during backward). `find_unused`: some trainable parameter gets no gradient
    in a step (DDP must then look for them after every forward)."""
    from torch.nn.parallel import DistributedDataParallel

    ids = [torch.device(device).index] if device.startswith("cuda") else None
    return DistributedDataParallel(model, device_ids=ids, find_unused_parameters=find_unused)
