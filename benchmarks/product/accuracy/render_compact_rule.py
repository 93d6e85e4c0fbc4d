"""The compact-by-default rule, computed (benchmarks/DECISIONS.md, "Compact by default: the rule"): weighted mean dev
accuracy over the visible single-text sets; a compact candidate within 0.5 points of the default of the day becomes
what `attentive train` trains. Read from `benchmarks.harness.run` files, else the set's deployable run; never test."""
from __future__ import annotations

import statistics

from benchmarks.harness.common import WEIGHTS
from benchmarks.harness.formatting import md_head
from benchmarks.harness.results_io import model_name, on_current_dev, values

MARGIN = 0.5  # points of the weighted mean dev accuracy
CANDIDATES = [  # (label, (recipe, variant) of its benchmarks.harness.run files or None, its system in a deployable run)
    ("opinion", ("opinion", "defaults"), "default"),
    ("compact, alone", ("default", "defaults"), "student_alone"),
    ("compact, distilled", None, "student"),
]
TITLE = "Compact by default? The rule, computed"


def run_dev_accuracies(results: list[dict], dataset: str, recipe: str, variant: str) -> list[float]:
    """The dev accuracy of each seed's `python -m benchmarks.harness.run` file of (recipe, variant) on `dataset`."""
    return values([r for r in results if r.get("kind") == "model" and r.get("dataset") == dataset
                   and model_name(r) == recipe and r.get("variant") == variant and on_current_dev(r)],
                  lambda r: r["dev"]["accuracy"])


def dev_accuracies(results: list[dict], dataset: str, runs_of: tuple[str, str] | None, system: str) -> list[float]:
    """One candidate's dev accuracy on `dataset`, one value a seed (fractions of 1); [] where no result has it."""
    if runs_of is not None:
        found = run_dev_accuracies(results, dataset, *runs_of)
        if found:
            return found
    shipped = [r for r in results if r.get("kind") == "deployable" and r.get("dataset") == dataset
               and not r.get("variant") and system in r.get("systems", {})]
    latest = max(shipped, key=lambda r: r.get("date", ""), default=None)
    return list(latest["systems"][system]["dev_accuracy"]["values"]) if latest else []


def scores(results: list[dict]) -> dict[str, dict[str, list[float]]]:
    """{candidate label: {dataset: dev accuracies}}."""
    return {label: {dataset: dev_accuracies(results, dataset, runs_of, system) for dataset in WEIGHTS}
            for label, runs_of, system in CANDIDATES}


def compact_rule_section(results: list[dict]) -> list[str]:
    """The section's lines: each set's dev accuracy per candidate, the weighted scores where every set is measured,
    and the verdict; [] without any run of a compact candidate."""
    found = scores(results)
    if not any(found["compact, alone"].values()):
        return []
    labels = [label for label, _, _ in CANDIDATES]
    lines = [f"## {TITLE}", "",
             "Mean dev accuracy (%) over 3 seeds (n where fewer), each set weighted as benchmarks/DECISIONS.md wrote "
             f"before the runs: the opinion sets {WEIGHTS['sst2']:.4f} each, the topic and intent sets "
             f"{WEIGHTS['r8']:.3f} each. A compact candidate within {MARGIN} of the score of the default of the "
             "day (the biGRU model, now `opinion`) becomes what `attentive train` trains.", "",
             *md_head(["set", "weight", *labels, "alone − opinion"], "l" + "r" * (len(labels) + 2))]

    def cell(accuracies: list[float]) -> str:
        if not accuracies:
            return "—"
        return f"{statistics.fmean(accuracies) * 100:.2f}" + (f" ({len(accuracies)})" if len(accuracies) < 3 else "")

    for dataset, weight in WEIGHTS.items():
        row = [found[label][dataset] for label in labels]
        gap = (f"{(statistics.fmean(row[1]) - statistics.fmean(row[0])) * 100:+.2f}" if row[0] and row[1] else "—")
        lines.append(f"| {dataset} | {weight:.4f} | " + " | ".join(cell(r) for r in row) + f" | {gap} |")
    totals = {label: sum(statistics.fmean(found[label][d]) * 100 * w for d, w in WEIGHTS.items())
              for label in labels if all(found[label].values())}
    lines.append("")
    if "opinion" in totals and "compact, alone" in totals:
        gap = totals["compact, alone"] - totals["opinion"]
        short = sorted({d for label in labels[:2] for d, v in found[label].items() if len(v) < 3})
        lines.append("Score: " + ", ".join(f"{label} {score:.2f}" for label, score in totals.items()) + f". The "
                     f"compact model trained alone is {gap:+.2f} from `opinion`: " + (
                         f"within {MARGIN}, so by the rule it is what `attentive train` trains (since commit "
                         "`a798496`)."
                         if gap >= -MARGIN else
                         f"not within {MARGIN}: by the rule `opinion` would be the default again.")
                     + (f" Fewer than 3 seeds on {', '.join(short)}." if short else ""))
    else:
        missing = sorted({f"{label} on {d}" for label in labels[:2] for d, v in found[label].items() if not v})
        lines.append("No verdict yet: not measured " + "; ".join(missing) + ".")
    return lines + [""]
