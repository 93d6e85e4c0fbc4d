"""The abstain section: one row per target recall, both models' thresholds and test numbers, "one seed" said."""
from benchmarks.product.accuracy.render_abstain import abstain_section


def _result(seed: int, shift: float) -> dict:
    def rows(accuracy: float) -> list[dict]:
        return [{"target_recall": target, "below": 0.1 * index,
                 "test": {"in_scope_accuracy": accuracy - 0.01 * index + shift,
                          "out_of_scope_recall": 0.2 * index}} for index, target in enumerate((0.0, 0.5, 0.8))]

    return {"kind": "abstain", "seed": seed, "command": "python -m x", "git_commit": "abc",
            "sizes": {"train": 15000, "dev": 3000, "test": 4500, "oos_dev": 100, "oos_test": 1000},
            "default": {"rows": rows(0.9), "best_epoch": 7, "dev_accuracy": 0.93},
            "tfidf_lr": {"rows": rows(0.85), "C": 8.0}}


def test_one_seed_is_said_and_each_target_is_a_row():
    lines = abstain_section([_result(0, 0.0), {"kind": "model"}])
    assert lines[0] == "## Abstaining on CLINC150" and "one seed" in lines[2]
    table = [line for line in lines if line.startswith("| 0")]
    assert table[0] == "| 0 | 0.000 | 90.00 | 0.00 | 0.000 | 85.00 | 0.00 |"
    assert table[2] == "| 0.8 | 0.200 | 88.00 | 40.00 | 0.200 | 83.00 | 40.00 |"
    several = abstain_section([_result(0, 0.0), _result(1, 0.02)])
    assert "mean ± std over 2 seeds" in several[2] and "| 0 | 0.000 | 91.00 ± 1.41 |" in "\n".join(several)
    assert abstain_section([{"kind": "multilabel"}]) == []
