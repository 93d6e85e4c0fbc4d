"""BENCHMARKS.md's class-weights section (issue 35), from the results of `python -m
benchmarks.product.accuracy.class_weights`: on the
most skewed visible dataset, the default recipe unweighted, with `train.class_weight=balanced` and with
`train.sampler=balanced`: accuracy and macro-F1 on dev and test, then each class's test F1 beside the others'.
Training seconds stay in the JSON alone: the runs compared were not all timed on a quiet machine."""
from __future__ import annotations

SYSTEMS = (("unweighted", "unweighted (default)"), ("class_weight", "`train.class_weight=balanced`"),
           ("sampler", "`train.sampler=balanced`"))
TITLE = "Class weights on skewed labels"


def _cell(summary: dict) -> str:
    return f"{100 * summary['mean']:.2f} ± {100 * summary['std']:.2f}"


def _one(result: dict) -> list[str]:
    dataset, systems = result["dataset"], result["systems"]
    skew = result["skew"]
    counts = skew[dataset]["counts"]
    ranked = sorted(skew.items(), key=lambda item: -item[1]["ratio"])
    others = ", ".join(f"{name} {value['ratio']:g}" for name, value in ranked if name != dataset)
    seeds = ", ".join(map(str, result["seeds"]))
    lines = [f"**{dataset}** (training split {skew[dataset]['train']:,} texts, majority / minority class "
             f"{skew[dataset]['ratio']:g}: the most skewed visible dataset; the others: {others}). The default recipe, "
             f"seeds {seeds}, each run's epoch chosen on dev accuracy; mean ± std over seeds "
             f"([{result['name']}](benchmarks/results/{result['file']})).", "",
             "| training | dev accuracy | dev macro-F1 | test accuracy | test macro-F1 |",
             "| --- | --- | --- | --- | --- |"]
    shown = [(key, label) for key, label in SYSTEMS if key in systems]
    for key, label in shown:
        dev, test = systems[key]["dev"], systems[key]["test"]
        lines.append(f"| {label} | {_cell(dev['accuracy'])} | {_cell(dev['macro_f1'])} | {_cell(test['accuracy'])} "
                     f"| {_cell(test['macro_f1'])} |")
    lines += ["", "Test F1 of each class (training texts in brackets), largest class first:", "",
              "| class | " + " | ".join(label for _, label in shown) + " |",
              "| --- |" + " --- |" * len(shown)]
    for label in counts:
        cells = [_cell(systems[key]["test"]["per_class_f1"][label]) for key, _ in shown]
        lines.append(f"| {label} ({counts[label]:,}) | " + " | ".join(cells) + " |")
    return lines + [""]


def class_weights_section(results: list[dict]) -> list[str]:
    """The section's lines; [] without a class_weights result."""
    if not results:
        return []
    lines = [f"## {TITLE}", "",
             "The data term weighted by n / (k · n_c) (`train.class_weight=balanced`, scikit-learn's `balanced`) or "
             "each epoch's rows drawn n / k per class with replacement (`train.sampler=balanced`), against the "
             "unweighted default; benchmarks/DECISIONS.md says what the numbers mean.", ""]
    for result in sorted(results, key=lambda r: r["dataset"]):
        lines += _one(result)
    return lines
