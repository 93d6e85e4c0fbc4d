"""BENCHMARKS.md's section "Confidence on held-out data": the default's expected calibration error on each set's test
split (Guo et al. 2017; 15 equal-width bins), mean ± std over seeds, from the defaults runs (kind "model", variant
"defaults") and from SST-2 cut to 300 rows (benchmarks/product/accuracy/small_calibration.py, kind
"small_calibration"), with how sure the small set's wrong answers were.

    python -m benchmarks.product.accuracy.render_calibration      # prints the section
"""
from __future__ import annotations

import statistics
from collections import defaultdict


def _mean_std(values: list[float], scale: float = 100.0, digits: int = 2) -> str:
    if len(values) == 1:
        return f"{scale * values[0]:.{digits}f}"
    return f"{scale * statistics.mean(values):.{digits}f} ± {scale * statistics.stdev(values):.{digits}f}"


def calibration_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a small-set result)."""
    small = sorted((r for r in results if r.get("kind") == "small_calibration"), key=lambda r: r["seed"])
    if not small:
        return []
    full = defaultdict(list)
    for run in results:
        if run.get("kind", "model") == "model" and run.get("recipe") == "default" and \
                run.get("variant") == "defaults" and "ece" in run.get("test", {}):
            full[run["dataset"]].append(run)
    first = small[0]
    lines = ["## Confidence on held-out data", "",
             "The default's expected calibration error on each test split (Guo et al. 2017, 15 bins; lower is "
             "better), mean ± std over seeds. Its temperature is fitted on dev, never below 1 where dev holds under "
             "200 texts or under 10 wrong answers, and left at 1 where dev is answered all right "
             "(attentive/training/calibration.py); every full set below has a dev split of several hundred texts or "
             "more, where the rule fits as before. The small set is SST-2 cut to 300 rows, 30 of them dev "
             f"(`{first['command']}`, commit {first['git_commit']}).", "",
             "| set | train / dev | seeds | test accuracy | test ECE (%) | wrong answers at p ≥ 0.999 | "
             "largest p of a wrong answer |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    lines.append(f"| SST-2, 300 rows | {first['rows'] - first['dev_n']} / {first['dev_n']} | {len(small)} | "
                 f"{_mean_std([r['test_accuracy'] for r in small])} | {_mean_std([r['test_ece'] for r in small])} | "
                 f"{sum(r['wrong_at_0999'] for r in small)} of {sum(r['wrong'] for r in small)} | "
                 f"{max(r['max_p_wrong'] for r in small):.3f} |")
    for dataset, runs in sorted(full.items()):
        lines.append(f"| {dataset} | the set's own | {len(runs)} | "
                     f"{_mean_std([r['test']['accuracy'] for r in runs])} | "
                     f"{_mean_std([r['test']['ece'] for r in runs])} | — | — |")
    return lines + [""]


if __name__ == "__main__":
    from benchmarks.harness.results_io import load_results

    print("\n".join(calibration_section(load_results("benchmarks/results")[0])))
