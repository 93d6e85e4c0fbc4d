"""Exported models without PyTorch: `attentive.runtime.load(folder)` reads what `attentive export` wrote and offers
the same `predict`, `predict_proba` and `explain` as `attentive.load`, with onnxruntime, tokenizers and numpy only
(install `attentive[runtime]`). Inputs are checked and encoded by the code the PyTorch model uses
(attentive/inputs.py), so both paths answer the same texts the same way.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .answers import Explanation, Prediction
from .call_checks import check_call, check_folder
from .errors import AttentiveError
from .inputs import Inputs, apply_threshold, explanation, thresholds_of
from .text.encoding import Item, batch_order, pad_numpy

FORMAT = "attentive-onnx-1"


class RuntimeModel:
    """An exported model run by ONNX Runtime. `int8` picks the quantised graph (exported with --int8); `threads`
    sets ONNX Runtime's intra-op threads (None: its default)."""

    def __init__(self, folder: str | Path, int8: bool = False, threads: int | None = None):
        from .exported_folder import read_exported

        check_folder(folder)
        self.folder = Path(folder)
        self.config, self.session, self.tokenizer = read_exported(self.folder, FORMAT, int8, threads)
        self.graph_inputs = {node.name for node in self.session.get_inputs()}  # an unused input is not in the graph
        self.labels: list[str] = self.config["labels"]
        self.thresholds = thresholds_of(self.config, self.folder / "config.json")  # multi-label models; else None

    @property
    def multi_label(self) -> bool:
        """Whether the graph answers one sigmoid per label, each label given at or above its threshold."""
        return self.thresholds is not None

    @property
    def inputs(self) -> Inputs:
        c = self.config
        return Inputs(self.tokenizer, c["is_pair"], c["uses_aspect"], c["aspects"], c["aspect_type"],
                      c["max_length"], c["special_tokens"])

    @property
    def aspects(self) -> list[str]:
        return self.config["aspects"]

    @property
    def is_pair(self) -> bool:
        return self.config["is_pair"]

    @property
    def uses_aspect(self) -> bool:
        return self.config["uses_aspect"]

    def run(self, items: list[Item], batch_size: int = 128,
            attention_wanted: bool = True) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """Probabilities (N x classes) and each item's attention (heads x its tokens; None without attention, or when
        not `attention_wanted`: then the graph's attention output is not even fetched)."""
        probabilities = np.zeros((len(items), len(self.labels)), dtype=np.float32)
        attention: list[np.ndarray | None] = [None] * len(items)
        fetched = ["probabilities", "attention"] if attention_wanted and self.config["has_attention"] \
            else ["probabilities"]
        for batch in batch_order([len(item) for item in items], batch_size, shuffle=False):
            chosen = [items[i] for i in batch]
            feed = dict(zip(("ids", "mask"), pad_numpy([item.ids for item in chosen])))
            if self.config["is_pair"]:
                feed.update(zip(("pair_ids", "pair_mask"), pad_numpy([item.pair for item in chosen])))
            if self.config["uses_aspect"]:
                feed.update(zip(("aspect_ids", "aspect_mask"), pad_numpy([item.aspect for item in chosen])))
            feed = {name: value.astype(np.int64) for name, value in feed.items() if name in self.graph_inputs}
            outputs = self.session.run(fetched, feed)
            probabilities[batch] = outputs[0]
            if len(outputs) > 1:
                for row, index in enumerate(batch):
                    attention[index] = outputs[1][row, :, : len(items[index].ids)]
        return probabilities, attention

    def explain(self, texts, pairs=None, top_k: int = 5, batch_size: int = 128, aspects=None) -> list[Explanation]:
        """As `attentive.Model.explain` (without the per-word polarity, which the graph does not compute)."""
        check_call(batch_size=batch_size, top_k=top_k)
        inputs = self.inputs
        texts, pairs, aspects = inputs.expand(texts, pairs, aspects)
        items, encodings = inputs.items(texts, pairs, aspects)
        probabilities, attention = self.run(items, batch_size)
        return [explanation(text, enc, item, self.labels, probs, weights, aspect, top_k, thresholds=self.thresholds)
                for text, enc, item, probs, weights, aspect in
                zip(texts, encodings, items, probabilities, attention, aspects)]

    def predict(self, texts, pairs=None, top_k: int = 5, aspects=None, threshold: float | None = None,
                batch_size: int = 128) -> list[Prediction]:
        """As `attentive.Model.predict`."""
        check_call(batch_size=batch_size, top_k=top_k, threshold=threshold)
        explanations = self.explain(texts, pairs, top_k=top_k, batch_size=batch_size, aspects=aspects)
        return apply_threshold([e.prediction for e in explanations], threshold)

    def predict_proba(self, texts, pairs=None, aspects=None, batch_size: int = 128) -> np.ndarray:
        """As `attentive.Model.predict_proba`."""
        check_call(batch_size=batch_size)
        inputs = self.inputs
        items, _ = inputs.items(*inputs.expand(texts, pairs, aspects), offsets=False)
        return self.run(items, batch_size, attention_wanted=False)[0]


def is_exported(folder: str | Path) -> bool:
    """Whether `folder` holds an exported model (rather than a PyTorch model folder)."""
    from .folder_reading import read_json_in_folder

    try:  # a config.json that is no file, or too large, is no exported model's (loading it then says what it is)
        return read_json_in_folder(Path(folder), "config.json").get("format") == FORMAT
    except AttentiveError:
        return False


def load(folder: str | Path, int8: bool = False, threads: int | None = None) -> RuntimeModel:
    """Read an exported model folder (see `attentive export`)."""
    return RuntimeModel(folder, int8, threads)
