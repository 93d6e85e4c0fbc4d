"""The defaults sweep as a table: each candidate's dev accuracy per dataset and its mean over the datasets.

    python -m benchmarks.sweep_table [--results-dir benchmarks/results/sweeps] [--markdown]

Candidates are ranked by mean dev accuracy over the datasets every candidate has finished (so a half-run candidate is
compared on the same datasets as the others); test accuracy is not read. benchmarks/sweep_defaults.sh makes the runs.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from benchmarks.common import RESULTS_DIR

SWEEP_DIR = RESULTS_DIR / "sweeps"


def dev_scores(results_dir: Path) -> dict[str, dict[str, list[float]]]:
    """candidate -> dataset -> dev accuracies (one per seed), in percent."""
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(results_dir.glob("*.json")):
        result = json.loads(path.read_text())
        table[result.get("variant") or "base"][result["dataset"]].append(100 * result["dev"]["accuracy"])
    return table


def ranked(table: dict[str, dict[str, list[float]]]) -> tuple[list[str], list[tuple[str, float, dict]]]:
    """The datasets every candidate has, and (candidate, mean dev over them, per-dataset means), best first."""
    common = sorted(set.intersection(*(set(per) for per in table.values()))) if table else []
    rows = []
    for name, per in table.items():
        means = {d: sum(v) / len(v) for d, v in per.items()}
        overall = sum(means[d] for d in common) / len(common) if common else float("nan")
        rows.append((name, overall, means))
    return common, sorted(rows, key=lambda row: -row[1])


def render(table: dict, markdown: bool) -> str:
    common, rows = ranked(table)
    datasets = sorted({d for _, _, means in rows for d in means})
    header = ["candidate", "mean dev (common)"] + datasets
    lines = [header] + [[name, f"{overall:.2f}"] + [f"{means[d]:.2f}" if d in means else "" for d in datasets]
                        for name, overall, means in rows]
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(line) + " |" for line in lines[1:]]
        return "\n".join(out) + f"\n\nMean over the datasets every candidate finished: {', '.join(common)}."
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results-dir", type=Path, default=SWEEP_DIR)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    print(render(dev_scores(args.results_dir), args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
