"""LAMA's long-text experiment (issue 46, item 2): heads on IMDB's long reviews beside its short ones.

    python -m benchmarks.papers.lama.long_texts [--halves long short] [--models lama_ctx san] [--counts 1 2 5 10 20]
        [--seeds 0 1 2] [--jobs N] [--deadline SECONDS] [--device cuda|cpu] [--results-dir DIR] [--limit N]

The LAMA paper (§4.1.1) builds YelpL from the Yelp reviews longer than their mean (118 tokens) and reports (§5.2,
Fig. 3) that more heads help there. No public long-review set ships here beyond IMDB, so IMDB is cut the same way:
each review's length is its number of whitespace-separated words (`str.split()`), the mean is taken over the TRAIN
reviews, and train, dev and test are each cut into "long" (> mean) and "short" (<= mean) by that one number. Dev is the
IMDB reader's own (carved from train by review-id blocks), never mixed with test.

Each half trains `lama_ctx` with `pooler.heads` and `san` with `pooler.hops` in `--counts`, one run per seed, through
`attentive.train`, at the CPU budget of the project's heads sweep (benchmarks/papers/lama/reproduce_heads.sh: at most
3 epochs,
patience 1) but reading 800 tokens (`tokenizer.max_length=800`): 90% of the long train reviews and every short one
are read whole (tokens are the tokenizer's: words and punctuation runs apart). The epoch is chosen on the half's dev
split; its test split is evaluated once. One result per run,
`long-texts-<half>-<model>-<count>-s<seed>.json` (kind `long_texts`, rendered in BENCHMARKS.md's "Heads against
length"): half, the mean-length cut, rows per split, model, count, device, wall time, dev and test metrics.

Runs go seed by seed (seed 0 of every half, model and count first), so a run cut short by `--deadline` (no run
starts after it; finished ones are kept) still leaves whole comparisons. `--jobs N` runs N at once in worker processes
of one torch thread each. Before a half's runs, one warm-up training of a single batch computes its word2vec vectors,
which attentive caches by the training texts' content: every run of the half then reads them instead of training
its own. `--limit N` cuts each split of each half to a seeded N rows, for a smoke test: those runs carry `limitN` in
their variant and name, and BENCHMARKS.md never shows them.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

from tokenizers.pre_tokenizers import Whitespace

import attentive
from attentive import Dataset
from benchmarks.harness.common import commit_at_start, write_result

HALVES = ("long", "short")
COUNT_KEY = {"lama_ctx": "pooler.heads", "san": "pooler.hops"}  # the model's number of attention heads / hops
MAX_LENGTH = 800
SETTINGS = ("train.epochs=3", "train.patience=1", f"tokenizer.max_length={MAX_LENGTH}")
WARM_UP = ("train.epochs=1", "train.batches_per_epoch=1", f"tokenizer.max_length={MAX_LENGTH}")
LENGTH_UNIT = "whitespace-separated words (str.split)"
LIMIT_SEED = 0
_PRE_TOKENIZER = Whitespace()  # attentive's word tokenizer splits text this way before the vocabulary lookup


class Task(NamedTuple):
    """One training: a run of the table, or (`warm_up`) the single batch that caches a half's word vectors."""

    half: str
    model: str
    count: int
    seed: int
    warm_up: bool = False


def word_count(text: str) -> int:
    """A review's length as the cut counts it: whitespace-separated words."""
    return len(text.split())


def token_count(text: str) -> int:
    """A review's length as the model reads it: the tokenizer's words and punctuation runs (its pre-tokenizer)."""
    return len(_PRE_TOKENIZER.pre_tokenize_str(text))


def cut_halves(dataset: Dataset, limit: int | None = None) -> tuple[float, dict[str, Dataset]]:
    """The mean length of the train reviews, and the dataset cut at it: "long" (> mean) and "short" (<= mean), train,
    dev and test alike. `limit` keeps a seeded `limit` rows of each split of each half (smoke tests only)."""
    cut = statistics.fmean(word_count(ex.text) for ex in dataset.splits["train"])
    halves = {}
    for half in HALVES:
        splits = {}
        for split in ("train", "dev", "test"):
            rows = [ex for ex in dataset.splits[split] if (word_count(ex.text) > cut) == (half == "long")]
            if limit is not None and len(rows) > limit:
                keep = sorted(random.Random(LIMIT_SEED).sample(range(len(rows)), limit))
                rows = [rows[i] for i in keep]
            splits[split] = rows
        halves[half] = Dataset(f"{dataset.name}-{half}", splits, list(dataset.labels))
    return cut, halves


def variant_of(half: str, limit: int | None) -> str:
    return f"long-texts-{half}" + (f"-limit{limit}" if limit is not None else "")


def result_name(task: Task, limit: int | None) -> str:
    return f"{variant_of(task.half, limit)}-{task.model}-{task.count}-s{task.seed}"


def plan(halves: Sequence[str], models: Sequence[str], counts: Sequence[int], seeds: Sequence[int]) -> list[Task]:
    """Every run, seed by seed: all of seed 0 first, so that runs cut off by the deadline leave whole comparisons."""
    return [Task(half, model, count, seed) for seed in seeds for half in halves for model in models for count in counts]


# --------------------------------------------------------------------------- the worker processes

_HALVES: dict[int | None, tuple[float, dict[str, Dataset]]] = {}  # per worker: IMDB cut once, read by every run


def init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def halves_for(limit: int | None) -> tuple[float, dict[str, Dataset]]:
    if limit not in _HALVES:
        _HALVES[limit] = cut_halves(attentive.load_dataset("imdb"), limit)
    return _HALVES[limit]


def run_task(task: Task, limit: int | None, device: str | None, results_dir: Path | None) -> str:
    """Train one task in this process; a run writes its result file. Returns the line to print."""
    import torch

    cut, halves = halves_for(limit)
    data = halves[task.half]
    started = time.perf_counter()
    if task.warm_up:
        model = attentive.train(data, task.model, overrides=[*WARM_UP, f"{COUNT_KEY[task.model]}={task.count}"],
                                device=device, show_progress=False)
        return f"warm-up {data.name}: word vectors {model.config['vectors']} in {time.perf_counter() - started:.1f} s"
    overrides = [*SETTINGS, f"{COUNT_KEY[task.model]}={task.count}"]
    model = attentive.train(data, task.model, overrides=[*overrides, f"train.seed={task.seed}"], device=device,
                            show_progress=False)
    dev, test = model.evaluate(data, "dev"), model.evaluate(data, "test")
    training = model.config["training"]
    rows = {split: len(examples) for split, examples in data.splits.items()}
    payload = {
        "kind": "long_texts", "recipe": task.model, "dataset": "imdb", "variant": variant_of(task.half, limit),
        "half": task.half, "count_key": COUNT_KEY[task.model], "count": task.count, "seed": task.seed,
        "mean_length_cut": round(cut, 2), "length_unit": LENGTH_UNIT, "rows": rows,
        "beyond_max_length": round(sum(token_count(ex.text) > MAX_LENGTH for ex in data.splits["train"])
                                   / max(1, rows["train"]), 4),  # train reviews of more tokens than are read
        "limit": limit, "wall_time_s": round(time.perf_counter() - started, 1),
        "dev": dev, "test": test, "selected_on": "dev accuracy (best epoch)",
        "best_epoch": training["best_epoch"], "epochs_run": training["epochs_run"],
        "epoch_times_s": [round(s, 2) for s in training["epoch_seconds"]],
        "dev_curve": [round(epoch["dev_accuracy"], 5) for epoch in model.history.epochs],
        "params": sum(p.numel() for p in model.network.parameters() if p.requires_grad),
        "device": model.device, "torch_threads": torch.get_num_threads(),
        "hyperparameters": model.config["recipe"], "overrides": overrides, "vectors": model.config["vectors"],
    }
    name = result_name(task, limit)
    path = write_result(name, payload, results_dir)
    return (f"{name}: dev {dev['accuracy']:.4f} test {test['accuracy']:.4f} (best epoch {training['best_epoch']}, "
            f"{payload['wall_time_s']} s) -> {path}")


# --------------------------------------------------------------------------- the scheduler


def schedule(tasks: list[Task], jobs: int, deadline: float | None, submit) -> int:
    """Run `tasks` (warm-ups included) `jobs` at a time through `submit(task) -> Future`; a half's runs start only
    after its warm-up. Starts nothing once `deadline` seconds have passed. Returns the number of failed tasks."""
    started = time.monotonic()
    pending, running, failed = list(tasks), {}, 0
    warming = {task.half for task in tasks if task.warm_up}
    while pending or running:
        late = deadline is not None and time.monotonic() - started > deadline
        if late and pending:
            print(f"deadline ({deadline:.0f} s) passed: {len(pending)} run(s) not started", flush=True)
            pending = []
        while pending and len(running) < jobs:
            ready = next((t for t in pending if t.warm_up or t.half not in warming), None)
            if ready is None:
                break
            pending.remove(ready)
            running[submit(ready)] = ready
        if not running:
            break
        done, _ = wait(list(running), timeout=5, return_when=FIRST_COMPLETED)
        for future in done:
            task = running.pop(future)
            try:
                print(future.result(), flush=True)
            except Exception as error:  # noqa: BLE001 - one failed run must not stop the others
                failed += 1
                print(f"FAILED {task}: {type(error).__name__}: {error}", flush=True)
            if task.warm_up:
                warming.discard(task.half)
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--halves", nargs="+", choices=HALVES, default=list(HALVES))
    parser.add_argument("--models", nargs="+", choices=sorted(COUNT_KEY), default=list(COUNT_KEY))
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 5, 10, 20])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--limit", type=int, default=None, help="cut each split to N rows (smoke tests only)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once, each its own process of one torch thread")
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="start no run after this many seconds; finished runs are kept")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda where there is one)")
    parser.add_argument("--results-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    for option, value in (("--jobs", args.jobs), ("--limit", args.limit)):
        if value is not None and value < 1:
            parser.error(f"{option} must be at least 1, not {value}")
    if min(args.counts) < 1:
        parser.error(f"--counts must be at least 1, not {min(args.counts)}")
    commit_at_start()  # the code that runs is the code at start
    runs = plan(args.halves, args.models, args.counts, args.seeds)
    warm_ups = [Task(half, args.models[0], args.counts[0], 0, warm_up=True) for half in args.halves]
    print(f"{len(runs)} runs, {args.jobs} at once, on {args.device or 'the default device'}", flush=True)
    # one thread per worker for torch, OpenMP and the tokenizers' Rust pool (the workers inherit the environment)
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), initializer=init_worker,
                             initargs=(1,)) as pool:
        failed = schedule(warm_ups + runs, args.jobs, args.deadline,
                          lambda task: pool.submit(run_task, task, args.limit, args.device, args.results_dir))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
