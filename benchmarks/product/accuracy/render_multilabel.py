"""BENCHMARKS.md's multi-label section, from benchmarks/results/multilabel-*.json
(benchmarks/product/accuracy/multilabel.py): the
default recipe's test micro- and macro-F1 (mean ± std over its seeds) and per-label F1 beside one-vs-rest TF-IDF + LR.

    python -m benchmarks.product.accuracy.render_multilabel      # prints the section

It reads results of `kind: "multilabel"`; render.py is to call `multilabel_section` once that kind is one of
results_io.OWN_SECTION_KINDS (until then a full render lists the file among the skipped ones).
"""
from __future__ import annotations


def _pct(value: float) -> str:
    return f"{100 * value:.2f}"


def multilabel_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a multi-label result)."""
    lines = []
    for result in sorted((r for r in results if r.get("kind") == "multilabel"), key=lambda r: r["name"]):
        default, baseline, labels = result["default"], result["tfidf_lr"], result["labels"]
        sizes = ", ".join(f"{split} {size:,}" for split, size in result["sizes"].items())
        seeds = len(default["runs"])
        lines += ["## Multi-label: SemEval-2014 restaurant aspect categories", "",
                  f"Each sentence labelled with its set of aspect categories ({', '.join(labels)}); {sizes} sentences; "
                  f"{result['selected_on']}. Test micro-F1 (every sentence-label decision) and macro-F1 (mean of "
                  f"the per-label F1); the default recipe's mean ± std over {seeds} seeds "
                  f"(`{result['command']}`, commit {result['git_commit']}).", "",
                  "| model | test micro-F1 | test macro-F1 | " + " | ".join(labels) + " |",
                  "| --- | --- | --- | " + " | ".join("---" for _ in labels) + " |"]
        per_label = {label: sum(run["test"]["per_label_f1"][label] for run in default["runs"]) / seeds
                     for label in labels}
        test = default["test"]
        lines.append(f"| default ({seeds} seeds) | {_pct(test['micro_f1']['mean'])} ± {_pct(test['micro_f1']['std'])} "
                     f"| {_pct(test['macro_f1']['mean'])} ± {_pct(test['macro_f1']['std'])} | "
                     + " | ".join(_pct(per_label[label]) for label in labels) + " |")
        lines.append(f"| TF-IDF + LR, one-vs-rest (C={baseline['C']:g}) | {_pct(baseline['test']['micro_f1'])} | "
                     f"{_pct(baseline['test']['macro_f1'])} | "
                     + " | ".join(_pct(baseline["test"]["per_label_f1"][label]) for label in labels) + " |")
        epochs = [run["best_epoch"] for run in default["runs"]]
        seconds = [run["wall_time_s"] for run in default["runs"]]
        lines += ["", f"Best dev epochs {', '.join(map(str, epochs))}; {min(seconds):.0f}-{max(seconds):.0f} s per "
                      "default run (vectors, training, thresholds and the test answers).", ""]
    return lines


def main() -> None:
    from benchmarks.harness.results_io import RESULTS_DIR, load_results

    print("\n".join(multilabel_section([r for r in load_results(RESULTS_DIR)[0] if r.get("kind") == "multilabel"])))


if __name__ == "__main__":
    main()
