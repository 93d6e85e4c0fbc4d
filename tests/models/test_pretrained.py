"""The MiniLM recipes: the pretrained encoder trains, saves and loads without the package's files."""
from __future__ import annotations

import json

import pytest

import attentive
from attentive.data.example import Dataset

pytestmark = pytest.mark.slow  # fine-tunes the pretrained MiniLM encoder


def test_frozen_minilm_learns_saves_and_loads_from_its_own_folder(sst2_small, tmp_path):
    data = Dataset("tiny", {"train": sst2_small.splits["train"][:96], "dev": sst2_small.splits["dev"][:32],
                            "test": []}, sst2_small.labels)
    model = attentive.train(data, "minilm_frozen", tmp_path, overrides=["train.epochs=2", "tokenizer.max_length=32"],
                            show_progress=False)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["recipe"]["encoder"]["config"]["hidden_size"] == 384  # the architecture travels with the model
    trainable = [name for name, p in model.network.named_parameters() if p.requires_grad]
    assert trainable and all(name.startswith("head.") for name in trainable)  # frozen: only the head learns
    texts = ["a gorgeous , witty film", "a dull , lifeless mess"]
    assert ([p.probabilities for p in model.predict(texts)]
            == [p.probabilities for p in attentive.load(tmp_path).predict(texts)])
    [explanation] = model.explain(["Gorgeous film"])
    assert explanation.attention is None and "Gorgeous" in explanation.words


def test_a_frozen_encoder_pools_each_distinct_text_once_while_training(monkeypatch):
    """attentive.training.frozen.FrozenPooling: the same logits as the model itself, the encoder run only for unseen
    texts, the cache on the training-time wrapper and never on the model; a model that learns below its head (LAMA)
    is not frozen below it."""
    import torch

    from attentive.models.classifier import build_model
    from attentive.models.pretrained import pretrained_config
    from attentive.recipes.loader import load_recipe
    from attentive.training.frozen import FrozenPooling

    from ..helpers import tiny_overrides

    recipe = load_recipe("minilm_frozen").resolved(encoder_config=pretrained_config())
    network = build_model(recipe, vocab_size=30522, classes=2).eval()
    assert network.frozen_below_head
    torch.manual_seed(0)
    ids = torch.randint(1000, 2000, (4, 9))
    ids[2] = ids[0]  # the same text twice
    mask = torch.ones(4, 9, dtype=torch.bool)
    mask[1, 6:] = mask[3, 4:] = False
    expected = network(ids, mask).logits
    calls = []
    forward = network.encoder.forward
    monkeypatch.setattr(network.encoder, "forward", lambda *args: calls.append(len(args[0])) or forward(*args))
    learner = FrozenPooling(network)
    first, again = learner(ids, mask).logits, learner(ids, mask).logits
    assert len(learner.pooled) == 3 and not hasattr(network, "_pooled")
    assert torch.allclose(first, expected, atol=1e-5) and torch.equal(first, again)
    assert calls == [3]  # one encoder pass, over the three distinct texts

    lama = build_model(load_recipe("lama", tiny_overrides("lama")), vocab_size=50, classes=2).eval()
    assert not lama.frozen_below_head and lama(ids % 50, mask).attention is not None
