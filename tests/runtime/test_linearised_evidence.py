"""The linearised evidence (attentive/models/linearised.py): the margin's first-order split over the words, which an
export's graph computes only when asked (attentive/runtime/on_demand.py) and `explain` of an export gives a text too
long for occlusion."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import attentive
from attentive import runtime
from attentive.data.batching import collate
from attentive.export import export
from attentive.models.linearised import linearised_evidence, margin_direction
from attentive.runtime import occlusion
from attentive.runtime.on_demand import EVIDENCE, EVIDENCE_WANTED

from ..helpers import ANSWERED_TEXTS, tiny_overrides


@pytest.fixture(scope="module")
def default_model(sst2_small):
    return attentive.train(sst2_small, "default", overrides=tiny_overrides("default") + ["train.epochs=1"],
                           show_progress=False)


def forward(model, texts):
    """The texts' items, the network's Output for them and their linearised evidence (B x T)."""
    items, _ = model.inputs.items(texts, None, [None] * len(texts), offsets=False)
    model.network.eval()
    with torch.no_grad():
        out = model.network(**collate(items))
        return items, out, linearised_evidence(model.network, out)


def test_the_evidence_sums_to_the_first_order_margin_and_the_n_gram_channels_share(default_model):
    """Σ_j e_j = g·m + (n-gram logit of the first label − of the runner-up), g the margin's gradient at the pooled
    vector m as autograd computes it: the closed form of `MLPHead.margin_gradient` and the split over the words."""
    network = default_model.network
    _, out, evidence = forward(default_model, ANSWERED_TEXTS)
    pooled = (out.attention @ out.states).flatten(1).requires_grad_()
    direction = margin_direction(out.logits)
    with torch.enable_grad():
        (gradient,) = torch.autograd.grad((network.head(pooled) * direction).sum(), pooled)
    expected = (gradient * pooled).sum(1) + (out.wide_logits * direction).sum(1)
    assert torch.allclose(evidence.sum(1), expected.detach(), atol=1e-4)
    assert out.wide_logits.abs().sum() > 0  # the channel took part


def test_an_export_computes_the_evidence_only_when_asked_and_as_pytorch_does(default_model, tmp_path):
    items, _, expected = forward(default_model, ANSWERED_TEXTS)
    exported = runtime.load(export(default_model, tmp_path / "onnx"), int8=False)
    assert exported.config["has_evidence"] and EVIDENCE_WANTED in exported.graph_inputs
    found = exported.outputs(items, 128, (EVIDENCE,))[1][EVIDENCE]
    for row, values in enumerate(found):
        assert np.allclose(values, expected[row, :len(values)].numpy(), atol=1e-4)
    assert exported.outputs(items, 128, ("attention",))[1].keys() == {"attention"}
    feed = {"ids": np.array([[5, 6]]), "mask": np.array([[1, 1]]), EVIDENCE_WANTED: np.array(False)}
    assert exported.session.run([EVIDENCE], feed)[0].size == 0  # not computed


def test_explain_of_an_export_gives_a_text_too_long_for_occlusion_the_linearised_evidence(default_model, tmp_path,
                                                                                          monkeypatch):
    exported = runtime.load(export(default_model, tmp_path / "onnx"), int8=False)
    texts = ["a gorgeous , witty film", "dull"]
    before = [e.channel_evidence()["attention"] for e in exported.explain(texts)]
    assert [part["method"] for part in before] == ["occlusion", "occlusion"]
    monkeypatch.setattr(occlusion, "MAX_TOKENS", 3)  # the first text is now too long for occlusion
    after = exported.explain(texts)
    parts = [e.channel_evidence()["attention"] for e in after]
    assert [part["method"] for part in parts] == ["linearised", "occlusion"]
    assert np.allclose(parts[0]["evidence"], forward(default_model, texts[:1])[2][0].numpy(), atol=1e-4)
    assert parts[0]["margin"] == pytest.approx(before[0]["margin"])  # the same margin, split another way
    assert np.array_equal(parts[1]["evidence"], before[1]["evidence"])
