"""How far an answer moves with the texts batched beside it: the int8 graph scales each matrix product's input by
the range of the whole batch, so a text's probabilities may move a little (docs/deploy.md states the bound); the fp32
graph answers a text the same in any batch."""
from __future__ import annotations

import numpy as np
import pytest

import attentive
from attentive.answer import onnx_backend

INT8_BOUND = 0.03  # docs/deploy.md: the largest move of a probability, alone against in a batch of 128
FP32_BOUND = 1e-6


@pytest.fixture(scope="module")
def exported(tiny_default_run, tmp_path_factory):
    return attentive.load(tiny_default_run).export(tmp_path_factory.mktemp("batch-mates") / "onnx", int8=True)


@pytest.mark.parametrize("int8, bound", [(True, INT8_BOUND), (False, FP32_BOUND)])
def test_an_answer_moves_with_its_batch_mates_within_the_stated_bound(exported, sst2_small, int8, bound):
    model = onnx_backend.load(exported, int8=int8)
    texts = [ex.text for ex in sst2_small.splits["test"][:256]]
    alone = np.vstack([model.predict_proba([text]) for text in texts])
    together = model.predict_proba(texts, batch_size=128)
    assert np.abs(alone - together).max() <= bound
