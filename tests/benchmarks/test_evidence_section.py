"""The appendix's section on which words explain an export (benchmarks/render_evidence.py): one row a dataset, the
mean over every run, and the rule's first two parts computed from the flip rates."""
from __future__ import annotations

from benchmarks.render_evidence import RANKINGS, evidence_section


def run(dataset: str, attention: float, linearised: float, seeds: int = 3) -> dict:
    flipped = {name: 0.1 for name in RANKINGS} | {"attention": attention, "occlusion": 0.4, "linearised": linearised}
    return {"kind": "top_words_evidence", "dataset": dataset,
            "models": [{"texts": 300, "flipped": flipped} for _ in range(seeds)]}


def test_the_section_computes_the_rule_from_the_flip_rates():
    results = [run(f"set{i}", attention=0.2, linearised=0.35) for i in range(8)]
    lines = evidence_section(results)
    rows = [line for line in lines if line.startswith("| set")]
    assert len(rows) == 8 and rows[0].split(" | ")[2] == "20.0 ± 0.0"
    assert "| all runs | 24 | 20.00 | 10.00 | 40.00 | 35.00 |" in "\n".join(lines)
    assert "35.00 against a bar of 30.00" in lines[-2] and ": met; at least attention's on 8 of 8" in lines[-2]
    below = evidence_section([run(f"set{i}", attention=0.2, linearised=0.25 if i else 0.1) for i in range(8)])
    assert "NOT met; at least attention's on 7 of 8 sets (needed: 7): met" in below[-2]
    assert evidence_section([{"kind": "frontier"}]) == []


def test_the_section_shows_what_the_words_by_evidence_cost_predict():
    speed = {"kind": "evidence_speed", "dataset": "sst2", "docs_per_s": {
        "predict_attention": 30000.0, "predict_evidence": 27000.0, "predict_proba": 50000.0, "tfidf_lr": 36000.0}}
    lines = evidence_section([run("sst2", attention=0.2, linearised=0.35), speed])
    assert "| sst2 | 30,000 | 27,000 | 0.90 | 50,000 | 36,000 | 0.75 |" in lines
