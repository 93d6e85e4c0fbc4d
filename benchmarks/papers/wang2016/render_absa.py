"""BENCHMARKS.md's aspect-category section: Wang et al. (2016) Table 2 (each cell the variant dev chose) beside the
paper's figures."""
from __future__ import annotations

from benchmarks.harness.formatting import fmt_mean_std, fmt_paper
from benchmarks.harness.results_io import METRICS, load_papers, paper_accuracy, selected_runs

DATASETS = (("semeval14_category", "3-way"), ("semeval14_category_binary", "binary"))
ROWS = (("lstm", "LSTM"), ("ae_lstm", "AE-LSTM"), ("at_lstm", "AT-LSTM"), ("atae_lstm", "ATAE-LSTM"))


def _cell(results: list[dict], name: str, dataset: str) -> str:
    variant, runs = selected_runs(results, dataset, name)
    if not runs:
        return "not run"
    return f"{fmt_mean_std(METRICS['test_accuracy'](runs))} ({len(runs)})" + (f" `{variant}`" if variant else "")


def absa_section(results: list[dict]) -> list[str]:
    """The Table 2 markdown, or nothing when none of its rows has a run."""
    if not any(r["dataset"] == d and r.get("recipe") == n for r in results for d, _ in DATASETS for n, _ in ROWS):
        return []
    lines = ["## Aspect-category sentiment (Wang et al. 2016 Table 2)", "",
             f"Test accuracy (%) on SemEval-2014 restaurants, mean ± sample std over seeds (number of seeds), of the "
             f"variant dev chose for each recipe (its name in backticks; every variant is in benchmarks/results/). "
             f"{load_papers()['wang2016']['source']}", "",
             "| model | " + " | ".join(f"{label} ours | {label} paper" for _, label in DATASETS) + " |",
             "| --- |" + " ---: |" * 2 * len(DATASETS)]
    for name, label in ROWS:
        cells = [f"{_cell(results, name, d)} | {fmt_paper(paper_accuracy(name, d), 1)}" for d, _ in DATASETS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + [""]
