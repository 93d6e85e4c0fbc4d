"""BENCHMARKS.md sections built from particular runs: the number-of-heads sweep (LAMA paper §5.2) and the attention
analyses of `benchmarks.run --analyze` (entropy, redundancy, deletion test). Used by benchmarks.render."""
from __future__ import annotations

import re
import statistics

from benchmarks.render import METRICS, fmt_mean_std, group_results

HEADS_VARIANT = re.compile(r"^heads-(?P<setting>.+)-m(?P<heads>\d+)$")


def heads_section(results: list[dict]) -> list[str]:
    """Dev and test accuracy against the number of heads, from runs whose variant is `heads-SETTING-mM`."""
    rows = []
    for (_, name, dataset, variant), runs in group_results(results).items():
        match = HEADS_VARIANT.match(variant)
        if match:
            rows.append((dataset, name, match["setting"], int(match["heads"]), runs))
    if not rows:
        return []
    lines = ["## Number of heads (LAMA paper §5.2)", "",
             "| dataset | recipe | setting | heads m | seeds | dev acc (%) | test acc (%) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for dataset, name, setting, heads, runs in sorted(rows, key=lambda row: row[:4]):
        lines.append(f"| {dataset} | {name} | {setting} | {heads} | {len(runs)} | "
                     f"{fmt_mean_std(METRICS['dev_accuracy'](runs))} | {fmt_mean_std(METRICS['test_accuracy'](runs))} |")
    return lines + [""]


def _mean(values: list[float], digits: int = 3, spread: bool = True) -> str:
    if not values:
        return "—"
    spread = f" ± {statistics.stdev(values):.{digits}f}" if spread and len(values) > 1 else ""
    return f"{statistics.fmean(values):.{digits}f}{spread}"


def _flip(runs: list[dict], ranking: str, step: str) -> list[float]:
    return [row["flip_rate"] for r in runs for row in r["analysis"].get("deletion", {}).get("rows", [])
            if row["ranking"] == ranking and row["step"] == step]


def analysis_section(results: list[dict]) -> list[str]:
    """Per group of analysed runs: accuracy, attention entropy, head redundancy and the deletion test."""
    groups = {key: runs for key, runs in group_results(results).items() if all("analysis" in r for r in runs)}
    if not groups:
        return []
    lines = ["## Does the attention explain the decision?", "",
             "From `benchmarks.run --analyze` (the `attentive analyze` report of 2,000 sampled test texts, or all of "
             "them when fewer). Entropy is each text's attention entropy divided by log(length), 1 = uniform. "
             "Flip rate: share of texts whose prediction changes when the top-ranked words are removed, ranked by "
             "attention (att), at random (rnd) or by gradient × input (grad); means over seeds.", "",
             "| dataset | recipe | seeds | test acc (%) | entropy | A Aᵀ off-diag | flip@1 att / rnd / grad "
             "| flip@10% att / rnd / grad | verdict (seed 0) |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    for (_, name, dataset, variant), runs in sorted(groups.items(), key=lambda item: item[0][2:] + item[0][1:2]):
        label = f"{name} ({variant})" if variant else name
        entropy = [r["analysis"]["mean_normalised_entropy"] for r in runs
                   if r["analysis"].get("mean_normalised_entropy") is not None]
        offdiag = [r["analysis"]["mean_offdiag"] for r in runs if r["analysis"].get("mean_offdiag") is not None]
        flips = [" / ".join(_mean(_flip(runs, ranking, step), 2, spread=False) for ranking in ("attention", "random", "gradient"))
                 for step in ("1", "10%")]
        first = min(runs, key=lambda r: r.get("seed", 0))
        verdict = first["analysis"].get("deletion", {}).get("verdict", "—")
        lines.append(f"| {dataset} | {label} | {len(runs)} | {fmt_mean_std(METRICS['test_accuracy'](runs))} | "
                     f"{_mean(entropy)} | {_mean(offdiag)} | {flips[0]} | {flips[1]} | {verdict} |")
    return lines + [""]
