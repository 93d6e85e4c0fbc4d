"""The defaults sweep as a table: each candidate's dev accuracy per dataset and its mean over the datasets.

    python -m benchmarks.sweep_table [--results-dir benchmarks/results/sweeps] [--markdown] [--aspect | --pair] [--held]

Each cell is the mean dev accuracy over the seeds run (n); a candidate's score is the mean of its cells over every
sweep dataset, and only candidates with every dataset are ranked (the others are listed below them, unranked). Test
accuracy is not read. benchmarks/sweep_defaults.sh makes the runs; with --aspect, the aspect-category sweep of
benchmarks/sweep_aspect.sh; with --pair, the pair sweep of benchmarks/sweep_pair.sh. With --held, the runs of
`HELD=F benchmarks/sweep_defaults.sh` (in benchmarks/results/sweeps-held/), scored on the part of dev that chose no
epoch (benchmarks/run.py, `--held-out-dev`).
"""
from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from benchmarks.common import RESULTS_DIR

SWEEP_DIR, HELD_DIR = RESULTS_DIR / "sweeps", RESULTS_DIR / "sweeps-held"
SINGLE_TEXT = ("sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013", "r8")
ASPECT = ("semeval14_category", "semeval14_category_binary")
PAIR = ("sick",)


def dev_scores(results_dir: Path, datasets: tuple[str, ...] = SINGLE_TEXT,
               split: str = "dev") -> dict[str, dict[str, list[float]]]:
    """candidate -> dataset -> accuracies on `split` ("dev", or "held_dev": the part of dev that chose no epoch),
    one per seed, in percent, over the sweep's `datasets`; runs without that split are left out."""
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(results_dir.glob("*.json")):
        result = json.loads(path.read_text())
        if result["dataset"] in datasets and split in result:
            table[result.get("variant") or "base"][result["dataset"]].append(100 * result[split]["accuracy"])
    return table


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
    which.add_argument("--aspect", action="store_true", help="the aspect-category sweep (sweep_aspect.sh)")
    which.add_argument("--pair", action="store_true", help="the pair sweep (sweep_pair.sh)")
    parser.add_argument("--held", action="store_true",
                        help="score on the held part of dev (runs in benchmarks/results/sweeps-held/)")
    args = parser.parse_args(argv)
    datasets = ASPECT if args.aspect else PAIR if args.pair else SINGLE_TEXT
    results_dir = HELD_DIR if args.held and args.results_dir == SWEEP_DIR else args.results_dir
    print(render(dev_scores(results_dir, datasets, "held_dev" if args.held else "dev"), args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
