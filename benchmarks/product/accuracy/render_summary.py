"""BENCHMARKS.md's opening summary: per dataset, the group of runs with the best mean DEV accuracy (at least
:data:`MIN_SEEDS` seeds, a baseline one run), its test accuracy beside the n-gram baselines and the papers' best."""
from __future__ import annotations

from benchmarks.harness.formatting import fmt_count, fmt_label, fmt_mean_std, fmt_number, fmt_paper, fmt_seconds
from benchmarks.harness.results_io import (
    DEV_SPLIT_SINCE,
    METRICS,
    groups_by_dataset,
    is_cpu_run,
    load_papers,
    mean,
    on_current_dev,
    paper_best,
)

TITLE = "Summary: which model to use, and how good it is"
MIN_SEEDS = 3
BASELINES = (("tfidf_lr", "TF-IDF + LR"), ("fasttext", "fastText"))


def best_on_dev(groups: dict[tuple, list[dict]]) -> tuple[tuple, list[dict]] | None:
    """The (key, runs) of the eligible group of best mean dev accuracy on the current dev split, ties to more seeds."""
    scored = {key: runs for key, runs in groups.items()
              if METRICS["dev_accuracy"](runs) and all(on_current_dev(run) for run in runs)}
    eligible = {key: runs for key, runs in scored.items() if key[0] == "baseline" or len(runs) >= MIN_SEEDS}
    if not eligible and scored:
        most = max(len(runs) for runs in scored.values())
        eligible = {key: runs for key, runs in scored.items() if len(runs) == most}
    if not eligible:
        return None
    return max(eligible.items(), key=lambda item: (mean(METRICS["dev_accuracy"](item[1])), len(item[1])))


def _baseline(groups: dict[tuple, list[dict]], name: str) -> str:
    """A baseline's test accuracy on the dataset (the group with the most runs when it has variants)."""
    runs = max((runs for (_, model, _, _), runs in groups.items() if model == name), key=len, default=[])
    return fmt_mean_std(METRICS["test_accuracy"](runs))


def _other_baselines(dataset: str, groups: dict[tuple, list[dict]]) -> str | None:
    """Where neither TF-IDF + LR nor fastText ran: the dataset's other baselines and their test accuracy."""
    names = {name for name, _ in BASELINES}
    if any(key[1] in names for key in groups):
        return None
    others = [f"{fmt_label(name, variant)} {fmt_mean_std(METRICS['test_accuracy'](runs))}"
              for (kind, name, _, variant), runs in sorted(groups.items()) if kind == "baseline"]
    return f"{dataset}: {', '.join(others)}" if others else None


def _classes(runs: list[dict]) -> str:
    labels = next((r["test"]["labels"] for r in runs if r["test"].get("labels")), None)
    return str(len(labels)) if labels else "—"


def _epoch(runs: list[dict]) -> str:
    """Mean epoch time on CPU and on GPU, each where the runs have it."""
    shown = []
    for device, on_device in (("CPU", [r for r in runs if is_cpu_run(r)]),
                              ("GPU", [r for r in runs if not is_cpu_run(r)])):
        seconds = mean(METRICS["epoch_time_s"](on_device))
        if seconds is not None:
            shown.append(f"{fmt_seconds(seconds)} {device}")
    return ", ".join(shown) or "—"


def _paper(dataset: str) -> str:
    best = paper_best(dataset)
    return "—" if best is None else f"{fmt_paper(best[0], 1)} ({best[1]})"


def summary_section(results: list[dict]) -> list[str]:
    papers = [paper["short"] for paper in load_papers().values() if paper.get("test_accuracy")]
    lines = [f"## {TITLE}", "",
             f"For each task, the model with the best mean **dev** accuracy (test never chooses; neural models need "
             f"at least {MIN_SEEDS} seeds to compete, deterministic baselines one run). Test accuracy (%), mean ± "
             "sample std over seeds, beside the two n-gram baselines tuned on dev and the best test accuracy a paper "
             f"reports on the same data ({'; '.join(papers)}). Parameters: trainable, word vectors included (mean "
             "over the seeds). Epoch: mean seconds per training epoch on the machine named.", "",
             "| task | classes | best on dev | seeds | dev acc | test acc | TF-IDF + LR | fastText | paper's best "
             "| parameters | epoch |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    others = []
    for dataset, groups in groups_by_dataset(results).items():
        if other := _other_baselines(dataset, groups):
            others.append(other)
        best = best_on_dev(groups)
        if best is None:
            continue
        (_, name, _, variant), runs = best
        baselines = " | ".join(_baseline(groups, model) for model, _ in BASELINES)
        lines.append(f"| {dataset} | {_classes(runs)} | **{fmt_label(name, variant)}** | {len(runs)} "
                     f"| {fmt_number(mean(METRICS['dev_accuracy'](runs)))} "
                     f"| **{fmt_mean_std(METRICS['test_accuracy'](runs))}** | {baselines} | {_paper(dataset)} "
                     f"| {fmt_count(mean(METRICS['params'](runs)), 1)} | {_epoch(runs)} |")
    if others:
        lines += ["", "Where neither n-gram baseline ran, the baselines that did (test accuracy, %): "
                  + "; ".join(others) + "."]
    changed = [f"{dataset} (since {since[:10]})" for dataset, since in sorted(DEV_SPLIT_SINCE.items())]
    lines += ["", "Dev splits that changed: " + ", ".join(changed) + ". Only runs on the current dev compete there; "
              "the earlier ones are in the tables below (benchmarks/DECISIONS.md)."]
    return lines + [""]
