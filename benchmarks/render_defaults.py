"""BENCHMARKS.md's opening table: the default path (`attentive train` with no recipe and no --set) on every visible
single-text dataset, beside TF-IDF + LR, fastText and the fine-tuned MiniLM where it was run (issue 15).

Rows come from result files whose `variant` is `defaults` (benchmarks/reproduce_defaults.sh); nothing here imports
benchmarks.render, which passes in its formatter.
"""
from __future__ import annotations

import statistics
from collections.abc import Callable

DEFAULT_RECIPE = "default"
DATASETS = ("imdb", "r8", "news", "sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013")
BASELINES = ("tfidf_lr", "fasttext")


def _accuracies(results: list[dict], dataset: str, name: str, variant: str | None = None) -> list[float]:
    return [r["test"]["accuracy"] for r in results if r.get("dataset") == dataset
            and (r.get("recipe") or r.get("model")) == name and (variant is None or r.get("variant") == variant)]


def _minilm(results: list[dict], dataset: str) -> list[float]:
    """The fine-tuned MiniLM group with the most seeds on this dataset (its variants differ in length limits)."""
    groups: dict[str, list[float]] = {}
    for r in results:
        if r.get("recipe") == "minilm" and r.get("dataset") == dataset:
            groups.setdefault(r.get("variant") or "", []).append(r["test"]["accuracy"])
    return max(groups.values(), key=len, default=[])


def _epoch_time(results: list[dict], dataset: str) -> str:
    times = [t for r in results if r.get("dataset") == dataset and r.get("recipe") == DEFAULT_RECIPE
             and r.get("variant") == "defaults" and str(r.get("device", "cpu")).startswith("cpu")
             for t in r.get("epoch_times_s") or []]
    return f"{statistics.fmean(times):.1f} s" if times else "—"


def defaults_section(results: list[dict], fmt_mean_std: Callable[[list[float]], str]) -> list[str]:
    lines = ["## The default model against the baselines", "",
             "`attentive train --train your.csv --out runs/m`: recipe `default`, no `--set`, its settings chosen by "
             "mean dev accuracy over the visible datasets (benchmarks/notes.md, \"Choosing the defaults\"). Test "
             "accuracy (%), mean ± std over seeds (n); the baselines are tuned on dev. Δ is the default model's mean "
             "minus the better of TF-IDF + LR and fastText. Epoch: mean seconds per training epoch on the 2-core CPU "
             "machine, as the defaults script runs them (two single-thread runs side by side).", "",
             "| dataset | default (n) | TF-IDF + LR | fastText | MiniLM fine-tuned | Δ vs best baseline | epoch |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for dataset in DATASETS:
        ours = _accuracies(results, dataset, DEFAULT_RECIPE, "defaults")
        baselines = {name: _accuracies(results, dataset, name) for name in BASELINES}
        best = max((statistics.fmean(v) for v in baselines.values() if v), default=None)
        delta = f"{(statistics.fmean(ours) - best) * 100:+.2f}" if ours and best is not None else "—"
        minilm = _minilm(results, dataset)
        lines.append(f"| {dataset} | {fmt_mean_std(ours)} ({len(ours)}) | {fmt_mean_std(baselines['tfidf_lr'])} | "
                     f"{fmt_mean_std(baselines['fasttext'])} | {fmt_mean_std(minilm)} | {delta} | "
                     f"{_epoch_time(results, dataset)} |")
    return lines + [""]
