"""A linear model fitted first, combined with the default's answer (benchmarks/DECISIONS.md, "A linear model fitted
first"): the one alpha the rule chose on the weighted mean dev accuracy, `length` runs only."""
from __future__ import annotations

import statistics

from benchmarks.harness.common import WEIGHTS
from benchmarks.harness.formatting import md_row

KIND = "linear_prior"


def by_set(results: list[dict]) -> dict[str, list[dict]]:
    """The `length` runs holding every alpha's accuracy, by dataset."""
    found: dict[str, list[dict]] = {}
    for result in results:
        if result.get("kind") == KIND and "by_alpha" in result and result.get("scaling") == "length":
            found.setdefault(result["dataset"], []).append(result)
    return dict(sorted(found.items()))


def mean_at(runs: list[dict], alpha: float, split: str) -> float:
    """The seeds' mean accuracy (%) of the mix at `alpha` on `split`."""
    return statistics.fmean(100 * run["by_alpha"][str(alpha)][split] for run in runs)


def spread_at(runs: list[dict], alpha: float) -> float:
    """The seeds' dev std (%, population) at `alpha`."""
    return statistics.pstdev([100 * run["by_alpha"][str(alpha)]["dev"] for run in runs]) if len(runs) > 1 else 0.0


def weighted_scores(sets: dict[str, list[dict]]) -> dict[float, float]:
    """Each alpha of the grid -> the weighted mean dev accuracy over the sets (the compact rule's weights)."""
    grid = next(iter(sets.values()))[0]["grids"]["alpha"]
    return {alpha: sum(WEIGHTS.get(name, 0.0) * mean_at(runs, alpha, "dev") for name, runs in sets.items())
            for alpha in grid}


def chosen_alpha(scores: dict[float, float]) -> float:
    """The alpha of the highest score; a tie goes to the smaller alpha."""
    return max(scores, key=lambda alpha: (round(scores[alpha], 6), -alpha))


def falls(sets: dict[str, list[dict]], alpha: float) -> list[str]:
    """The sets whose mean dev at `alpha` is below alpha 0's by more than the larger of the two seed spreads."""
    return [name for name, runs in sets.items() if mean_at(runs, 0.0, "dev") - mean_at(runs, alpha, "dev")
            > max(spread_at(runs, 0.0), spread_at(runs, alpha))]


def linear_prior_section(results: list[dict]) -> list[str]:
    """The section's lines, or [] without any run."""
    sets = by_set(results)
    if not sets:
        return []
    scores = weighted_scores(sets)
    alpha = chosen_alpha(scores)
    fallen = falls(sets, alpha)
    commits = ", ".join(sorted({f"`{run.get('git_commit', '?')[:7]}`" for runs in sets.values() for run in runs}))
    lines = ["## A linear model fitted first (issue 46, item 3)", "",
             "`python -m benchmarks.linear_prior --dataset D --seeds 0 1 2 --scaling length` (commit "
             + commits + "): the default model, and a logistic regression fitted first and apart over its token ids "
             "(uni- and hashed bigrams, idf, divided by the text's number of tokens: the form `wide.prior` folds "
             "into the n-gram channel; C on dev); the answer is log p_default + alpha · log p_linear, "
             "one alpha for every set, chosen on the weighted mean dev (the compact rule's weights). Accuracy (%), "
             "mean over the seeds; spread: the larger dev std of the two columns.", "",
             md_row(["alpha", *(f"{a:g}" for a in scores)]), md_row(["---", *("---:" for _ in scores)]),
             md_row(["weighted dev", *(f"{value:.2f}" for value in scores.values())]), ""]
    verdict = (f"The rule chose alpha {alpha:g}: weighted dev {scores[alpha]:.2f} against {scores[0.0]:.2f} for the "
               "default alone, ")
    verdict += ("no set falling by more than its spread: by the rule written before the runs the linear model is to "
                "enter the default." if alpha > 0 and not fallen else
                f"{'alpha 0' if alpha == 0 else 'with ' + ', '.join(fallen) + ' falling beyond their spreads'}: "
                "the default stays as it is.")
    return lines + [verdict, "", "A weight each model fits on its own dev split instead is what the default does "
                    "(benchmarks/DECISIONS.md, \"The linear model on every length\").", ""]
