"""A linear model fitted first, combined with the default's answer (issue 46, item 3; benchmarks/linear_prior.py, and
benchmarks/DECISIONS.md, "A linear model fitted first"): the one alpha the rule chose across the visible sets, and each
set's dev and test accuracy at it against alpha 0 (the default alone), beside the linear model alone and TF-IDF + LR.
The rule reads dev only; test is shown, never used to choose. One section per form of the linear model's features
(`scaling`): `length`, the form `wide.prior` folds into the n-gram channel, in BENCHMARKS.md; `unit`, the round
before it, in the appendix.
"""
from __future__ import annotations

import statistics

from benchmarks.harness.common import WEIGHTS
from benchmarks.harness.results_io import METRICS, model_name

KIND = "linear_prior"
TITLES = {"length": "A linear model fitted first (issue 46, item 3)",
          "unit": "A linear model fitted first, unit-length form (issue 46, item 3, round 2)"}
FORMS = {"length": ("--scaling length", "idf, divided by the text's number of tokens: the form `wide.prior` folds "
                                          "into the n-gram channel"),
         "unit": ("", "idf, unit length")}


def by_set(results: list[dict], scaling: str = "length") -> dict[str, list[dict]]:
    """The runs of `python -m benchmarks.linear_prior` of one form (`scaling`; the files before it was recorded are
    `unit`) that hold every alpha's accuracy, by dataset."""
    found: dict[str, list[dict]] = {}
    for result in results:
        if result.get("kind") == KIND and "by_alpha" in result and result.get("scaling", "unit") == scaling:
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


def linear_prior_section(results: list[dict], scaling: str = "length") -> list[str]:
    """The section's lines for the runs of one form, or [] without any run (the recipe `documents`, which it led to,
    is a column of the defaults table: benchmarks/product/accuracy/render_defaults.py)."""
    sets = by_set(results, scaling)
    if not sets:
        return []
    scores = weighted_scores(sets)
    alpha = chosen_alpha(scores)
    fallen = falls(sets, alpha)
    commits = ", ".join(sorted({f"`{run.get('git_commit', '?')[:7]}`" for runs in sets.values() for run in runs}))
    option, form = FORMS[scaling]
    lines = [f"## {TITLES[scaling]}", "",
             f"`python -m benchmarks.linear_prior --dataset D --seeds 0 1 2{' ' * bool(option)}{option}` (commit "
             + commits + "): the default model, and a logistic regression fitted first and apart over its token ids "
             f"(uni- and hashed bigrams, {form}; C on dev); the answer is log p_default + alpha · log p_linear, "
             "one alpha for every set, chosen on the weighted mean dev (the compact rule's weights). Accuracy (%), "
             "mean over the seeds; spread: the larger dev std of the two columns.", "",
             "| alpha | " + " | ".join(f"{a:g}" for a in scores) + " |",
             "| --- | " + " | ".join("---:" for _ in scores) + " |",
             "| weighted dev | " + " | ".join(f"{value:.2f}" for value in scores.values()) + " |", ""]
    verdict = (f"The rule chose alpha {alpha:g}: weighted dev {scores[alpha]:.2f} against {scores[0.0]:.2f} for the "
               "default alone, ")
    verdict += ("no set falling by more than its spread: by the rule written before the runs the linear model is to "
                "enter the default (benchmarks/DECISIONS.md, \"A linear model fitted first\", says how far that is "
                "built)." if alpha > 0 and not fallen else
                f"{'alpha 0' if alpha == 0 else 'with ' + ', '.join(fallen) + ' falling beyond their spreads'}: "
                "the default stays as it is.")
    after = [verdict, ""] + ([
        "A weight each model fits on its own dev split instead is the recipe `documents`, a column of the defaults "
        "table above (benchmarks/DECISIONS.md, \"A linear model fitted first\", scores it cross-fitted).", ""]
        if scaling == "length" else [])
    if alpha == 0:  # each set at alpha 0 twice says nothing
        return lines + after
    lines += ["| set | seeds | dev, alpha 0 | dev, alpha " + f"{alpha:g}" + " | spread | test, alpha 0 | test, alpha "
             + f"{alpha:g}" + " | linear alone, test | TF-IDF + LR, test |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, runs in sets.items():
        peer = METRICS["test_accuracy"]([r for r in results if r.get("dataset") == name
                                         and model_name(r) == "tfidf_lr" and r.get("kind") != KIND])
        linear = statistics.fmean(100 * run["linear"]["test"] for run in runs)
        lines.append(f"| {name} | {len(runs)} | {mean_at(runs, 0.0, 'dev'):.2f} | {mean_at(runs, alpha, 'dev'):.2f} | "
                     f"{max(spread_at(runs, 0.0), spread_at(runs, alpha)):.2f} | {mean_at(runs, 0.0, 'test'):.2f} | "
                     f"{mean_at(runs, alpha, 'test'):.2f} | {linear:.2f} | "
                     + (f"{100 * statistics.fmean(peer):.2f}" if peer else "—") + " |")
    return lines + [""] + after
