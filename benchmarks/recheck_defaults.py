"""Behaviour unchanged (issue 32's done-when): rows of the defaults table trained again by today's code, beside the
rows the table holds, per dataset dev and test accuracy as mean ± std over the same seeds and the mean of the paired
(same seed) differences. A difference within the rows' own seed spread is what "unchanged" means here: the code
paths are the same, but a run is not bit-identical across versions (vector building, library updates).

    python -m benchmarks.run --recipe default --dataset sst2 --seeds 0 1 2 --variant defaults \\
        --results-dir benchmarks/results/recheck
    python -m benchmarks.recheck_defaults --datasets sst2 opener

Writes results/recheck/recheck-defaults.json (beside the runs, outside what BENCHMARKS.md renders).
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from benchmarks.common import RESULTS_DIR, write_result

RECHECK_DIR = RESULTS_DIR / "recheck"


def accuracies(folder: Path, dataset: str, seeds: list[int]) -> dict[str, list[float]]:
    runs = [json.loads((folder / f"default-{dataset}-defaults-s{seed}.json").read_text()) for seed in seeds]
    return {split: [round(run[split]["accuracy"] * 100, 2) for run in runs] for split in ("dev", "test")}


def spread(values: list[float]) -> dict:
    return {"mean": round(statistics.fmean(values), 2), "std": round(statistics.stdev(values), 2), "values": values}


def compare(dataset: str, seeds: list[int]) -> dict:
    table, again = accuracies(RESULTS_DIR, dataset, seeds), accuracies(RECHECK_DIR, dataset, seeds)
    return {split: {"table": spread(table[split]), "again": spread(again[split]),
                    "paired_difference": round(statistics.fmean(a - t for a, t in zip(again[split], table[split])), 2)}
            for split in ("dev", "test")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args(argv)
    rows = {dataset: compare(dataset, args.seeds) for dataset in args.datasets}
    for dataset, row in rows.items():
        for split, cell in row.items():
            print(f"{dataset:<8} {split:<4} table {cell['table']['mean']:.2f} ± {cell['table']['std']:.2f}  "
                  f"again {cell['again']['mean']:.2f} ± {cell['again']['std']:.2f}  "
                  f"paired {cell['paired_difference']:+.2f}")
    write_result("recheck-defaults", {"kind": "recheck", "seeds": args.seeds, "rows": rows}, RECHECK_DIR)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
