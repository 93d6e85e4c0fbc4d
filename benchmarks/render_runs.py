"""BENCHMARKS.md's appendix file, after the notes: "Appendix: every run" (one table per dataset listing every group
of runs — each sweep variant included — and the attention redundancy of every group) and the numbered list of result
files with the command, commit, machine and date that produced each, each linked to its JSON file."""
from __future__ import annotations

from benchmarks.formatting import fmt_label, fmt_mean_std, fmt_number, fmt_paper, fmt_times
from benchmarks.results_io import (
    METRICS,
    group_results,
    groups_by_dataset,
    machine_short,
    mean,
    mean_by_machine,
    model_name,
    paper_accuracy,
    runs_by_machine,
    values,
)

APPENDIX_TITLE = "Appendix: every run"
RUNS_TITLE = "Runs"


def dataset_table(groups: dict[tuple, list[dict]], footnote: dict[str, int]) -> list[str]:
    """Markdown table for one dataset's groups, best test accuracy first (dev chose nothing here: every group is
    listed)."""
    lines = [
        "| kind | model / recipe | seeds | test acc (%) | test macro-F1 (%) | dev acc (%) | paper | wall time / run "
        "| epoch time | machine | runs |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    order = sorted(groups.items(), key=lambda item: -(mean(METRICS["test_accuracy"](item[1])) or 0.0))
    for (kind, name, _dataset, variant), results in order:
        recorded = mean(values(results, lambda r: r.get("paper_reference")))
        paper = recorded if recorded is not None else paper_accuracy(model_name(results[0]), results[0]["dataset"])
        cells = [kind, fmt_label(name, variant), str(len(results)), fmt_mean_std(METRICS["test_accuracy"](results)),
                 fmt_mean_std(METRICS["test_macro_f1"](results)), fmt_number(mean(METRICS["dev_accuracy"](results))),
                 fmt_paper(paper), fmt_times(mean_by_machine(results, "wall_time_s")),
                 fmt_times(mean_by_machine(results, "epoch_time_s")), ", ".join(runs_by_machine(results)),
                 " ".join(f"[{footnote[r['name']]}]" for r in results)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def redundancy_table(results: list[dict]) -> list[str]:
    """Lin et al. 2017 §4.4 in spirit: accuracy and the mean off-diagonal of A Aᵀ of every attention model group."""
    groups = {key: runs for key, runs in group_results(results).items()
              if all("attention_offdiag_mean" in r for r in runs)}
    if not groups:
        return []
    lines = ["### Attention redundancy of every attention run (Lin et al. 2017 §4.4)", "",
             "Mean off-diagonal entry of A Aᵀ over the test texts (0: the heads attend to disjoint words; "
             "1: every head puts all its weight on one same word), beside test accuracy.", "",
             "| dataset | recipe | seeds | test acc (%) | mean off-diagonal of A Aᵀ |",
             "| --- | --- | ---: | ---: | ---: |"]
    for (_, name, dataset, variant), runs in sorted(groups.items(), key=lambda item: item[0][2:]):
        offdiag = [r["attention_offdiag_mean"] for r in runs]
        lines.append(f"| {dataset} | {fmt_label(name, variant)} | {len(runs)} | "
                     f"{fmt_mean_std(METRICS['test_accuracy'](runs))} | {fmt_mean_std(offdiag, 4, scale=1.0)} |")
    return lines + [""]


def appendix_section(results: list[dict], footnote: dict[str, int]) -> list[str]:
    """Every group of runs of every dataset, then the redundancy table."""
    lines = [f"## {APPENDIX_TITLE}", "",
             "Every group of runs — (kind, model or recipe, dataset, variant), each sweep variant on its own row — "
             "best test accuracy first; the sections above show only the variant dev chose. Test accuracy and "
             "macro-F1 are mean ± sample std over seeds; \"paper\" is the figure a paper reports for the row "
             "(`benchmarks/papers.json`); times are per machine, in the machine column's order; the numbers in "
             "\"runs\" point into [Runs](#runs).", ""]
    by_dataset = groups_by_dataset(results)
    for dataset, groups in by_dataset.items():
        lines += [f"### {dataset}", ""] + dataset_table(groups, footnote) + [""]
    if not by_dataset:
        lines += ["No results yet.", ""]
    return lines + redundancy_table(results)


def footnotes_section(results: list[dict], footnote: dict[str, int], results_link: str = "benchmarks/results"
                      ) -> list[str]:
    """The numbered list the "runs" columns point into: each result file, linked as `results_link`/<name>.json,
    with the exact command and commit that produced it."""
    lines = [f"## {RUNS_TITLE}", "", "Each result file, with the exact command and commit that produced it.", ""]
    for result in results:
        file = f"{result['name']}.json"
        lines.append(
            f"{footnote[result['name']]}. [`{file}`]({results_link}/{file}): `{result.get('command', '?')}` "
            f"at commit `{result.get('git_commit', '?')}`, {machine_short(result)}, {result.get('date', '?')}"
        )
    return lines + [""]
