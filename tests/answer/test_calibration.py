"""Temperature scaling: fitted on dev after training, kept in config.json, used by every answer path (PyTorch, the
ONNX export and so the runtime and the server); a folder saved without it answers at T = 1."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import attentive
import attentive.onnx_format.write
from attentive.answer import onnx_backend
from attentive.answer.inference import infer
from attentive.answer.metrics import expected_calibration_error, negative_log_likelihood
from attentive.errors import AttentiveError
from attentive.training.calibration import FEW_WRONG, SMALL_DEV, fit_temperature, small_dev_warning

from ..helpers import copy_of_tiny_run

FIXTURE = Path(__file__).parents[1] / "fixtures" / "model-format-1"


def _softmax(logits, temperature=1.0):
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    exp = np.exp(scaled - scaled.max(1, keepdims=True))
    return exp / exp.sum(1, keepdims=True)


def _logits(model, texts):
    """The network's logits for `texts`, encoded as the answer path encodes them (before any temperature)."""
    items, _ = model.inputs.items(*model.inputs.expand(texts, None, None), offsets=False)
    return infer(model.network, items, device=model.device).logits


def test_an_overconfident_model_gets_a_temperature_above_1_that_lowers_nll_and_ece():
    rng = np.random.default_rng(0)
    gold = rng.integers(3, size=400)
    logits = rng.normal(size=(400, 3))
    logits[np.arange(400), gold] += 1.0  # right about 60% of the time ...
    logits *= 8  # ... and nearly certain every time
    found = fit_temperature(logits, gold)
    assert found["temperature"] > 2
    assert found["dev_nll_after"] < found["dev_nll_before"]
    assert found["dev_ece_after"] < found["dev_ece_before"]
    assert found["dev_nll_after"] == pytest.approx(negative_log_likelihood(logits, gold, found["temperature"]))
    assert (_softmax(logits, found["temperature"]).argmax(1) == logits.argmax(1)).all()


@pytest.mark.parametrize("seed", range(5))
def test_the_fitted_temperature_never_raises_the_nll(seed):
    rng = np.random.default_rng(seed)
    logits, gold = rng.normal(scale=rng.uniform(0.1, 5), size=(50, 4)), rng.integers(4, size=50)
    found = fit_temperature(logits, gold)
    assert found["temperature"] > 0
    assert found["dev_nll_after"] <= found["dev_nll_before"] + 1e-12


def _dev(texts: int, wrong: int, scale: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two-class logits for `texts` dev texts, `wrong` of them answered wrong, with margins of about `scale`."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(2, size=texts)
    margins = scale * rng.uniform(0.2, 1.0, size=texts)
    margins[rng.choice(texts, size=wrong, replace=False)] *= -1
    logits = np.zeros((texts, 2))
    logits[np.arange(texts), gold] = margins
    return logits, gold


@pytest.mark.parametrize("texts", [30, 1000])
def test_a_dev_answered_all_right_leaves_the_fit_off(texts):
    logits, gold = _dev(texts, 0, scale=3.0)  # perfectly separated: the NLL falls without bound as T -> 0
    found = fit_temperature(logits, gold)
    assert found["temperature"] == 1.0 and found["rule"] == "left off" and "lowest" not in found
    assert (found["dev_texts"], found["dev_wrong"]) == (texts, 0)
    assert found["dev_nll_after"] == found["dev_nll_before"] and "all answered right" in found["note"]
    assert _softmax(logits, found["temperature"]).max() < 0.999  # the network's own answers, not p = 1.000


@pytest.mark.parametrize("texts, wrong", [(30, 3), (SMALL_DEV - 1, 40), (1000, FEW_WRONG - 1)])
def test_a_small_dev_or_few_errors_never_sharpen(texts, wrong):
    logits, gold = _dev(texts, wrong, scale=1.0)  # underconfident: the unbounded fit would sharpen (T < 1)
    unbounded = min(np.exp(np.linspace(np.log(0.01), 0, 400)),
                    key=lambda t: negative_log_likelihood(logits, gold, t))
    assert unbounded < 0.9
    found = fit_temperature(logits, gold)
    assert found["temperature"] == 1.0 and found["rule"] == "bounded" and found["lowest"] == 1.0
    assert "never below 1" in found["note"] and f"{texts} texts, {wrong} answered wrong" in found["note"]


def test_a_small_overconfident_dev_is_still_softened():
    logits, gold = _dev(60, 15, scale=12.0)  # a quarter wrong, nearly certain every time
    found = fit_temperature(logits, gold)
    assert found["rule"] == "bounded" and found["temperature"] > 2
    assert found["dev_nll_after"] < found["dev_nll_before"]


def test_a_large_dev_with_errors_is_fitted_over_the_whole_range():
    logits, gold = _dev(1000, 150, scale=1.0)  # underconfident, and enough of everything to sharpen on
    found = fit_temperature(logits, gold)
    assert found["rule"] == "fitted" and found["lowest"] == 0.01 and found["temperature"] < 0.9
    grid = np.exp(np.linspace(np.log(0.01), np.log(100), 4001))
    best = grid[np.argmin([negative_log_likelihood(logits, gold, t) for t in grid])]
    assert found["temperature"] == pytest.approx(best, rel=0.01)
    assert found["dev_nll_after"] < found["dev_nll_before"]


def test_the_small_dev_warning_names_the_numbers():
    line = small_dev_warning(30)
    assert line.startswith("dev has 30 texts: one text is 3.3 points of dev accuracy")
    assert "9.1 points" in line  # sqrt(0.25 / 30)
    assert "attentive cv" in line and "--dev FILE" in line and "\n" not in line
    assert small_dev_warning(SMALL_DEV) is None and small_dev_warning(0) is None
    assert "a tuning trial" in small_dev_warning(50, "a tuning trial")


def test_ece_of_15_bins_by_hand():
    probabilities = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.55, 0.45]])
    gold = [0, 1, 1, 1]
    # bins (0.8667, 0.9333]: {0.9, right}; (0.7333, 0.8]: {0.8, wrong}; (0.6667, 0.7333]: {0.7, right};
    # (0.5333, 0.6]: {0.55, wrong}
    expected = (abs(1 - 0.9) + abs(0 - 0.8) + abs(1 - 0.7) + abs(0 - 0.55)) / 4
    assert expected_calibration_error(probabilities, gold) == pytest.approx(expected)


@pytest.fixture(scope="module")
def trained(tiny_run, tmp_path_factory):
    """The session's tiny model (calibrated on dev as every run is), loaded, and its folder."""
    out = copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("calibrated") / "run")
    return attentive.load(out), out


def test_training_fits_a_temperature_on_dev_that_does_not_raise_its_nll(trained, sst2_small):
    model, out = trained
    calibration = json.loads((out / "config.json").read_text())["calibration"]
    assert {"temperature", "dev_nll_before", "dev_nll_after", "dev_ece_before", "dev_ece_after"} <= set(calibration)
    assert calibration["dev_texts"] == len(sst2_small.splits["dev"]) and calibration["rule"] in ("fitted", "bounded")
    assert calibration["temperature"] > 0 and calibration["dev_nll_after"] <= calibration["dev_nll_before"]
    dev = sst2_small.splits["dev"]
    looked = infer(model.network, model.encode_examples(dev))
    gold = [sst2_small.labels.index(ex.label) for ex in dev]
    assert negative_log_likelihood(looked.logits, gold) == pytest.approx(calibration["dev_nll_before"], rel=1e-5)
    assert negative_log_likelihood(looked.logits, gold, calibration["temperature"]) == pytest.approx(
        calibration["dev_nll_after"], rel=1e-5)


def test_probabilities_are_at_the_temperature_and_no_predicted_label_changes(trained, sst2_small):
    model, _ = trained
    texts = [ex.text for ex in sst2_small.splits["test"][:60]]
    logits = _logits(model, texts)
    temperature = model.temperature
    assert temperature == model.config["calibration"]["temperature"]
    probabilities = model.predict_proba(texts)
    np.testing.assert_allclose(probabilities, _softmax(logits, temperature), atol=1e-5)
    assert [p.label for p in model.predict(texts)] == [model.labels[i] for i in logits.argmax(1)]
    explained = model.explain(texts[:3])
    np.testing.assert_allclose([e.prediction.probabilities[model.labels[0]] for e in explained],
                               probabilities[:3, 0], atol=1e-6)


def test_evaluation_reports_ece_beside_accuracy(trained, sst2_small):
    model, _ = trained
    metrics = model.evaluate(sst2_small, "dev")
    assert {"accuracy", "macro_f1", "ece", "temperature"} <= set(metrics)
    assert metrics["ece"] == pytest.approx(model.config["calibration"]["dev_ece_after"], abs=1e-5)


def test_the_temperature_survives_save_load_and_export(trained, sst2_small, tmp_path):
    model, out = trained
    folder = tmp_path / "hot"
    shutil.copytree(out, folder)
    config = json.loads((folder / "config.json").read_text())
    config["calibration"]["temperature"] = 3.0  # far from 1, so that a path ignoring it would differ
    (folder / "config.json").write_text(json.dumps(config))
    loaded = attentive.load(folder)
    assert loaded.temperature == 3.0
    texts = [ex.text for ex in sst2_small.splits["test"][:40]]
    logits = _logits(loaded, texts)
    calibrated = loaded.predict_proba(texts)
    np.testing.assert_allclose(calibrated, _softmax(logits, 3.0), atol=1e-5)
    assert np.abs(calibrated - _softmax(logits)).max() > 1e-3
    exported = attentive.onnx_format.write.export(loaded, tmp_path / "onnx")
    runtime = onnx_backend.load(exported)
    np.testing.assert_allclose(runtime.predict_proba(texts), calibrated, atol=1e-5)
    assert [p.label for p in runtime.predict(texts)] == [p.label for p in loaded.predict(texts)]
    assert json.loads((exported / "config.json").read_text())["calibration"]["temperature"] == 3.0


def test_a_folder_without_calibration_answers_at_temperature_1(trained, sst2_small, tmp_path):
    model, out = trained
    folder = tmp_path / "old"
    shutil.copytree(out, folder)
    config = json.loads((folder / "config.json").read_text())
    del config["calibration"]
    (folder / "config.json").write_text(json.dumps(config))
    loaded = attentive.load(folder)
    assert loaded.temperature == 1.0
    texts = [ex.text for ex in sst2_small.splits["test"][:20]]
    logits = _logits(loaded, texts)
    np.testing.assert_allclose(loaded.predict_proba(texts), _softmax(logits), atol=1e-5)
    runtime = onnx_backend.load(attentive.onnx_format.write.export(loaded, tmp_path / "onnx"))
    np.testing.assert_allclose(runtime.predict_proba(texts), _softmax(logits), atol=1e-5)
    assert attentive.load(FIXTURE).temperature == 1.0  # saved in the first format, long before calibration


def test_a_damaged_temperature_is_one_line_at_load(trained, tmp_path):
    _, out = trained
    folder = tmp_path / "bad"
    shutil.copytree(out, folder)
    config = json.loads((folder / "config.json").read_text())
    config["calibration"]["temperature"] = -1
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(AttentiveError) as caught:
        attentive.load(folder)
    assert "calibration.temperature" in str(caught.value) and "\n" not in str(caught.value)
