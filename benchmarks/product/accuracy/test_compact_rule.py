"""The compact-by-default rule computed from result files (benchmarks/product/accuracy/render_compact_rule.py; issue
45, item 5): the
weights written before the runs, each candidate's dev accuracy from its runs or else from the set's deployable run,
no verdict while a set is missing, and the verdict the 0.5 margin gives."""
from __future__ import annotations

import pytest

from benchmarks.harness.common import TOPIC, WEIGHTS
from benchmarks.product.accuracy.render_compact_rule import TITLE, compact_rule_section


def _run(recipe: str, variant: str, dataset: str, seed: int, dev: float) -> dict:
    return {"name": f"{recipe}-{dataset}-{variant}-s{seed}", "kind": "model", "recipe": recipe, "variant": variant,
            "dataset": dataset, "seed": seed, "date": "2026-11-27T00:00:00+00:00", "dev": {"accuracy": dev},
            "test": {"accuracy": 0.0}}


def _everywhere(opinion: float, alone: float, skip: tuple[str, ...] = ()) -> list[dict]:
    """Runs as benchmarks.harness.results_io reads them: the biGRU default of the rule's day as `opinion`, the compact
    model
    trained alone (run as `student`, variant `alone`) as `default`, variant `defaults`."""
    return [_run(recipe, variant, dataset, seed, dev) for dataset in WEIGHTS if dataset not in skip
            for recipe, variant, dev in (("opinion", "defaults", opinion), ("default", "defaults", alone))
            for seed in range(3)]


def test_the_weights_give_each_half_of_the_score_one_half():
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert sum(WEIGHTS[dataset] for dataset in TOPIC) == pytest.approx(0.5)


@pytest.mark.parametrize("alone, verdict", [(0.796, "within 0.5, so by the rule it is what `attentive train` trains"),
                                            (0.794, "not within 0.5")])
def test_the_verdict_is_the_weighted_gap_against_the_margin(alone, verdict):
    lines = compact_rule_section(_everywhere(0.80, alone))
    assert lines[0] == f"## {TITLE}"
    assert "| sst2 | 0.0714 | 80.00 | " + f"{alone * 100:.2f}" in "\n".join(lines)
    [score] = [line for line in lines if line.startswith("Score:")]
    assert verdict in score and "Fewer than 3 seeds" not in score
    one_seed = [r for r in _everywhere(0.80, alone) if not (r["dataset"] == "news" and r["seed"] > 0)]
    assert compact_rule_section(one_seed)[-2].endswith("Fewer than 3 seeds on news.")


def test_a_missing_set_means_no_verdict_and_a_deployable_run_fills_a_candidate_in():
    results = _everywhere(0.80, 0.79, skip=("news",))
    lines = compact_rule_section(results)
    assert not any(line.startswith("Score:") for line in lines)
    assert "No verdict yet: not measured compact, alone on news; opinion on news." in lines
    deployable = {"name": "deployable-news", "kind": "deployable", "dataset": "news", "variant": None,
                  "date": "2026-11-27", "systems": {key: {"dev_accuracy": {"values": [0.9, 0.91, 0.92]}}
                                                    for key in ("default", "student", "student_alone")}}
    lines = compact_rule_section(results + [deployable])
    assert "| news | 0.1250 | 91.00 | 91.00 | 91.00 | +0.00 |" in lines
    assert any(line.startswith("Score:") for line in lines)
    assert compact_rule_section([r for r in results if r["recipe"] == "opinion"]) == []  # no compact run: no section


def test_compare_scores_other_candidates_with_each_sets_spread():
    from benchmarks.product.accuracy.render_compact_rule import compare

    runs = _everywhere(0.80, 0.79)
    lines = compare(runs, [("opinion", "defaults"), ("default", "defaults"), ("default", "idf")])
    assert lines[0] == "| set | opinion:defaults | default:defaults | default:idf |"
    assert "| sst2 | 80.00 ± 0.00 (3) | 79.00 ± 0.00 (3) | — |" in lines
    assert lines[-1] == "Score: opinion:defaults 80.00, default:defaults 79.00, default:idf —"
