"""The linearised evidence (attentive/models/linearised.py): the margin's first-order split over the words, which an
export's graph computes only when asked (attentive/onnx_format/on_demand.py), `explain` of an export gives a text too
long for occlusion, and `predict(top_words_by="evidence")` ranks its top words by."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.data.batching import collate
from attentive.models.linearised import linearised_evidence, margin_direction
from attentive.onnx_format.on_demand import EVIDENCE, EVIDENCE_WANTED
from attentive.onnx_format.write import export
from attentive.util.checks import ArgumentError

from ..helpers import ANSWERED_TEXTS, tiny_overrides


@pytest.fixture(scope="module")
def default_model(tiny_default_run):
    """The session's tiny default model (LAMA attention, an MLP head, an n-gram channel), loaded (read only)."""
    return attentive.load(tiny_default_run)


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
    exported = onnx_backend.load(export(default_model, tmp_path / "onnx"), int8=False)
    assert exported.config["has_evidence"] and EVIDENCE_WANTED in exported.graph_inputs
    found = exported.outputs(items, 128, (EVIDENCE,))[1][EVIDENCE]
    for row, values in enumerate(found):
        assert np.allclose(values, expected[row, :len(values)].numpy(), atol=1e-4)
    assert exported.outputs(items, 128, ("attention",))[1].keys() == {"attention"}
    feed = {"ids": np.array([[5, 6]]), "mask": np.array([[1, 1]]), EVIDENCE_WANTED: np.array(False)}
    assert exported.session.run([EVIDENCE], feed)[0].size == 0  # not computed


def test_explain_of_an_export_gives_the_linearised_evidence_and_occlusion_only_without_it(default_model, tmp_path):
    exported = onnx_backend.load(export(default_model, tmp_path / "onnx"), int8=False)
    texts = ["a gorgeous , witty film", "dull"]
    parts = [e.channel_evidence()["attention"] for e in exported.explain(texts)]
    assert [part["method"] for part in parts] == ["linearised", "linearised"]  # what predict ranks by
    assert np.allclose(parts[0]["evidence"], forward(default_model, texts[:1])[2][0].numpy(), atol=1e-4)
    exported.config["has_evidence"] = False  # as an export made before the linearised evidence existed
    before = [e.channel_evidence()["attention"] for e in exported.explain(texts)]
    assert [part["method"] for part in before] == ["occlusion", "occlusion"]
    assert parts[0]["margin"] == pytest.approx(before[0]["margin"])  # the same margin, split another way


def test_predict_names_the_words_of_most_evidence_on_both_backends(default_model, tmp_path, capsys):
    texts = ANSWERED_TEXTS * 4  # more than FEW_TEXTS: the call's words found at once, as one at a time below
    exported = onnx_backend.load(export(default_model, tmp_path / "onnx"), int8=False)
    by_pytorch = default_model.predict(texts, top_k=3, top_words_by="evidence")
    by_export = exported.predict(texts, top_k=3, top_words_by="evidence")
    for ours, theirs in zip(by_pytorch, by_export):
        assert [word for word, _ in ours.top_words] == [word for word, _ in theirs.top_words]
        assert np.allclose([value for _, value in ours.top_words], [value for _, value in theirs.top_words],
                           atol=1e-4)
    [alone] = default_model.predict(texts[2], top_k=3, top_words_by="evidence")
    assert [word for word, _ in alone.top_words] == [word for word, _ in by_pytorch[2].top_words]
    [explained] = default_model.explain(texts[2])  # each word's evidence: its tokens' summed
    evidence = forward(default_model, texts[2:3])[2][0].numpy()
    per_word = sorted((evidence[start:end].sum() for start, end in explained.token_spans), reverse=True)
    assert np.allclose([value for _, value in alone.top_words], [v for v in per_word[:3] if v > 0], atol=1e-5)
    assert [p.top_words for p in default_model.predict(texts, top_k=3)] == [p.top_words for p in by_pytorch]
    #   the default where the model has it
    attended = default_model.predict(texts[0], top_k=5, top_words_by="attention")[0].top_words
    assert sum(weight for _, weight in attended) <= 1 + 1e-6  # attention's shares
    assert attended != default_model.predict(texts[0], top_k=5)[0].top_words
    with pytest.raises(ArgumentError, match="top_words_by='gradient'"):
        default_model.predict(texts[0], top_words_by="gradient")
    assert main(["predict", str(tmp_path / "onnx"), "--fp32", "--top-k", "3", texts[2]]) == 0  # by evidence
    [line] = capsys.readouterr().out.splitlines()
    assert [word for word, _ in json.loads(line)["top_words"]] == [word for word, _ in by_export[2].top_words]
    assert main(["predict", str(tmp_path / "onnx"), "--top-words-by", "gradient", "a film"]) == 2
    assert "top_words_by='gradient'" in capsys.readouterr().err


def test_a_model_without_the_evidence_says_so_in_one_line(sst2_small, default_model, tmp_path):
    mean_pooled = attentive.train(sst2_small, "avg", overrides=tiny_overrides("avg") + ["train.epochs=1"],
                                  show_progress=False)
    with pytest.raises(ArgumentError, match="gives no linearised evidence"):
        mean_pooled.predict("a film", top_words_by="evidence")
    exported = onnx_backend.load(export(default_model, tmp_path / "onnx"), int8=False)
    exported.config["has_evidence"] = False  # as an export made before it existed
    with pytest.raises(ArgumentError, match="export again"):
        exported.predict("a film", top_words_by="evidence")


def test_the_int8_graph_stores_no_weight_twice_for_the_evidence(default_model, tmp_path):
    """The quantiser writes the head's first layer once as the forward pass reads it and once as the gradient does;
    the evidence's branch reads the first transposed (attentive/onnx_format/on_demand.py), and answers the same."""
    import onnx
    from onnx import numpy_helper

    folder = export(default_model, tmp_path / "onnx", int8=True)
    weights = [numpy_helper.to_array(init) for init in onnx.load(str(folder / "model.int8.onnx")).graph.initializer]
    matrices = [w for w in weights if w.ndim == 2 and w.size > 1]
    assert not any(a.shape == b.shape[::-1] and np.array_equal(a.T, b) for i, a in enumerate(matrices)
                   for b in matrices[i + 1:])
    quantised, full = onnx_backend.load(folder, int8=True), onnx_backend.load(folder, int8=False)
    items, _ = quantised.inputs.items(ANSWERED_TEXTS, None, [None] * len(ANSWERED_TEXTS), offsets=False)
    for ours, theirs in zip(quantised.outputs(items, 128, (EVIDENCE,))[1][EVIDENCE],
                            full.outputs(items, 128, (EVIDENCE,))[1][EVIDENCE]):
        assert np.abs(ours - theirs).max() < 0.05 * max(np.abs(theirs).max(), 1e-3) + 1e-3
