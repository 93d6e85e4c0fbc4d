"""BENCHMARKS.md's section "Few labels", from the results of `kind: "few_labels"`
(benchmarks/product/fewlabels/few_labels.py, one file a method and draw): per set and labelled texts a class, test
accuracy mean ± std over the draws for TF-IDF + LR, the default trained on the labels alone, the SetFit teacher and
the compact student distilled from it, with training seconds and the student's int8 size.

    python -m benchmarks.product.fewlabels.render_few_labels      # prints the section
"""
from __future__ import annotations

import statistics
from collections import defaultdict

METHODS = [("tfidf_lr", "TF-IDF + LR"), ("default", "default, labels alone"),
           ("setfit_teacher", "SetFit teacher"), ("student", "compact student")]


def _pct(values: list[float]) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return f"{100 * values[0]:.1f} (one draw)"
    return f"{100 * statistics.mean(values):.1f} ± {100 * statistics.stdev(values):.1f}"


def few_labels_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a few-label result)."""
    runs = [r for r in results if r.get("kind") == "few_labels"]
    if not runs:
        return []
    cells = defaultdict(list)
    for run in runs:
        cells[(run["dataset"], (run["per_class"], run.get("pool")), run["method"])].append(run)
    keys = sorted({(run["dataset"], (run["per_class"], run.get("pool"))) for run in runs})
    first = runs[0]
    lines = ["## Few labels", "",
             "k labelled texts a class drawn (seeded) from the training split, the rest of it (the pool column: how "
             "many of its texts, labels dropped) as the unlabelled pool, the full test split scored; the same draws "
             "for every method. "
             "The SetFit teacher is the setfit package with its default settings over the MiniLM package, as "
             "`attentive train --few-labels` trains it; the compact student is the default distilled from it on the "
             "pool and exported int8. Test accuracy (%), mean ± std over the draws; training seconds on this "
             f"machine (`{first['command']}`, commit {first['git_commit']}).", "",
             "| set | k a class | pool | draws | " + " | ".join(name for _, name in METHODS) +
             " | student agrees with teacher | student s | student int8 MB |",
             "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in METHODS) + " | ---: | ---: | ---: |"]
    for dataset, k in keys:
        row = [dataset, str(k[0]), f"{k[1]:,}", str(max(len(cells[(dataset, k, m)]) for m, _ in METHODS))]
        row += [_pct([r["test_accuracy"] for r in cells[(dataset, k, method)]]) for method, _ in METHODS]
        students = cells[(dataset, k, "student")]
        row.append(_pct([r["agreement"] for r in students]))
        row.append(f"{statistics.mean(r['train_seconds'] for r in students):.0f}" if students else "—")
        row.append(f"{statistics.mean(r['int8_bytes'] for r in students) / 1e6:.2f}" if students else "—")
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


if __name__ == "__main__":
    from benchmarks.harness.results_io import load_results

    print("\n".join(few_labels_section(load_results("benchmarks/results")[0])))
