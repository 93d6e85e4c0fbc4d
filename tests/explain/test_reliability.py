"""The reliability diagram of `attentive analyze` (attentive/explain/reliability.py): 15 equal-width confidence
bins, accuracy against confidence with counts, before and after the stored temperature; its ECE is the one
temperature scaling recorded in config.json on the same texts."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import attentive
from attentive.answer.metrics import expected_calibration_error
from attentive.explain.reliability import reliability, reliability_bins
from attentive.explain.report import analyze_split

from ..helpers import copy_of_tiny_run

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def trained(tiny_run, tmp_path_factory):
    """The session's tiny model (calibrated on dev as every run is), loaded, and its folder."""
    out = copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("reliability") / "run")
    return attentive.load(out), out


def _rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_bins_by_hand_and_their_weighted_gap_is_the_ece():
    probabilities = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.55, 0.45], [0.95, 0.05]])
    gold = [0, 1, 1, 1, -1]  # -1: a label the model does not know, answered wrongly
    bins = reliability_bins(probabilities, gold)
    assert len(bins) == 15 and bins[0]["lo"] == 0 and bins[-1]["hi"] == 1
    filled = {b["bin"]: (b["count"], b["accuracy"], b["confidence"]) for b in bins if b["count"]}
    assert filled == {9: (1, 0.0, 0.55), 11: (1, 1.0, pytest.approx(0.7)), 12: (1, 0.0, 0.8), 14: (1, 1.0, 0.9),
                      15: (1, 0.0, 0.95)}
    gap = sum(b["count"] * abs(b["accuracy"] - b["confidence"]) for b in bins if b["count"]) / len(gold)
    assert gap == pytest.approx(expected_calibration_error(probabilities, gold))


def test_the_panels_are_at_temperature_1_and_the_stored_one():
    logits = np.array([[3.0, 0.0], [2.0, 0.5], [0.0, 4.0], [1.0, 1.2]])
    gold = [0, 1, 1, 0]
    before, after = reliability(logits, gold, 2.5)
    assert (before["panel"], before["temperature"]) == ("before", 1.0)
    assert (after["panel"], after["temperature"]) == ("after", 2.5)
    assert after["ece"] != pytest.approx(before["ece"])
    scaled = np.exp(logits / 2.5) / np.exp(logits / 2.5).sum(1, keepdims=True)
    assert after["ece"] == pytest.approx(expected_calibration_error(scaled, gold))
    assert [p["panel"] for p in reliability(logits, gold, None)] == ["before"]


def test_analyze_writes_a_png_whose_ece_is_the_one_calibration_recorded(trained, sst2_small, tmp_path):
    model, run = trained
    calibration = json.loads((run / "config.json").read_text())["calibration"]
    summary = analyze_split(attentive.load(run), sst2_small, tmp_path / "report", "dev", limit=None, deletion=False)
    report = tmp_path / "report"
    png = (report / "reliability.png").read_bytes()
    assert png.startswith(PNG_SIGNATURE)
    import matplotlib.image

    image = matplotlib.image.imread(report / "reliability.png")
    assert image.ndim == 3 and image.shape[0] > 300 and image.shape[1] > 600  # two panels side by side
    found = summary["calibration"]
    assert found["temperature"] == calibration["temperature"]
    assert found["ece_before"] == pytest.approx(calibration["dev_ece_before"], abs=1e-9)
    assert found["ece_after"] == pytest.approx(calibration["dev_ece_after"], abs=1e-9)
    assert f"ECE {calibration['dev_ece_before']:.4f}" in found["titles"][0]
    assert f"T = {calibration['temperature']:.3f}" in found["titles"][1]
    rows = _rows(report / "reliability.csv")
    assert len(rows) == 30 and {r["panel"] for r in rows} == {"before", "after"}
    for panel in ("before", "after"):
        assert sum(int(r["count"]) for r in rows if r["panel"] == panel) == len(sst2_small.splits["dev"])
    index = (report / "index.html").read_text(encoding="utf-8")
    assert 'src="reliability.png"' in index and "reliability.csv" in index
    assert json.loads((report / "summary.json").read_text())["calibration"]["ece_before"] == found["ece_before"]


def test_a_model_saved_without_a_temperature_gets_the_before_panel_alone(trained, sst2_small, tmp_path):
    model, _ = trained
    model.config.pop("calibration")
    try:
        summary = analyze_split(model, sst2_small, tmp_path / "report", "dev", limit=50, deletion=False)
    finally:
        model.config["calibration"] = json.loads((trained[1] / "config.json").read_text())["calibration"]
    assert summary["calibration"]["temperature"] is None and summary["calibration"]["ece_after"] is None
    assert len(summary["calibration"]["titles"]) == 1
    rows = _rows(tmp_path / "report" / "reliability.csv")
    assert {r["panel"] for r in rows} == {"before"} and sum(int(r["count"]) for r in rows) == 50
