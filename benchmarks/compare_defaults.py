"""Dev accuracy of the defaults table against the rows of the default it replaced, over all nine visible single-text
sets (issue 15's rule: the higher mean dev accuracy over the visible sets wins; test is never read here).

The earlier default's rows are the `defaults` rows moved to `benchmarks/results/superseded/<commit>/` when the recipe
changed; `--earlier-sweep DATASET=VARIANT` takes a dataset's earlier rows from `benchmarks/results/sweeps/` instead
(the earlier recipe with one override, where that override is the only difference on that dataset). Seeds are paired:
the gain of each seed is the mean over the sets of (current - earlier) dev accuracy.

    python -m benchmarks.compare_defaults --earlier 70fe801 --earlier-sweep imdb=whole-texts \\
        --earlier-sweep r8=whole-texts
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from benchmarks.common import RESULTS_DIR
from benchmarks.results_io import DEFAULTS_DATASETS as SINGLE_TEXT_SETS


def dev_accuracy(path: Path) -> float | None:
    """A run's dev accuracy in points, None when the run is missing."""
    return json.loads(path.read_text())["dev"]["accuracy"] * 100 if path.exists() else None


def earlier_path(dataset: str, seed: int, commit: str, sweeps: dict[str, str]) -> Path:
    if dataset in sweeps:
        return RESULTS_DIR / "sweeps" / f"default-{dataset}-{sweeps[dataset]}-s{seed}.json"
    return RESULTS_DIR / "superseded" / commit / f"default-{dataset}-defaults-s{seed}.json"


def compare(commit: str, sweeps: dict[str, str], seeds: tuple[int, ...] = (0, 1, 2)) -> dict:
    """Per set and seed, both dev accuracies; per seed, the paired gain over the sets both have."""
    table = {dataset: {seed: (dev_accuracy(RESULTS_DIR / f"default-{dataset}-defaults-s{seed}.json"),
                              dev_accuracy(earlier_path(dataset, seed, commit, sweeps))) for seed in seeds}
             for dataset in SINGLE_TEXT_SETS}
    gains = {}
    for seed in seeds:
        pairs = [table[dataset][seed] for dataset in SINGLE_TEXT_SETS]
        if all(None not in pair for pair in pairs):
            gains[seed] = statistics.mean(now - before for now, before in pairs)
    return {"table": table, "gains": gains}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--earlier", required=True, help="the superseded/<commit> folder of the earlier rows")
    parser.add_argument("--earlier-sweep", action="append", default=[], metavar="DATASET=VARIANT")
    args = parser.parse_args()
    sweeps = dict(item.split("=", 1) for item in args.earlier_sweep)
    result = compare(args.earlier, sweeps)
    print(f"{'dataset':<16} {'current dev':>12} {'earlier dev':>12} {'gain':>7}")
    for dataset, by_seed in result["table"].items():
        now = [pair[0] for pair in by_seed.values() if pair[0] is not None]
        before = [pair[1] for pair in by_seed.values() if pair[1] is not None]
        if now and before:
            gain = statistics.mean(now) - statistics.mean(before)
            print(f"{dataset:<16} {statistics.mean(now):>9.2f} ({len(now)}) {statistics.mean(before):>9.2f} "
                  f"({len(before)}) {gain:>+7.2f}")
        else:
            print(f"{dataset:<16} {'missing':>12}")
    gains = list(result["gains"].values())
    if gains:
        spread = f" ± {statistics.stdev(gains):.2f}" if len(gains) > 1 else ""
        print(f"paired gain in mean dev over the nine sets: {statistics.mean(gains):+.2f}{spread} "
              f"(seeds: {', '.join(f'{g:+.2f}' for g in gains)})")


if __name__ == "__main__":
    main()
