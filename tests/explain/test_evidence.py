"""Signed evidence: per whole word, how much it moved the margin of the predicted label over the
runner-up, from each channel. The n-gram channel's is exact (its word scores sum to its margin); the attention
channel's is its share of the linearised evidence the top words rank by (tests/explain/test_one_ranking.py) where the
model gives it; where it does not (`no_linearised`), exact where the logits split over the words (identity encoder,
linear head: Sun & Lu's weight × polarity, per head) and gradient × input otherwise, named in `method`; an export
without the linearised evidence gives it by occlusion. The JSON (`Explanation.as_dict`, the server's /explain
answer) and the HTML report carry `evidence` and `channels`."""
from __future__ import annotations

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.explain.html import explanation_html

from ..helpers import tiny_overrides

TEXTS = ["a gorgeous , witty and moving film", "the plot is thin and the acting dull", "an unapologetic mess"]
WORD_LEVEL = ["tokenizer.pieces=false", "tokenizer.prune_pieces=false", "tokenizer.keep_known=false",
              "embedder.vectors=random", "wide.buckets=4096"]
COMPACT = [*tiny_overrides("default"), *WORD_LEVEL, "train.epochs=1"]


@pytest.fixture(scope="module")
def compact(sst2_small):  # the default: identity encoder, LAMA attention, MLP head (hidden layer), n-gram channel
    return attentive.train(sst2_small, "default", overrides=COMPACT, show_progress=False)


@pytest.fixture(scope="module")
def compact_linear(sst2_small):  # the same with a linear head: the attention channel splits exactly
    return attentive.train(sst2_small, "default", overrides=[*COMPACT, "head.hidden=0"], show_progress=False)


@pytest.fixture(scope="module")
def bigru(sst2_small):  # `opinion`: biGRU + LAMA + MLP head + n-gram channel
    overrides = [*tiny_overrides("opinion"), *WORD_LEVEL, "train.epochs=1"]
    model = attentive.train(sst2_small, "opinion", overrides=overrides, show_progress=False)
    assert model.recipe.encoder.type == "bigru"
    return model


def _wide_margin_split(explanation) -> None:
    ngrams = explanation.channel_evidence()["ngrams"]
    assert ngrams["method"] == "exact" and len(ngrams["evidence"]) == len(explanation.words)
    assert abs(float(np.sum(ngrams["evidence"])) - ngrams["margin"]) < 1e-4


@pytest.mark.parametrize("name", ["compact", "compact_linear", "bigru"])
def test_the_ngram_channel_evidence_sums_to_its_margin(name, request):
    model = request.getfixturevalue(name)
    for explanation in model.explain(TEXTS):
        _wide_margin_split(explanation)
        assert explanation.channel_evidence()["ngrams"]["margin"] == pytest.approx(
            explanation.channel_margins()["ngrams"], abs=1e-6)


@pytest.fixture
def no_linearised(monkeypatch):
    """Explanations of a model as of one without the linearised evidence (pairs, aspects, other heads)."""
    from attentive.answer import inference

    monkeypatch.setattr(inference, "linearised_evidence", lambda network, out: None)


def test_identity_encoder_with_a_linear_head_splits_the_attention_margin_exactly(compact_linear, no_linearised):
    assert compact_linear.network.exact_evidence
    for explanation in compact_linear.explain(TEXTS):
        attention = explanation.channel_evidence()["attention"]
        assert attention["method"] == "exact"
        assert attention["margin"] == pytest.approx(explanation.channel_margins()["attention"], abs=1e-4)
        assert abs(float(np.sum(attention["evidence"])) - attention["margin"]) < 1e-4
        total = sum(c["margin"] for c in explanation.channel_evidence().values())
        assert abs(float(np.sum(explanation.evidence)) - total) < 1e-4  # the channels' evidence summed per word


def test_one_head_linear_evidence_is_sun_and_lu_weight_times_polarity(sst2_small, no_linearised):
    model = attentive.train(sst2_small, "sunlu", overrides=["embedder.vectors=random", "embedder.dim=16",
                                                            "train.epochs=1", "tokenizer.min_frequency=2"],
                            show_progress=False)
    [explanation] = model.explain(TEXTS[:1])
    first, second = explanation.ranked()
    polarity = explanation.polarity[:, first] - explanation.polarity[:, second]
    expected = explanation.attention[0] * polarity
    attention = explanation.channel_evidence()["attention"]
    assert attention["method"] == "exact" and list(explanation.channel_evidence()) == ["attention"]
    np.testing.assert_allclose(attention["evidence"], expected, atol=1e-5)
    assert abs(float(np.sum(attention["evidence"])) - attention["margin"]) < 1e-4


@pytest.mark.parametrize("name", ["compact", "bigru"])
def test_mlp_heads_and_bigru_encoders_get_gradient_times_input(name, request, no_linearised):
    model = request.getfixturevalue(name)
    assert not model.network.exact_evidence
    [explanation] = model.explain(TEXTS[:1])
    attention = explanation.channel_evidence()["attention"]
    assert attention["method"] == "gradient_x_input"
    assert len(attention["evidence"]) == len(explanation.words) and np.all(np.isfinite(attention["evidence"]))
    assert np.any(attention["evidence"] != 0)
    assert attention["margin"] == pytest.approx(explanation.channel_margins()["attention"], abs=1e-4)


def test_json_and_html_carry_evidence_and_channels(compact):
    [explanation] = compact.explain(TEXTS[:1])
    answer = explanation.as_dict(top_k=2)
    assert len(answer["evidence"]) == len(answer["words"]) and len(answer["top_words"]) == 2
    assert set(answer["channels"]) == {"attention", "ngrams"}
    assert answer["channels"]["attention"]["method"] == "linearised"  # what the top words rank by
    assert answer["channels"]["ngrams"]["method"] == "exact"
    np.testing.assert_allclose(answer["evidence"], np.add(answer["channels"]["attention"]["evidence"],
                                                          answer["channels"]["ngrams"]["evidence"]), atol=1e-4)
    page = explanation_html([explanation], faithfulness="on dev, removing ...")
    assert "rgba(33,102,172," in page or "rgba(214,96,77," in page  # the diverging scale
    assert "margin over the runner-up, by channel: attention" in page and "on dev, removing ..." in page
    assert "<details><summary>each of the 3 heads" in page


def test_the_exported_runtime_gives_evidence_by_occlusion(compact, tmp_path):
    """An export without the linearised evidence (made before it existed) gives in its explain (and the server's
    /explain of it) each word's evidence by occlusion: the margin of the label it ranks first over the runner-up,
    less that margin with the word left out (attentive/answer/occlusion.py)."""
    from fastapi.testclient import TestClient

    from attentive.answer.config_entries import temperature_of
    from attentive.answer.occlusion import OCCLUSION
    from attentive.onnx_format.write import export
    from attentive.serving.server import create_app
    from attentive.text.encoding import Item

    export(compact, tmp_path / "exported")
    runtime = onnx_backend.load(tmp_path / "exported")
    runtime.config["has_evidence"] = False  # as an export made before the linearised evidence existed
    temperature = temperature_of(runtime.config)
    for text, explanation in zip(TEXTS, runtime.explain(TEXTS)):
        answer = explanation.as_dict()
        assert answer["channels"]["attention"]["method"] == OCCLUSION
        assert len(answer["evidence"]) == len(answer["words"]) == len(text.split())  # word-level: a token a word
        [item], _ = runtime.inputs.items([text], None, [None], offsets=False)
        full, _ = runtime.run([item], attention_wanted=False)
        first, second = np.argsort(-full[0], kind="stable")[:2]
        for position, evidence in enumerate(answer["evidence"]):
            left_out, _ = runtime.run([Item(item.ids[:position] + item.ids[position + 1:])], attention_wanted=False)
            drop = temperature * ((np.log(full[0, first]) - np.log(full[0, second]))
                                  - (np.log(left_out[0, first]) - np.log(left_out[0, second])))  # in logits
            assert evidence == pytest.approx(drop, abs=1e-3)
    with TestClient(create_app(runtime, window_ms=0)) as client:
        served = client.post("/explain", json={"texts": [TEXTS[0]]}).json()
    assert served[0]["evidence"] is not None and len(served[0]["evidence"]) == len(served[0]["words"])
