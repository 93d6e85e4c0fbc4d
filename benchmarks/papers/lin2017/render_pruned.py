"""BENCHMARKS.md's pruned-MLP section (Lin et al. 2017, Appendix A): `san` beside `san_pruned` at the same settings,
with head parameter counts from a model built from each run's recipe."""
from __future__ import annotations

from attentive import load_recipe
from attentive.api import network_for
from benchmarks.harness.formatting import fmt_count, fmt_mean_std, fmt_number
from benchmarks.harness.results_io import METRICS, group_results, load_papers

PAIR = ("san", "san_pruned")


def head_counts(result: dict) -> tuple[int, int]:
    """(hidden-layer, softmax-layer) parameters of the head the run's recipe and settings build."""
    recipe = load_recipe(result["recipe"], result.get("overrides", []))
    head = network_for(recipe, 10, len(result["test"]["labels"])).head
    last_layer = head.out if hasattr(head, "out") else head.net[-1]
    softmax = sum(p.numel() for p in last_layer.parameters())
    return sum(p.numel() for p in head.parameters()) - softmax, softmax


def paper_rows() -> str:
    """Lin et al.'s Table 4 in one sentence: total parameters and accuracy, original -> pruned."""
    paper = load_papers()["lin2017"]
    rows = [f"{row['dataset']} {' → '.join(fmt_count(count, 1) for count in row['parameters'])} parameters, "
            f"{' → '.join(fmt_number(accuracy) + '%' for accuracy in row['accuracy'])}"
            for row in paper["pruned_mlp"]]
    return f"{paper['short']}: " + "; ".join(rows) + "."


def pruned_section(results: list[dict]) -> list[str]:
    """A row per head for every (dataset, variant) where both SAN heads have runs."""
    groups = group_results(results)
    pairs = sorted({(dataset, variant) for (_kind, name, dataset, variant) in groups if name == PAIR[1]
                    and ("model", PAIR[0], dataset, variant) in groups})
    if not pairs:
        return []
    lines = ["## Pruned MLP (Lin et al. 2017 Appendix A, Table 4)", "",
             "SAN's full MLP head (`san`, 512 hidden units) against the pruned head (`san_pruned`: 30 hop-wise groups "
             "of p = 25 units and 200 column-wise groups of q = 20), same settings otherwise. Trainable parameters; "
             f"test accuracy mean ± sample std over seeds. {paper_rows()}", "",
             "| dataset | setting | head | hidden layer | softmax | other parts | total | seeds | test acc (%) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for dataset, variant in pairs:
        for name in PAIR:
            runs = groups[("model", name, dataset, variant)]
            hidden, softmax = head_counts(runs[0])
            total = runs[0]["params"]
            counts = " | ".join(fmt_count(c) for c in (hidden, softmax, total - hidden - softmax, total))
            lines.append(f"| {dataset} | {variant or '—'} | {name} | {counts} | {len(runs)} "
                         f"| {fmt_mean_std(METRICS['test_accuracy'](runs))} |")
    return lines + [""]
