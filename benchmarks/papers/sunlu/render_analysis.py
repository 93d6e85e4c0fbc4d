"""BENCHMARKS.md's attention analyses (`benchmarks.harness.run --analyze`): entropy, redundancy, deletion test."""
from __future__ import annotations

from benchmarks.harness.formatting import fmt_label, fmt_mean_std, fmt_number
from benchmarks.harness.results_io import METRICS, group_results, mean


def _flip(runs: list[dict], ranking: str, step: str) -> list[float]:
    return [row["flip_rate"] for r in runs for row in r["analysis"].get("deletion", {}).get("rows", [])
            if row["ranking"] == ranking and row["step"] == step]


def analysis_section(results: list[dict]) -> list[str]:
    """Per group of analysed runs: accuracy, attention entropy, head redundancy and the deletion test."""
    groups = {key: runs for key, runs in group_results(results).items() if all("analysis" in r for r in runs)}
    if not groups:
        return []
    lines = ["## Does the attention explain the decision?", "",
             "From `benchmarks.harness.run --analyze` (the `attentive analyze` report of 2,000 sampled test texts, "
             "or all of "
             "them when fewer). Entropy is each text's attention entropy divided by log(length), 1 = uniform. "
             "Flip rate: share of texts whose prediction changes when the top-ranked words are removed, ranked by "
             "attention (att), at random (rnd) or by gradient × input (grad); means over seeds.", "",
             "| dataset | recipe | seeds | test acc (%) | entropy | A Aᵀ off-diag | flip@1 att / rnd / grad "
             "| flip@10% att / rnd / grad | verdict (seed 0) |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for (_, name, dataset, variant), runs in sorted(groups.items(), key=lambda item: item[0][2:] + item[0][1:2]):
        entropy = [r["analysis"]["mean_normalised_entropy"] for r in runs
                   if r["analysis"].get("mean_normalised_entropy") is not None]
        offdiag = [r["analysis"]["mean_offdiag"] for r in runs if r["analysis"].get("mean_offdiag") is not None]
        flips = [" / ".join(fmt_number(mean(_flip(runs, ranking, step)), 2, scale=1.0)
                            for ranking in ("attention", "random", "gradient")) for step in ("1", "10%")]
        first = min(runs, key=lambda r: r.get("seed", 0))
        verdict = first["analysis"].get("deletion", {}).get("verdict", "—")
        lines.append(f"| {dataset} | {fmt_label(name, variant)} | {len(runs)} | "
                     f"{fmt_mean_std(METRICS['test_accuracy'](runs))} | {fmt_mean_std(entropy, 3, scale=1.0)} | "
                     f"{fmt_mean_std(offdiag, 3, scale=1.0)} | {flips[0]} | {flips[1]} | {verdict} |")
    return lines + [""]
