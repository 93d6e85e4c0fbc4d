"""Answers as JSON give each probability to 6 significant digits (not the 17 a float prints), evidence and attention
rounded too, wherever the JSON is written: predict's lines, /predict and /explain (all through `Prediction.as_dict`
and `Explanation.as_dict`). The Python objects keep them whole."""
from __future__ import annotations

import json

import numpy as np

from attentive.answer.types import Explanation, Prediction, answer_probability
from attentive.serving.server import _explanation_json, _prediction_json

RAW = {"negative": 0.12345678901234567, "neutral": 3.1415926535897932e-07, "positive": 0.8765428966146106}


def digits(value: float) -> int:
    """Significant digits of `value` as JSON writes it."""
    mantissa = json.dumps(value).split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return len(mantissa)


def test_answer_probabilities_have_six_significant_digits():
    answer = Prediction("positive", dict(RAW), [("fine", 0.123456789)]).as_dict()
    assert answer["probabilities"] == {"negative": 0.123457, "neutral": 3.14159e-07, "positive": 0.876543}
    assert all(digits(p) <= 6 for p in answer["probabilities"].values())
    assert abs(sum(answer["probabilities"].values()) - 1) < 1e-5  # still sums to 1, as they did
    assert answer["probabilities"]["neutral"] > 0  # a small probability keeps its size
    assert answer["top_words"] == [["fine", 0.1235]]
    assert answer_probability(1.0) == 1.0 and answer_probability(0.0) == 0.0
    assert answer_probability(np.float32(0.5000001)) == 0.5


def test_predict_and_explain_json_are_rounded_the_python_answer_is_not():
    prediction = Prediction("positive", dict(RAW), [("fine", 0.5)])
    line = json.dumps(_prediction_json(prediction, 5))
    assert "0.12345678" not in line and "0.123457" in line
    assert prediction.probabilities == RAW  # the object itself keeps every digit
    explanation = Explanation(["fine", "film"], np.array([[0.333333333333, 0.666666666667]]), prediction,
                              linear_evidence=np.array([1.23456789012, -0.00000123456]))
    explained = _explanation_json(explanation, 5)
    assert explained["probabilities"]["positive"] == 0.876543
    assert explained["evidence"] == [1.23457, -0.0] and explained["summed"] == [0.33333, 0.66667]
    assert all(digits(v) <= 6 for v in explained["attention"][0])
