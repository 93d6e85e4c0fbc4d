"""Folding (attentive/models/folding.py): a recurrence-free LAMA model with its word vectors and keys as tables
answers what the network answers, the export writes the folded graph for such a model, and nothing else is
folded."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import attentive
from attentive.answer import onnx_backend
from attentive.models.folding import fold
from attentive.onnx_format.write import export

from ..helpers import ANSWERED_TEXTS, assert_same_answers, tiny_overrides

STUDENT = [*tiny_overrides("default"), "tokenizer.prune_pieces=false", "tokenizer.pieces=false",
           "tokenizer.keep_known=false", "wide.buckets=4096", "train.epochs=2"]


@pytest.fixture(scope="module")
def student(sst2_small):
    return attentive.train(sst2_small, "default", overrides=STUDENT, show_progress=False)


def test_the_folded_network_answers_what_the_network_answers(student):
    network = student.network.eval()
    folded = fold(network)
    assert folded is not None
    assert network.wide.bigrams.weight.abs().sum() > 0  # the n-gram channel trained, so it is compared too
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [11, 12, 0, 0, 0, 0], [13, 0, 0, 0, 0, 0]])
    mask = ids != 0
    with torch.no_grad():
        theirs, ours = network(ids, mask), folded(ids, mask)
    assert torch.allclose(theirs.logits, ours.logits, atol=1e-5)
    assert torch.allclose(theirs.attention, ours.attention, atol=1e-6)
    assert (ours.attention[~mask.unsqueeze(1).expand_as(ours.attention)] == 0).all()


def test_the_export_of_a_student_is_folded_and_answers_the_same(student, tmp_path):
    folder = export(student, tmp_path / "onnx")
    assert json.loads((folder / "config.json").read_text())["folded"] is True
    assert_same_answers(student, onnx_backend.load(folder), ANSWERED_TEXTS * 3)


@pytest.mark.parametrize("recipe", ["opinion", "avg", "sunlu"])
def test_a_model_with_an_encoder_or_another_pooler_is_not_folded(recipe):
    from attentive.models.classifier import build_model
    from attentive.recipes.loader import load_recipe

    network = build_model(load_recipe(recipe, tiny_overrides(recipe)), vocab_size=50, classes=2)
    assert fold(network) is None


def test_an_int8_folded_export_agrees_with_the_network(student, sst2_small, tmp_path):
    texts = [example.text for example in sst2_small.splits["dev"]]
    exported = onnx_backend.load(export(student, tmp_path / "onnx", int8=True), int8=True)
    ours, theirs = exported.predict_proba(texts), student.predict_proba(texts)
    assert np.abs(ours - theirs).max() < 0.05 and (ours.argmax(1) == theirs.argmax(1)).mean() > 0.97
