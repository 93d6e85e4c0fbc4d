"""BENCHMARKS.md's "Targets" section: the goals in :data:`TARGETS`, each checked on its variant or dev's choice."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.harness.formatting import fmt_metric
from benchmarks.harness.results_io import DEFAULTS_DATASETS, METRICS, is_cpu_run, mean, runs_named, selected_runs


@dataclass(frozen=True)
class Target:
    """Mean `metric` of `recipe` on `dataset` against `threshold` (a number, or another model's mean), on `variant`
    where named, else the variant dev selected."""

    dataset: str
    recipe: str
    metric: str
    threshold: float | str
    description: str
    op: str = ">="
    cpu_only: bool = False
    variant: str | None = None


DEFAULTS = "defaults"  # the variant of `benchmarks.harness.run` runs made with a recipe as it ships
TARGETS: list[Target] = [
    Target("imdb", "lama_ctx", "test_accuracy", 0.905, "LAMA+Ctx reaches the paper's IMDB accuracy"),
    Target("imdb", "lama_ctx", "epoch_time_s", 240.0, "LAMA+Ctx IMDB epoch under 4 minutes on the CPU machine",
           op="<", cpu_only=True),
    Target("r8", "lama_ctx", "test_accuracy", 0.975, "LAMA+Ctx reaches the paper's R8 accuracy"),
    Target("imdb", "lama_ctx", "test_accuracy", "tfidf_lr", "LAMA+Ctx beats TF-IDF+LR on IMDB", op=">"),
    Target("r8", "lama_ctx", "test_accuracy", "tfidf_lr", "LAMA+Ctx beats TF-IDF+LR on R8", op=">"),
    Target("sst2", "default", "epoch_time_s", 30.0, "the default model's SST-2 epoch under 30 s on the CPU machine",
           op="<", cpu_only=True, variant=DEFAULTS),
    *[Target(dataset, "default", "test_accuracy", baseline, f"the default model at or above {label} on {dataset}",
             variant=DEFAULTS)
      for dataset in DEFAULTS_DATASETS
      for baseline, label in (("tfidf_lr", "TF-IDF+LR"), ("fasttext", "fastText"))],
]

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}


def target_measure(results: list[dict], target: Target) -> tuple[str, float | None]:
    """The target's variant (its own, or the one dev selected) and the mean of the target's metric over its runs."""
    if target.variant is None:
        variant, runs = selected_runs(results, target.dataset, target.recipe, target.cpu_only)
    else:
        variant = target.variant
        runs = [r for r in runs_named(results, target.dataset, target.recipe, variant)
                if is_cpu_run(r) or not target.cpu_only]
    return variant, mean(METRICS[target.metric](runs))


def target_row(results: list[dict], target: Target) -> str:
    """One Targets-table row: goal, measured value and reached / NOT reached / not run."""
    variant, measured = target_measure(results, target)
    if isinstance(target.threshold, str):
        other = Target(target.dataset, target.threshold, target.metric, 0.0, "", cpu_only=target.cpu_only)
        _, threshold = target_measure(results, other)
        shown_threshold = f"{target.threshold}: " + ("not run" if threshold is None
                                                     else fmt_metric(target.metric, threshold))
    else:
        threshold = float(target.threshold)
        shown_threshold = fmt_metric(target.metric, threshold)
    if measured is None or threshold is None:
        status, shown = "not run", "—" if measured is None else fmt_metric(target.metric, measured)
    else:
        status = "reached" if OPS[target.op](measured, threshold) else "**NOT reached**"
        shown = fmt_metric(target.metric, measured)
    scope = (f" ({variant})" if variant else "") + (" (CPU runs)" if target.cpu_only else "")
    goal = f"{target.metric} {target.op}"
    return (f"| {target.description} | {target.dataset} | {target.recipe}{scope} | {goal} | {shown_threshold} "
            f"| {shown} | {status} |")


def targets_section(results: list[dict], targets: Sequence[Target] = TARGETS) -> list[str]:
    lines = [
        "## Targets", "",
        "Means over seeds of the variant of each recipe that dev selected (among those run with the most seeds, the "
        "highest mean dev accuracy); driven by `TARGETS` in `benchmarks/product/accuracy/render_targets.py`.", "",
        "| target | dataset | recipe | goal | threshold | measured | status |",
        "| --- | --- | --- | --- | ---: | ---: | --- |",
    ]
    lines += [target_row(results, target) for target in targets]
    return lines + [""]
