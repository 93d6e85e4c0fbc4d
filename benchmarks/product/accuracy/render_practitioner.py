"""BENCHMARKS.md's section on the practitioner's tools (issue 35), from `python -m
benchmarks.product.accuracy.practitioner`: `attentive
cv` (mean ± std over the folds, per seed, and the label-error report's size) and `attentive tune` (the best trial's dev
and test accuracy beside the default model's of the same seed). Wall times stay in the JSON: several of these runs
shared the machine."""
from __future__ import annotations

TITLE = "Cross-validation and autotune"


def _pct(summary: dict) -> str:
    return f"{100 * summary['mean']:.2f} ± {100 * summary['std']:.2f}"


def _table_head(result: dict, title: str, columns: list[str]) -> list[str]:
    """A result's lead paragraph (`title`, then a link to its file) and the head of its table."""
    return [f"{title}; [{result['name']}](benchmarks/results/{result['file']})).", "",
            "| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]


def _cv(result: dict) -> list[str]:
    lines = _table_head(result, f"**`attentive cv --folds {result['folds']}` on {result['dataset']}'s train split** "
                                f"({result['rows']:,} texts; the default recipe; each fold's epoch chosen on a dev "
                                f"tenth of its own training rows",
                        ["seed", "accuracy over folds", "macro-F1 over folds", "out-of-fold accuracy",
                         "suspected label errors"])
    for run in result["per_seed"]:
        lines.append(f"| {run['seed']} | {_pct(run['accuracy'])} | {_pct(run['macro_f1'])} | "
                     f"{100 * run['out_of_fold']['accuracy']:.2f} | {run['suspects']:,} |")
    lines.append(f"| mean ± std over seeds | {_pct(result['accuracy'])} | {_pct(result['macro_f1'])} | "
                 f"{_pct(result['out_of_fold_accuracy'])} | {result['suspects']['mean']:,.0f} ± "
                 f"{result['suspects']['std']:,.0f} |")
    first = result["per_seed"][0]["most_suspect"][:5]
    if first:
        lines += ["", "The five most suspect rows of the first seed (given label → the one cross-validation "
                      "suggests, the given label's out-of-fold probability):", ""]
        lines += [f"- {row['given']} → {row['suggested']} ({row['self_confidence']:.3f}): “{row['text']}”"
                  for row in first]
    return lines + [""]


OWN_FIRST = "12bd312"  # the commit from which a new study's first trial is the recipe's own settings


def _tune(result: dict) -> list[str]:
    lines = _table_head(result, f"**`attentive tune --budget {result['budget']}` on {result['dataset']}** (the "
                                f"default recipe's `tune:` space, Optuna TPE with median pruning, one study per seed, "
                                f"its first trial the recipe itself in studies begun since commit {OWN_FIRST}; the "
                                f"best trial by dev accuracy, then scored on test",
                        ["seed", "trials (completed)", "tuned dev", "tuned test", "default dev", "default test",
                         "best settings"])
    for run in result["per_seed"]:
        settings = ", ".join(f"{key}={value:.3g}" if isinstance(value, float) else f"{key}={value}"
                             for key, value in run["best_params"].items())
        lines.append(f"| {run['seed']} | {run['trials']} ({run['completed']}) | "
                     f"{100 * run['tuned']['dev_accuracy']:.2f} | {100 * run['tuned']['test_accuracy']:.2f} | "
                     f"{100 * run['default']['dev_accuracy']:.2f} | {100 * run['default']['test_accuracy']:.2f} | "
                     f"{settings} |")
    lines.append(f"| mean ± std | | {_pct(result['tuned_dev'])} | {_pct(result['tuned_test'])} | "
                 f"{_pct(result['default_dev'])} | {_pct(result['default_test'])} | |")
    return lines + [""]


def practitioner_section(results: list[dict]) -> list[str]:
    """The section's lines; [] without a cv or tune result."""
    cv = sorted((r for r in results if r.get("kind") == "cv"), key=lambda r: r["dataset"])
    tune = sorted((r for r in results if r.get("kind") == "tune"), key=lambda r: r["dataset"])
    if not cv and not tune:
        return []
    lines = [f"## {TITLE}", ""]
    for result in cv:
        lines += _cv(result)
    for result in tune:
        lines += _tune(result)
    return lines
