"""LAMA's long-text claim (paper §5.2): heads on IMDB's long reviews beside its short ones.

    python -m benchmarks.papers.lama.long_texts [--jobs N] [--deadline SECONDS] [--device cuda|cpu]

IMDB is cut at the mean train length in words, as the paper cut Yelp for YelpL; each half trains `lama_ctx` (heads)
and `san` (hops) at each count and seed, 3 epochs at most, 800 tokens, the epoch chosen on the half's dev. Runs go
seed by seed so a `--deadline` leaves whole comparisons. Writes `long-texts-<half>-<model>-<count>-s<seed>.json`."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import NamedTuple

from tokenizers.pre_tokenizers import Whitespace

import attentive
from attentive import Dataset
from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.harness.formatting import fmt_mean_std, md_head, md_row
from benchmarks.harness.results_io import load_papers, machine_short

HALVES = ("long", "short")
COUNT_KEY = {"lama_ctx": "pooler.heads", "san": "pooler.hops"}
COUNTS, SEEDS = (1, 2, 5, 10, 20), (0, 1, 2)
MAX_LENGTH = 800
SETTINGS = ("train.epochs=3", "train.patience=1", f"tokenizer.max_length={MAX_LENGTH}")
WARM_UP = ("train.epochs=1", "train.batches_per_epoch=1", f"tokenizer.max_length={MAX_LENGTH}")
LENGTH_UNIT = "whitespace-separated words (str.split)"
_PRE_TOKENIZER = Whitespace()  # how attentive's word tokenizer splits text


class Task(NamedTuple):
    """One run of the table, or (`warm_up`) the single batch that caches a half's word vectors."""

    half: str
    model: str
    count: int
    seed: int
    warm_up: bool = False


def word_count(text: str) -> int:
    return len(text.split())


def token_count(text: str) -> int:
    return len(_PRE_TOKENIZER.pre_tokenize_str(text))


def cut_halves(dataset: Dataset) -> tuple[float, dict[str, Dataset]]:
    """The mean train length, and the dataset cut at it: "long" (> mean) and "short", every split alike."""
    cut = statistics.fmean(word_count(ex.text) for ex in dataset.splits["train"])
    return cut, {half: Dataset(f"{dataset.name}-{half}", {
        split: [ex for ex in dataset.splits[split] if (word_count(ex.text) > cut) == (half == "long")]
        for split in ("train", "dev", "test")}, list(dataset.labels)) for half in HALVES}


def result_name(task: Task) -> str:
    return f"long-texts-{task.half}-{task.model}-{task.count}-s{task.seed}"


def plan(halves: Sequence[str], models: Sequence[str], counts: Sequence[int], seeds: Sequence[int]) -> list[Task]:
    """Every run, all of seed 0 first."""
    return [Task(half, model, count, seed) for seed in seeds for half in halves for model in models for count in counts]


_HALVES: list[tuple[float, dict[str, Dataset]]] = []  # per worker: IMDB cut once


def init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def halves() -> tuple[float, dict[str, Dataset]]:
    if not _HALVES:
        _HALVES.append(cut_halves(attentive.load_dataset("imdb")))
    return _HALVES[0]


def run_task(task: Task, device: str | None, results_dir: Path | None) -> str:
    """Train one task; a run writes its result file. Returns the line to print."""
    import torch

    cut, cut_data = halves()
    data = cut_data[task.half]
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
        "kind": "long_texts", "recipe": task.model, "dataset": "imdb", "variant": f"long-texts-{task.half}",
        "half": task.half, "count_key": COUNT_KEY[task.model], "count": task.count, "seed": task.seed,
        "mean_length_cut": round(cut, 2), "length_unit": LENGTH_UNIT, "rows": rows,
        "beyond_max_length": round(sum(token_count(ex.text) > MAX_LENGTH for ex in data.splits["train"])
                                   / max(1, rows["train"]), 4),  # train reviews of more tokens than are read
        "limit": None, "wall_time_s": round(time.perf_counter() - started, 1),
        "dev": dev, "test": test, "selected_on": "dev accuracy (best epoch)",
        "best_epoch": training["best_epoch"], "epochs_run": training["epochs_run"],
        "epoch_times_s": [round(s, 2) for s in training["epoch_seconds"]],
        "dev_curve": [round(epoch["dev_accuracy"], 5) for epoch in model.history.epochs],
        "params": sum(p.numel() for p in model.network.parameters() if p.requires_grad),
        "device": model.device, "torch_threads": torch.get_num_threads(),
        "hyperparameters": model.config["recipe"], "overrides": overrides, "vectors": model.config["vectors"],
    }
    name = result_name(task)
    path = write_result(name, payload, results_dir)
    return (f"{name}: dev {dev['accuracy']:.4f} test {test['accuracy']:.4f} (best epoch {training['best_epoch']}, "
            f"{payload['wall_time_s']} s) -> {path}")


def schedule(tasks: list[Task], jobs: int, deadline: float | None, submit) -> int:
    """Run `tasks` `jobs` at a time through `submit(task) -> Future`, a half's runs after its warm-up, none started
    after `deadline` seconds; the number of failed tasks."""
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

    parser.add_argument("--jobs", type=int, default=1, help="runs at once, each its own process of one torch thread")
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="start no run after this many seconds; finished runs are kept")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda where there is one)")
    parser.add_argument("--results-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    commit_at_start()
    runs = plan(HALVES, list(COUNT_KEY), COUNTS, SEEDS)
    warm_ups = [Task(half, "lama_ctx", COUNTS[0], 0, warm_up=True) for half in HALVES]
    print(f"{len(runs)} runs, {args.jobs} at once, on {args.device or 'the default device'}", flush=True)
    os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"), initializer=init_worker,
                             initargs=(1,)) as pool:
        failed = schedule(warm_ups + runs, args.jobs, args.deadline,
                          lambda task: pool.submit(run_task, task, args.device, args.results_dir))
    return 1 if failed else 0


TITLE = "Heads against length (LAMA paper §4.1.1, §5.2)"
LABEL = {"lama_ctx": "LAMA+Ctx", "san": "SAN"}
COUNTED = {"lama_ctx": "heads", "san": "hops"}
FULL = 3  # seeds a cell should have; fewer are marked


def cells(runs: list[dict]) -> dict[tuple[str, int, str], list[dict]]:
    """(recipe, count, half) -> its runs, one per seed."""
    grouped: dict[tuple[str, int, str], dict[int, dict]] = defaultdict(dict)
    for run in runs:
        grouped[(run["recipe"], int(run["count"]), run["half"])][run["seed"]] = run
    return {key: list(by_seed.values()) for key, by_seed in grouped.items()}


def _accuracies(runs: list[dict], split: str) -> list[float]:
    return [run[split]["accuracy"] for run in runs]


def _cell(runs: list[dict] | None, split: str) -> str:
    if not runs:
        return "not run"
    mark = "" if len(runs) >= FULL else " †"
    return f"{fmt_mean_std(_accuracies(runs, split))} ({len(runs)}){mark}"


def gain(table: dict, recipe: str, half: str, counts: list[int]) -> tuple[float, int, list[float]]:
    """On one half: test accuracy at the count dev prefers minus at the fewest, that count, the two cells' stds."""
    best = max(counts, key=lambda c: statistics.fmean(_accuracies(table[(recipe, c, half)], "dev")))
    ends = [_accuracies(table[(recipe, c, half)], "test") for c in (counts[0], best)]
    stds = [statistics.stdev(values) for values in ends if len(values) > 1]
    return statistics.fmean(ends[1]) - statistics.fmean(ends[0]), best, stds


def verdict(table: dict) -> str:
    """Does accuracy rise with heads more on the long half than on the short, and by how much."""
    parts, lama = [], None
    for recipe in (r for r in LABEL if any(key[0] == r for key in table)):
        counts = sorted({c for (r, c, h) in table if r == recipe and all((r, c, x) in table for x in HALVES)})
        if len(counts) < 2:
            continue
        (long_gain, long_best, long_stds), (short_gain, short_best, short_stds) = (
            gain(table, recipe, half, counts) for half in HALVES)
        difference, noise = (long_gain - short_gain) * 100, max(long_stds + short_stds, default=None)
        if long_gain <= 0 or difference <= 0:
            holds = "does not hold"
        elif noise is None:
            holds = "holds on one seed (no noise estimate)"
        else:
            holds = "holds" if difference > noise * 100 else "holds only within seed noise"
        noted = f"seed std up to {noise * 100:.2f}" if noise is not None else "one seed"
        fewest = f"{counts[0]} {COUNTED[recipe].removesuffix('s') if counts[0] == 1 else COUNTED[recipe]}"
        text = (f"{LABEL[recipe]}, from {fewest} to the count dev prefers "
                f"({long_best} long, {short_best} short), gains {long_gain * 100:+.2f} points of test accuracy on "
                f"the long half and {short_gain * 100:+.2f} on the short, {difference:+.2f} points more on long "
                f"texts ({noted})")
        if recipe == "lama_ctx":
            lama = holds
        parts.append(text)
    if not parts:
        return "Verdict: too few counts run on both halves to compare."
    subject = "the paper's claim " + (f"**{lama}** here for LAMA+Ctx" if lama else "is about LAMA's heads, not run")
    return f"Verdict: {subject}: " + "; ".join(parts) + "."


def long_texts_section(results: list[dict]) -> list[str]:
    """The section's lines, or [] without any long-text run."""
    runs = [r for r in results if r.get("kind") == "long_texts"]
    if not runs:
        return []
    table = cells(runs)
    first = max(runs, key=lambda r: r.get("date", ""))
    rows = {half: next(r["rows"] for r in runs if r["half"] == half) for half in HALVES if any(
        r["half"] == half for r in runs)}
    sizes = "; ".join(f"{half} half {', '.join(f'{n:,} {split}' for split, n in rows[half].items())}"
                      for half in rows)
    long_cut = [r["beyond_max_length"] for r in runs if r["half"] == "long"]
    machines = ", ".join(sorted({machine_short(r) for r in runs}))
    paper = load_papers()["lama_long"]
    lines = [f"## {TITLE}", "",
             f"IMDB cut where the LAMA paper cut Yelp for YelpL: at the mean length of the train reviews, "
             f"{first['mean_length_cut']:.1f} {first['length_unit']}; train, dev and test alike, \"long\" "
             f"above it, \"short\" at or below ({sizes}). No public long-review set ships here beyond IMDB, so YelpL "
             "itself is not run. `python -m benchmarks.papers.lama.long_texts` (results `long-texts-*.json`): the "
             "heads sweep's "
             f"budget (at most 3 epochs, patience 1, epoch chosen on the half's dev split) reading 800 tokens"
             + (f" ({max(long_cut) * 100:.0f}% of the long train reviews are longer)" if long_cut else "")
             + f", on {machines}. Accuracy (%), mean ± sample std over seeds (number of seeds); † fewer than "
             f"{FULL} seeds.", "",
             *md_head(["model", "heads / hops", "long: dev", "long: test", "short: dev", "short: test"], "lrrrrr")]
    for recipe in (r for r in LABEL if any(key[0] == r for key in table)):
        for count in sorted({c for (r, c, _) in table if r == recipe}):
            shown = [_cell(table.get((recipe, count, half)), split) for half in HALVES for split in ("dev", "test")]
            lines.append(md_row([LABEL[recipe], str(count), *shown]))
    return lines + ["", f"The paper's claim ({paper['short']}): {paper['claim']}.", "", verdict(table), ""]


if __name__ == "__main__":
    sys.exit(main())
