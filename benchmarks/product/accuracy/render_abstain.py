"""BENCHMARKS.md's section "Abstaining on CLINC150", from the results of `kind: "abstain"`
(benchmarks/product/accuracy/abstain_clinc.py, one file a seed): per target out-of-scope recall, the threshold chosen
on dev and what it gives on test, in-scope accuracy beside out-of-scope recall (Larson et al. 2019), for the default
recipe and TF-IDF + LR under the same rule; mean ± std over the seeds there are, and "one seed" where there is one.

    python -m benchmarks.product.accuracy.render_abstain      # prints the section
"""
from __future__ import annotations

import statistics
from pathlib import Path


def _pct(values: list[float]) -> str:
    """Percentages, mean ± sample std over the seeds (the mean alone for one seed)."""
    if len(values) == 1:
        return f"{100 * values[0]:.2f}"
    return f"{100 * statistics.mean(values):.2f} ± {100 * statistics.stdev(values):.2f}"


def _thresholds(values: list[float]) -> str:
    low, high = f"{min(values):.3f}", f"{max(values):.3f}"
    return low if low == high else f"{low}-{high}"


def abstain_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without an abstain result)."""
    runs = sorted((r for r in results if r.get("kind") == "abstain"), key=lambda r: r["seed"])
    if not runs:
        return []
    seeds = [run["seed"] for run in runs]
    told = "one seed" if len(runs) == 1 else f"mean ± std over {len(runs)} seeds"
    first = runs[0]
    sizes = first["sizes"]
    lines = ["## Abstaining on CLINC150", "",
             f"CLINC150 (Larson et al. 2019, the full variant): 150 intents, train {sizes['train']:,} / dev "
             f"{sizes['dev']:,} / test {sizes['test']:,} in-scope queries, and out-of-scope queries no intent covers "
             f"(dev {sizes['oos_dev']:,} / test {sizes['oos_test']:,}); both models train on in-scope queries alone. "
             "Each refuses (\"none of these\") a query whose max probability is below a threshold, chosen on dev as "
             "`attentive abstain --recall R` chooses it: the lowest that refuses a share R of the dev out-of-scope "
             "queries. On test, as the paper reports it: in-scope accuracy (a refused in-scope query counts as "
             "wrong) and out-of-scope recall (the share refused), together; R = 0 never refuses. "
             f"Test, {told} (seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}; "
             f"`{first['command']}`, commit {first['git_commit']}).", "",
             "| target recall (dev) | default: threshold | in-scope accuracy | out-of-scope recall | TF-IDF + LR: "
             "threshold | in-scope accuracy | out-of-scope recall |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for index, row in enumerate(first["default"]["rows"]):
        cells = [f"{row['target_recall']:g}"]
        for model in ("default", "tfidf_lr"):
            chosen = [run[model]["rows"][index] for run in runs]
            cells += [_thresholds([c["below"] for c in chosen]),
                      _pct([c["test"]["in_scope_accuracy"] for c in chosen]),
                      _pct([c["test"]["out_of_scope_recall"] for c in chosen])]
        lines.append("| " + " | ".join(cells) + " |")
    epochs = ", ".join(str(run["default"]["best_epoch"]) for run in runs)
    c = ", ".join(f"{run['tfidf_lr']['C']:g}" for run in runs)
    beforehand = [run for run in runs if not run["default"].get("trained_in_this_run", True)]
    trained = "".join(f" Seed {run['seed']}'s model was trained beforehand with the same settings "
                      f"(`attentive train --dataset clinc150 --set train.seed={run['seed']} --threads 1 --out "
                      f"runs/{Path(run['default']['folder']).name}`, "
                      f"{sum(run['default']['epoch_times_s']) / 60:.0f} min of epochs) and read by the script."
                      for run in beforehand)
    lines += ["", f"The default's best dev epochs: {epochs} (dev in-scope accuracy "
                  f"{_pct([run['default']['dev_accuracy'] for run in runs])}); TF-IDF + LR's C (on dev): {c}. "
                  "The thresholds are on each model's own probabilities (the default's calibrated by its temperature, "
                  "TF-IDF + LR's one-vs-rest sigmoids normalised), so they differ between models; what compares is "
                  "the pair of test numbers at one target. The dev set holds 100 out-of-scope queries, so a "
                  "threshold's test recall can miss its dev target by several points." + trained, ""]
    return lines


def main() -> None:
    from benchmarks.harness.results_io import RESULTS_DIR, load_results

    print("\n".join(abstain_section(load_results(RESULTS_DIR)[0])))


if __name__ == "__main__":
    main()
