"""The defaults sweep as a table: each candidate's dev accuracy per dataset and its mean over the datasets.

    python -m benchmarks.sweep_table [--results-dir benchmarks/results/sweeps] [--markdown] [--aspect | --pair] [--held]
                                     [--against CANDIDATE]

Each cell is the mean dev accuracy over the seeds run (n); a candidate's score is the mean of its cells over every
sweep dataset, and only candidates with every dataset are ranked (the others are listed below them, unranked). Test
accuracy is not read. `python -m benchmarks.sweep defaults` makes the runs, on the datasets of its grid
(benchmarks/grids/defaults.yaml), which the table reads; with --aspect, the aspect-category grid (aspect.yaml); with
--pair, the pair grid (pair.yaml). With --held, the runs of `python -m benchmarks.sweep GRID --held F` (in
benchmarks/results/sweeps-held/), scored on the part of dev that chose no epoch (benchmarks/run.py,
`--held-out-dev`). With --against, each candidate's gain over one candidate, paired by seed (the mean over the
datasets of one seed's runs, minus the other's of the same seed), mean ± std over the seeds.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks.common import RESULTS_DIR
from benchmarks.sweep import load_grid

SWEEP_DIR, HELD_DIR = RESULTS_DIR / "sweeps", RESULTS_DIR / "sweeps-held"


def seed_scores(results_dir: Path, datasets: tuple[str, ...],
                split: str = "dev") -> dict[str, dict[str, dict[int, float]]]:
    """candidate -> dataset -> seed -> accuracy on `split` ("dev", or "held_dev": the part of dev that chose no
    epoch), in percent, over the sweep's `datasets`; runs without that split are left out."""
    table: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for path in sorted(results_dir.glob("*.json")):
        result = json.loads(path.read_text())
        if result["dataset"] in datasets and split in result:
            table[result.get("variant") or "base"][result["dataset"]][result["seed"]] = 100 * result[split]["accuracy"]
    return table


def dev_scores(results_dir: Path, datasets: tuple[str, ...], split: str = "dev") -> dict[str, dict[str, list[float]]]:
    """candidate -> dataset -> accuracies on `split`, one per seed (in seed order); see `seed_scores`."""
    return {name: {dataset: [by_seed[seed] for seed in sorted(by_seed)] for dataset, by_seed in per.items()}
            for name, per in seed_scores(results_dir, datasets, split).items()}


def paired(table: dict[str, dict[str, dict[int, float]]], against: str) -> list[tuple[str, dict[int, float]]]:
    """(candidate, seed -> its mean over the datasets minus `against`'s) for each candidate sharing at least one seed
    on which both ran every dataset `against` ran; best mean gain first. A gain paired by seed cancels what one seed
    does to every candidate (its split of the batches, its start)."""
    base = table[against]
    datasets = sorted(base)

    def means(per: dict[str, dict[int, float]]) -> dict[int, float]:
        seeds = set.intersection(*(set(per.get(d, {})) for d in datasets))
        return {seed: statistics.fmean(per[d][seed] for d in datasets) for seed in seeds}

    reference = means(base)
    rows = []
    for name, per in table.items():
        gains = {seed: mean - reference[seed] for seed, mean in sorted(means(per).items()) if seed in reference}
        if name != against and gains:
            rows.append((name, gains))
    return sorted(rows, key=lambda row: -statistics.fmean(row[1].values()))


def render_paired(rows: list[tuple[str, dict[int, float]]], against: str) -> str:
    lines = [f"paired by seed against {against} (mean over its datasets, candidate minus it):"]
    for name, gains in rows:
        values = list(gains.values())
        spread = f" ± {statistics.stdev(values):.2f}" if len(values) > 1 else ""
        seeds = ", ".join(f"s{seed} {gain:+.2f}" for seed, gain in gains.items())
        lines.append(f"  {name}: {statistics.fmean(values):+.2f}{spread} ({seeds})")
    return "\n".join(lines)


def ranked(table: dict[str, dict[str, list[float]]]) -> tuple[list[str], list[tuple[str, float | None, dict]]]:
    """The sweep's datasets, and (candidate, mean dev over them or None when some are missing, cells), the complete
    candidates best first, then the incomplete ones."""
    datasets = sorted({d for per in table.values() for d in per})
    rows = []
    for name, per in table.items():
        cells = {d: (statistics.fmean(v), len(v)) for d, v in per.items()}
        overall = statistics.fmean(cells[d][0] for d in datasets) if len(cells) == len(datasets) else None
        rows.append((name, overall, cells))
    return datasets, sorted(rows, key=lambda row: (row[1] is None, -(row[1] or 0.0), row[0]))


def render(table: dict, markdown: bool) -> str:
    datasets, rows = ranked(table)
    header = ["candidate", "mean dev"] + datasets
    lines = [[name, "—" if overall is None else f"{overall:.2f}"]
             + [f"{cells[d][0]:.2f} ({cells[d][1]})" if d in cells else "" for d in datasets]
             for name, overall, cells in rows]
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines])
    widths = [max(len(line[i]) for line in [header] + lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in [header] + lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results-dir", type=Path, default=SWEEP_DIR)
    parser.add_argument("--markdown", action="store_true")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--aspect", action="store_true", help="the aspect-category grid (grids/aspect.yaml)")
    which.add_argument("--pair", action="store_true", help="the pair grid (grids/pair.yaml)")
    parser.add_argument("--held", action="store_true",
                        help="score on the held part of dev (runs in benchmarks/results/sweeps-held/)")
    parser.add_argument("--against", metavar="CANDIDATE",
                        help="also print each candidate's gain over CANDIDATE, paired by seed")
    args = parser.parse_args(argv)
    datasets = load_grid("aspect" if args.aspect else "pair" if args.pair else "defaults").datasets
    results_dir = HELD_DIR if args.held and args.results_dir == SWEEP_DIR else args.results_dir
    split = "held_dev" if args.held else "dev"
    print(render(dev_scores(results_dir, datasets, split), args.markdown))
    if args.against:
        table = seed_scores(results_dir, datasets, split)
        if args.against not in table:
            print(f"error: no runs of candidate {args.against!r} in {results_dir}", file=sys.stderr)
            return 2
        print("\n" + render_paired(paired(table, args.against), args.against))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
