"""The linear prior's rule (benchmarks/product/accuracy/render_linear_prior.py): one alpha for every dataset, chosen
on the weighted
mean dev accuracy, and shipped only if no set falls below alpha 0 by more than its seed spread."""
from __future__ import annotations

from benchmarks.product.accuracy.render_linear_prior import chosen_alpha, falls, linear_prior_section, weighted_scores

GRID = [0.0, 0.1, 0.5]


def _run(dataset: str, seed: int, dev: dict[float, float], test: float = 0.8, scaling: str = "length") -> dict:
    return {"kind": "linear_prior", "dataset": dataset, "seed": seed, "git_commit": "abcdef0", "scaling": scaling,
            "linear": {"C": 8.0, "dev": 0.7, "test": 0.7}, "grids": {"C": [8.0], "alpha": GRID},
            "by_alpha": {str(alpha): {"dev": value, "test": test} for alpha, value in dev.items()}}


def test_one_alpha_is_chosen_for_every_set_by_the_weighted_dev_score():
    results = [_run("imdb", seed, {0.0: 0.86, 0.1: 0.87, 0.5: 0.90}) for seed in range(3)]
    results += [_run("r8", seed, {0.0: 0.97, 0.1: 0.975 + 0.001 * seed, 0.5: 0.95}) for seed in range(3)]
    sets = {"imdb": results[:3], "r8": results[3:]}
    scores = weighted_scores(sets)  # imdb weighs 1/14, r8 1/8
    assert chosen_alpha(scores) == 0.1 and falls(sets, 0.1) == []
    assert falls(sets, 0.5) == ["r8"]  # 2 points below alpha 0, beyond both spreads
    text = "\n".join(linear_prior_section(results))
    assert "The rule chose alpha 0.1" in text and "is to enter the default" in text


def test_a_tie_keeps_the_smaller_alpha_and_alpha_0_changes_nothing():
    results = [_run("sst2", seed, {0.0: 0.82, 0.1: 0.82, 0.5: 0.81}) for seed in range(3)]
    assert "alpha 0: the default stays as it is" in "\n".join(linear_prior_section(results))
    assert linear_prior_section([{"kind": "model"}]) == []


def test_each_form_of_the_features_has_its_own_section_and_a_file_without_a_form_is_unit_length():
    unit = [_run("sst2", seed, {0.0: 0.82, 0.1: 0.83, 0.5: 0.81}, scaling="unit") for seed in range(3)]
    for run in unit[:2]:
        del run["scaling"]  # round 2's files say nothing of the form
    length = [_run("sst2", seed, {0.0: 0.82, 0.1: 0.80, 0.5: 0.81}) for seed in range(3)]
    assert "The rule chose alpha 0.1" in "\n".join(linear_prior_section(unit + length, "unit"))
    text = "\n".join(linear_prior_section(unit + length, "length"))
    assert "--scaling length" in text and "alpha 0: the default stays" in text
    assert "| sst2 | 3 |" not in text  # at alpha 0 the sets' table would show alpha 0 twice
