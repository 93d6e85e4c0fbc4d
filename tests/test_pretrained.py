"""The MiniLM recipes: the pretrained encoder trains, saves and loads without the package's files."""
from __future__ import annotations

import json

import attentive
from attentive.data.example import Dataset


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
    assert [p.probabilities for p in model.predict(texts)] == [p.probabilities for p in attentive.load(tmp_path).predict(texts)]
    [explanation] = model.explain(["Gorgeous film"])
    assert explanation.attention is None and "Gorgeous" in explanation.words
