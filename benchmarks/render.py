"""Render ``benchmarks/results/*.json`` into BENCHMARKS.md (never edit that file by hand).

    python -m benchmarks.render [--results-dir DIR] [--output PATH]

One section per dataset with one table row per group of runs — (kind, model or recipe, dataset, variant) —
averaged over seeds; a "Targets" section driven by :data:`TARGETS`; and a numbered list giving the exact command,
commit, machine and date of every result file. Result schema: ``benchmarks/common.py``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from attentive.io_utils import atomic_write_text
from benchmarks.common import REPO_ROOT, RESULTS_DIR, SAME_SETTINGS


@dataclass(frozen=True)
class Target:
    """A goal checked against the results: mean `metric` of `recipe` on `dataset` compared with `threshold`.

    `threshold` is a number, or the name of another model/recipe whose mean of the same metric must be beaten.
    `cpu_only` restricts the runs considered to CPU runs. Metrics: see :data:`METRICS`.
    """

    dataset: str
    recipe: str
    metric: str
    threshold: float | str
    description: str
    op: str = ">="
    cpu_only: bool = False


TARGETS: list[Target] = [
    Target("imdb", "lama_ctx", "test_accuracy", 0.905, "LAMA+Ctx reaches the paper's IMDB accuracy"),
    Target("imdb", "lama_ctx", "epoch_time_s", 240.0, "LAMA+Ctx IMDB epoch under 4 minutes on the CPU machine",
           op="<", cpu_only=True),
    Target("r8", "lama_ctx", "test_accuracy", 0.975, "LAMA+Ctx reaches the paper's R8 accuracy"),
    Target("imdb", "lama_ctx", "test_accuracy", "tfidf_lr", "LAMA+Ctx beats TF-IDF+LR on IMDB", op=">"),
    Target("r8", "lama_ctx", "test_accuracy", "tfidf_lr", "LAMA+Ctx beats TF-IDF+LR on R8", op=">"),
    Target("sst2", "default", "epoch_time_s", 30.0, "the default model's SST-2 epoch under 30 s on the CPU machine",
           op="<", cpu_only=True),
    # issue 15: the default path at or above both baselines on every dataset of the defaults table
    *[Target(dataset, "default", "test_accuracy", baseline, f"the default model at or above {label} on {dataset}")
      for dataset in ("imdb", "r8", "news", "sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013")
      for baseline, label in (("tfidf_lr", "TF-IDF+LR"), ("fasttext", "fastText"))],
]

# Test accuracies the papers report, shown in the "paper" column beside ours: the LAMA paper's Table 3 (its "BERT"
# row set beside our MiniLM fine-tune) and Wang et al. 2016's aspect-category results on SemEval-2014 restaurants
# (Table 2, 3-way and binary; their vectors were GloVe 840B-300d, ours 6B-50d).
WANG_2016 = {"lstm": (0.820, 0.883), "ae_lstm": (0.825, 0.889), "at_lstm": (0.831, 0.896), "atae_lstm": (0.840, 0.899)}
PAPER = {
    **{(name, "semeval14_category"): three for name, (three, _) in WANG_2016.items()},
    **{(name, "semeval14_category_binary"): binary for name, (_, binary) in WANG_2016.items()},
    **{(name, "imdb"): value for name, value in (("san", 0.831), ("bigru", 0.876), ("cnn", 0.874), ("te", 0.817),
                                                 ("lama", 0.895), ("lama_ctx", 0.900), ("minilm", 0.894),
                                                 ("avg", 0.874))},
    **{(name, "r8"): value for name, value in (("san", 0.942), ("bigru", 0.867), ("cnn", 0.960), ("te", 0.973),
                                               ("lama", 0.965), ("lama_ctx", 0.973), ("minilm", 0.978),
                                               ("avg", 0.795))},
}

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}


# --------------------------------------------------------------------------- loading and grouping


def load_results(results_dir: Path) -> tuple[list[dict], list[str]]:
    """All result dicts in `results_dir` (sorted by file name), and notes on files that could not be used."""
    results, problems = [], []
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problems.append(f"`{path.name}`: unreadable ({error})")
            continue
        if result.get("kind") in ("parameters", "characteristics"):  # params.py, characteristics.py: own sections
            result.setdefault("name", path.stem)
            results.append(result)
            continue
        missing = [key for key in ("dataset", "test") if key not in result]
        if not (result.get("model") or result.get("recipe")):
            missing.append("model/recipe")
        if missing:
            problems.append(f"`{path.name}`: missing {', '.join(missing)}")
            continue
        result.setdefault("name", path.stem)
        same = SAME_SETTINGS.get((model_name(result), result["dataset"], result.get("variant")))
        if same:  # counted with the runs of the variant whose settings it used
            result["variant_as_run"], result["variant"] = result["variant"], same
        results.append(result)
    return results, problems


def model_name(result: dict) -> str:
    """The recipe of a neural run, else the baseline's model name."""
    return result.get("recipe") or result.get("model")


def group_key(result: dict) -> tuple[str, str, str, str]:
    """Runs that differ only in seed share a key: (kind, model or recipe, dataset, variant)."""
    return (result.get("kind", ""), model_name(result), result["dataset"], result.get("variant") or "")


def group_results(results: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for result in results:
        groups[group_key(result)].append(result)
    return dict(groups)


def is_cpu_run(result: dict) -> bool:
    """Trained on CPU: the run's `device` when recorded, else a machine without a CUDA device."""
    if result.get("device"):
        return str(result["device"]).startswith("cpu")
    return not (result.get("machine") or {}).get("cuda_device")


# --------------------------------------------------------------------------- numbers


def _values(results: list[dict], get) -> list[float]:
    values = []
    for result in results:
        try:
            value = get(result)
        except (KeyError, TypeError):
            continue
        if value is not None:
            values.append(float(value))
    return values


def _epoch_times(result: dict) -> list[float]:
    return [float(t) for t in result.get("epoch_times_s") or []]


METRICS = {
    "test_accuracy": lambda rs: _values(rs, lambda r: r["test"]["accuracy"]),
    "test_macro_f1": lambda rs: _values(rs, lambda r: r["test"]["macro_f1"]),
    "dev_accuracy": lambda rs: _values(rs, lambda r: r["dev"]["accuracy"]),
    "wall_time_s": lambda rs: _values(rs, lambda r: r["wall_time_s"]),
    "epoch_time_s": lambda rs: [t for r in rs for t in _epoch_times(r)],
}


def mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def fmt_mean_std(values: list[float], scale: float = 100.0) -> str:
    """``mean ± std`` (sample std over seeds) in percent; just the value for a single run; ``—`` for none."""
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0] * scale:.2f}"
    return f"{statistics.fmean(values) * scale:.2f} ± {statistics.stdev(values) * scale:.2f}"


def fmt_seconds(seconds: float | None) -> str:
    """Seconds as ``12.3 s``, ``4m 05s`` or ``1h 02m``."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def fmt_paper(value: float | None) -> str:
    """The paper's number in percent; values up to 1 are read as fractions, larger ones as percentages."""
    if value is None:
        return "—"
    return f"{value * 100:.2f}" if value <= 1 else f"{value:.2f}"


def machine_short(result: dict) -> str:
    """E.g. ``AMD EPYC 7B13 ×2`` or ``NVIDIA H100 80GB HBM3``."""
    machine = result.get("machine") or {}
    if str(result.get("device") or "cuda").startswith("cuda") and machine.get("cuda_device"):
        return machine["cuda_device"]
    cpu = (machine.get("cpu_model") or "unknown CPU").replace("(R)", "").replace("(TM)", "")
    cpu = " ".join(cpu.replace(" Processor", "").split()[:4])
    cores = machine.get("cpu_cores")
    return f"{cpu} ×{cores}" if cores else cpu


def runs_by_machine(results: list[dict]) -> dict[str, list[dict]]:
    """The runs of one group under each machine they ran on, machines in name order."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for result in results:
        groups[machine_short(result)].append(result)
    return dict(sorted(groups.items()))


def time_per_machine(by_machine: dict[str, list[dict]], metric: str) -> str:
    """Mean of a time metric on each machine, in the machine column's order (``52m 10s / 47.1 s``): a mean over a
    CPU and a GPU together would describe neither."""
    return " / ".join(fmt_seconds(mean(METRICS[metric](runs))) for runs in by_machine.values())


# --------------------------------------------------------------------------- markdown


def dataset_table(groups: dict[tuple, list[dict]], footnote: dict[str, int]) -> list[str]:
    """Markdown table for one dataset's groups, best test accuracy first."""
    lines = [
        "| kind | model / recipe | seeds | test acc (%) | test macro-F1 (%) | dev acc (%) | paper | wall time / run "
        "| epoch time | machine | runs |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    order = sorted(groups.items(), key=lambda item: -(mean(METRICS["test_accuracy"](item[1])) or 0.0))
    for (kind, name, _dataset, variant), results in order:
        label = f"{name} ({variant})" if variant else name
        recorded = mean(_values(results, lambda r: r.get("paper_reference")))
        paper = fmt_paper(recorded if recorded is not None else PAPER.get((model_name(results[0]), results[0]["dataset"])))
        dev = mean(METRICS["dev_accuracy"](results))
        by_machine = runs_by_machine(results)
        refs = " ".join(f"[{footnote[r['name']]}]" for r in results)
        lines.append(
            f"| {kind} | {label} | {len(results)} | {fmt_mean_std(METRICS['test_accuracy'](results))} "
            f"| {fmt_mean_std(METRICS['test_macro_f1'](results))} | {'—' if dev is None else f'{dev * 100:.2f}'} "
            f"| {paper} | {time_per_machine(by_machine, 'wall_time_s')} "
            f"| {time_per_machine(by_machine, 'epoch_time_s')} | {', '.join(by_machine)} | {refs} |"
        )
    return lines


def selected_runs(results: list[dict], dataset: str, name: str, cpu_only: bool = False) -> tuple[str, list[dict]]:
    """The variant of `name` on `dataset` that dev chose, and its runs.

    Among the variants run with the most seeds (a sweep's single-seed tries compete only when nothing else exists),
    the one with the highest mean dev accuracy; test never takes part. With `cpu_only`, CPU runs alone count.
    """
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        if r["dataset"] == dataset and model_name(r) == name and (is_cpu_run(r) or not cpu_only):
            groups[r.get("variant") or ""].append(r)
    if not groups:
        return "", []
    most_seeds = max(len(runs) for runs in groups.values())
    candidates = {v: runs for v, runs in groups.items() if len(runs) == most_seeds}
    variant = max(candidates, key=lambda v: mean(METRICS["dev_accuracy"](candidates[v])) or 0.0)
    return variant, candidates[variant]


def target_measure(results: list[dict], target: Target) -> tuple[str, float | None]:
    """The dev-selected variant for the target and the mean of the target's metric over its runs."""
    variant, runs = selected_runs(results, target.dataset, target.recipe, target.cpu_only)
    return variant, mean(METRICS[target.metric](runs))


def fmt_metric(metric: str, value: float) -> str:
    return fmt_seconds(value) if metric.endswith("_s") else f"{value * 100:.2f}%"


def target_row(results: list[dict], target: Target) -> str:
    """One Targets-table row: goal, measured value and reached / NOT reached / not run."""
    variant, measured = target_measure(results, target)
    if isinstance(target.threshold, str):
        other = Target(target.dataset, target.threshold, target.metric, 0.0, "", cpu_only=target.cpu_only)
        _, threshold = target_measure(results, other)
        shown_threshold = f"{target.threshold}: " + ("not run" if threshold is None else fmt_metric(target.metric, threshold))
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


def targets_section(results: list[dict], targets: Sequence[Target]) -> list[str]:
    lines = [
        "## Targets", "",
        "Means over seeds of the variant of each recipe that dev selected (among those run with the most seeds, the "
        "highest mean dev accuracy); driven by `TARGETS` in `benchmarks/render.py`.", "",
        "| target | dataset | recipe | goal | threshold | measured | status |",
        "| --- | --- | --- | --- | ---: | ---: | --- |",
    ]
    lines += [target_row(results, target) for target in targets]
    return lines


def redundancy_section(results: list[dict]) -> list[str]:
    """Lin et al. Table 3 in spirit: accuracy and the mean off-diagonal of A A^T of each attention model."""
    groups = {key: runs for key, runs in group_results(results).items()
              if all("attention_offdiag_mean" in r for r in runs)}
    if not groups:
        return []
    lines = ["## Attention redundancy (Lin et al. 2017 §4.4)", "",
             "Mean off-diagonal entry of A Aᵀ over the test texts (0: the heads attend to disjoint words; "
             "1: every head puts all its weight on one same word), beside test accuracy.", "",
             "| dataset | recipe | seeds | test acc (%) | mean off-diagonal of A Aᵀ |", "| --- | --- | ---: | ---: | ---: |"]
    for (_, name, dataset, variant), runs in sorted(groups.items(), key=lambda item: item[0][2:]):
        label = f"{name} ({variant})" if variant else name
        offdiag = [r["attention_offdiag_mean"] for r in runs]
        spread = f" ± {statistics.stdev(offdiag):.4f}" if len(offdiag) > 1 else ""
        lines.append(f"| {dataset} | {label} | {len(runs)} | {fmt_mean_std(METRICS['test_accuracy'](runs))} | "
                     f"{statistics.fmean(offdiag):.4f}{spread} |")
    return lines + [""]


def parameters_section(result: dict) -> list[str]:
    """Attention-layer parameters against heads (LAMA paper Fig. 4) and each recipe's size, from params.json."""
    heads, curves = result["heads"], result["attention_parameters"]
    shown = [m for m in (1, 5, 10, 20, 30, 40) if m in heads]
    lines = ["## Parameter efficiency (LAMA paper §3.3.2, Fig. 4)", "",
             f"Counted on built models (`{result['command']}`, commit `{result['git_commit']}`); "
             f"plot: [benchmarks/results/{result['plot']}](benchmarks/results/{result['plot']}).", "",
             "| attention layer of | " + " | ".join(f"{m} heads" for m in shown) + " |",
             "| --- |" + " ---: |" * len(shown)]
    for name, counts in curves.items():
        lines.append(f"| {name} | " + " | ".join(f"{counts[heads.index(m)]:,}" for m in shown) + " |")
    lines += ["", f"Whole models at their recipe defaults, vocabulary {result['vocabulary']:,} words:", "",
              "| recipe | parameters | without the embedding table | model.safetensors |",
              "| --- | ---: | ---: | ---: |"]
    for name, size in result["models"].items():
        lines.append(f"| {name} | {size['parameters']:,} | {size['without_embeddings']:,} | "
                     f"{size['safetensors_bytes'] / 2**20:.1f} MiB |")
    return lines


def footnotes_section(results: list[dict], footnote: dict[str, int]) -> list[str]:
    lines = ["## Runs", "", "Each result file, with the exact command and commit that produced it.", ""]
    for result in results:
        lines.append(
            f"{footnote[result['name']]}. `{result['name']}.json`: `{result.get('command', '?')}` "
            f"at commit `{result.get('git_commit', '?')}`, {machine_short(result)}, {result.get('date', '?')}"
        )
    return lines


NOTES = Path(__file__).resolve().parent / "notes.md"  # prose read after the targets: why a target was missed


def render_markdown(results: list[dict], problems: Sequence[str] = (), targets: Sequence[Target] = TARGETS,
                    notes: str = "") -> str:
    """The whole BENCHMARKS.md text."""
    parameter_results = [r for r in results if r.get("kind") == "parameters"]
    characteristics = [r for r in results if r.get("kind") == "characteristics"]
    results = [r for r in results if r.get("kind") not in ("parameters", "characteristics")]
    footnote = {result["name"]: i for i, result in enumerate(results, start=1)}
    lines = [
        "# Benchmarks",
        "",
        "<!-- Generated by `python -m benchmarks.render` from benchmarks/results/*.json. Do not edit by hand. -->",
        "",
        "Generated file: do not edit by hand. Regenerate with `python -m benchmarks.render` after adding result "
        "files to `benchmarks/results/` (written by `python -m benchmarks.baselines ...` and the model benchmark "
        "scripts). Accuracy and macro-F1 are on the test split, mean ± sample std over seeds; hyper-parameters and "
        "checkpoints were chosen on dev only. \"epoch time\" is the mean seconds per training epoch (neural runs).",
        "",
    ]
    from benchmarks.render_defaults import defaults_section

    lines += defaults_section(results, fmt_mean_std)
    by_dataset: dict[str, dict[tuple, list[dict]]] = defaultdict(dict)
    for key, group in group_results(results).items():
        by_dataset[key[2]][key] = group
    for dataset in sorted(by_dataset):
        lines += [f"## {dataset}", ""] + dataset_table(by_dataset[dataset], footnote) + [""]
    if not by_dataset:
        lines += ["No results yet.", ""]
    lines += targets_section(results, targets) + [""]
    lines += redundancy_section(results)
    from benchmarks.render_analysis import analysis_section, heads_section  # circular
    from benchmarks.render_lama import lama_section
    from benchmarks.render_pruned import pruned_section
    from benchmarks.render_ssan import characteristics_section, ssan_section

    lines += pruned_section(results) + lama_section(results) + heads_section(results) + analysis_section(results)
    lines += ssan_section(results)
    for result in characteristics:
        lines += characteristics_section(result)
    for result in parameter_results:
        lines += parameters_section(result) + [""]
    if notes:
        lines += [notes.strip(), ""]
    lines += footnotes_section(results, footnote) + [""]
    if problems:
        lines += ["## Skipped result files", ""] + [f"- {problem}" for problem in problems] + [""]
    return "\n".join(lines)


def render(results_dir: str | Path = RESULTS_DIR, output: str | Path = REPO_ROOT / "BENCHMARKS.md",
           targets: Sequence[Target] = TARGETS) -> str:
    """Read every result JSON in `results_dir`, write the markdown atomically to `output`, return it."""
    results, problems = load_results(Path(results_dir))
    text = render_markdown(results, problems, targets, NOTES.read_text(encoding="utf-8") if NOTES.exists() else "")
    atomic_write_text(output, text)
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS_DIR))
    parser.add_argument("--output", default=str(REPO_ROOT / "BENCHMARKS.md"))
    args = parser.parse_args(argv)
    render(args.results_dir, args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
