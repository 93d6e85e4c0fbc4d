"""The one answer path (attentive/answer/answerer.py): the PyTorch model and its exported graph answer predict,
predict_proba and explain through the same `Answerer`, so they give the same labels, probabilities (within 1e-5) and
attention, for no texts and for a single string too; each text is checked once on its way to the network (texts
`Expanded` by the caller are not checked again); and each call asks the PyTorch backend for no more than it needs."""
from __future__ import annotations

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.answer import torch_backend as model_module
from attentive.answer.answerer import Answerer, Need
from attentive.answer.inputs import Expanded
from attentive.onnx_format.write import export
from attentive.util.checks import ArgumentError

from ..helpers import counted

TEXTS = ["a gorgeous , witty film", "dull", "zzzz qqqq", "the plot is a mess but the actors shine"]


@pytest.fixture(scope="module")
def backends(tiny_run, tmp_path_factory):
    """(PyTorch model, its exported runtime model): the session's tiny lama_ctx model."""
    model = attentive.load(tiny_run)
    return model, onnx_backend.load(export(model, tmp_path_factory.mktemp("answer-path") / "onnx"))


def same_predictions(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        assert mine.label == other.label
        assert all(abs(mine.probabilities[label] - other.probabilities[label]) < 1e-5 for label in mine.probabilities)
        assert [word for word, _ in mine.top_words] == [word for word, _ in other.top_words]
        assert np.allclose([w for _, w in mine.top_words], [w for _, w in other.top_words], atol=1e-5)


@pytest.mark.parametrize("top_k", [0, 1, 3, 50])
def test_predict_answers_bit_for_bit_what_the_explanations_hold(backends, top_k):
    """predict builds its answers without the Explanations (inputs.predictions: a few texts one at a time, more at
    once); they are the Explanations' own."""
    few = TEXTS + ["   x", "?!", "the the the film film", "a " * 400, "naïve but warm"]
    for texts in (few, few * 3 + [text.upper() for text in few]):
        for model in backends:
            for batch_size in (128, 2):  # batches pad differently, which moves the last bits of the numbers
                explained = [e.prediction
                             for e in model._answers(texts, None, top_k, batch_size, None, Need.ATTENTION)]
                assert model.predict(texts, top_k=top_k, batch_size=batch_size) == explained


@pytest.mark.parametrize("texts", [TEXTS, [], "a gorgeous , witty film"], ids=["texts", "none", "one string"])
def test_both_backends_answer_the_same_through_the_one_path(backends, texts):
    model, exported = backends
    assert isinstance(model, Answerer) and isinstance(exported, Answerer)
    expected = 1 if isinstance(texts, str) else len(texts)
    torch_probabilities, onnx_probabilities = model.predict_proba(texts), exported.predict_proba(texts)
    assert torch_probabilities.shape == onnx_probabilities.shape == (expected, len(model.labels))
    assert torch_probabilities.dtype == onnx_probabilities.dtype == np.float32
    if expected:
        assert np.abs(torch_probabilities - onnx_probabilities).max() < 1e-5
    same_predictions(model.predict(texts, top_k=3), exported.predict(texts, top_k=3))
    same_predictions(model.predict(texts, threshold=0.9), exported.predict(texts, threshold=0.9))
    ours, theirs = model.explain(texts), exported.explain(texts)
    same_predictions([e.prediction for e in ours], [e.prediction for e in theirs])
    for mine, other in zip(ours, theirs):
        assert mine.words == other.words and mine.token_spans == other.token_spans
        assert np.abs(mine.attention - other.attention).max() < 1e-5
        assert other.polarity is None  # the graph gives no per-word polarity; its evidence is the linearised one
        assert other.attribution["method"] == "linearised" and len(other.evidence) == len(other.words)
        assert np.abs(mine.evidence - other.evidence).max() < 1e-4  # what the top words rank by, on both


def test_each_text_is_checked_once_on_its_way_to_the_network(backends, monkeypatch):
    checked = counted(monkeypatch, "text_problem")
    for answerer in backends:
        for call in (answerer.predict, answerer.predict_proba, answerer.explain):
            checked.clear()
            call(["a text"])
            assert checked == ["a text"], call
        checked.clear()
        answerer.predict(["one text", "another"])
        assert checked == ["one text", "another"]
        checked.clear()
        expanded = Expanded(*answerer.inputs.expand(["one text", "another"]))
        for call in (answerer.predict, answerer.predict_proba, answerer.explain):
            call(expanded)
        assert checked == ["one text", "another"]  # checked by expand, and not again
        same_predictions(answerer.predict(expanded), answerer.predict(["one text", "another"]))
        with pytest.raises(ArgumentError, match="their pairs and aspects are in them"):
            answerer.predict(expanded, ["a second text", "another"])


def test_predict_asks_pytorch_for_the_attention_alone(backends, monkeypatch):
    model, _ = backends
    asked = []
    infer = model_module.infer

    def spy(network, items, batch_size, device, need, temperature):
        asked.append(need)
        return infer(network, items, batch_size, device, need, temperature)

    monkeypatch.setattr(model_module, "infer", spy)
    [prediction] = model.predict("a gorgeous , witty film")
    assert prediction.top_words  # the attention was there for the top words
    model.predict_proba(["a film"])
    model.explain(["a film"], with_polarity=False)
    model.explain(["a film"])
    assert asked == [Need.ATTENTION, Need.PROBABILITIES, Need.DETAILS, Need.EVIDENCE]
    looked = infer(model.network, model.inputs.items(["a film"], None, [None])[0], need=Need.ATTENTION).looked
    assert looked[0].attention is not None and looked[0].scores is None and looked[0].polarity is None
