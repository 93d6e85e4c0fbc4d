"""Exported models without PyTorch: `attentive.runtime.load(folder)` reads what `attentive export` wrote and offers
the same `predict`, `predict_proba` and `explain` as `attentive.load`, with onnxruntime, tokenizers and numpy only
(install `attentive[runtime]`). `RuntimeModel` is the answer path's ONNX Runtime backend: its calls are
`attentive.answer.answerer.Answerer`'s, which the PyTorch model's are too, so both paths check, encode and answer the
same texts the same way.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..answer.answerer import Answerer, Looked, Need
from ..answer.inputs import Inputs, temperature_of, thresholds_of
from ..errors import AttentiveError
from ..folders.config import EXPORT_FORMAT
from ..text.encoding import Item, batch_order, pad_numpy
from ..util.checks import check_folder, check_threads
from ..util.threads import default_threads
from .lanes import Lanes
from .occlusion import occlusion_evidence

FORMAT = EXPORT_FORMAT


class RuntimeModel(Answerer):
    """An exported model run by ONNX Runtime. `int8`: True runs the quantised graph (exported with --int8), False
    the float32 one, None the quantised one where the export has it (what `attentive serve` and `predict` run);
    `graph` names the one it runs. `threads` is how many threads answer a call, each running whole batches on one
    ONNX Runtime thread (attentive/runtime/lanes.py; None: attentive.util.threads.default_threads(), the usable cores
    or OMP_NUM_THREADS)."""

    def __init__(self, folder: str | Path, int8: bool | None = None, threads: int | None = None):
        from .folder import read_exported

        check_folder(folder)
        check_threads(threads)  # 0 or -1 refused before the folder is read, as the CLI's --threads refuses them
        self.folder = Path(folder)
        self.config, self.session, self.tokenizer, self.graph = read_exported(self.folder, FORMAT, int8)
        self.lanes = Lanes(threads or default_threads())
        self.graph_inputs = {node.name for node in self.session.get_inputs()}  # an unused input is not in the graph
        self.labels: list[str] = self.config["labels"]
        self.thresholds = thresholds_of(self.config, self.folder / "config.json")  # multi-label models; else None

    @property
    def inputs(self) -> Inputs:
        c = self.config
        return Inputs(self.tokenizer, c["is_pair"], c["uses_aspect"], c["aspects"], c["aspect_type"],
                      c["max_length"], c["special_tokens"])

    @property
    def aspects(self) -> list[str]:
        return self.config["aspects"]

    @property
    def temperature(self) -> float:
        """The calibration temperature the graph computes its probabilities at (config.json's)."""
        return temperature_of(self.config)

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
        lengths = [len(item) for item in items]
        batches = batch_order(lengths, batch_size, shuffle=False)

        def answer(batch: np.ndarray) -> None:
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

        self.lanes.run(batches, [max(lengths[i] for i in batch) for batch in batches], answer)
        return probabilities, attention

    def _attention(self, items: list[Item], batch_size: int) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """predict's probabilities and attention: the graph's, as `run` gives them (no `Looked` per item)."""
        return self.run(items, batch_size, attention_wanted=True)

    def _look(self, items: list[Item], batch_size: int, need: Need) -> tuple[np.ndarray, list[Looked]]:
        """The answer path's ONNX Runtime backend (attentive.answer.answerer.Answerer): the graph's probabilities and,
        when `need` asks for more than them, each item's attention; `explain` (Need.EVIDENCE) also each token's
        evidence by occlusion (attentive/runtime/occlusion.py), the graph answering the text once without each token
        (not for a multi-label model, whose labels are no one softmax)."""
        probabilities, attention = self.run(items, batch_size, attention_wanted=need > Need.PROBABILITIES)
        evidence = [None] * len(items)
        if need >= Need.EVIDENCE and not self.multi_label:
            evidence = occlusion_evidence(self.run, items, probabilities, self.temperature, batch_size)
        return probabilities, [Looked(weights, attribution=found) for weights, found in zip(attention, evidence)]


def is_exported(folder: str | Path) -> bool:
    """Whether `folder` holds an exported model (rather than a PyTorch model folder)."""
    from ..folders.reading import read_json_in_folder

    try:  # a config.json that is no file, or too large, is no exported model's (loading it then says what it is)
        return read_json_in_folder(Path(folder), "config.json").get("format") == FORMAT
    except AttentiveError:
        return False


def load(folder: str | Path, int8: bool | None = None, threads: int | None = None) -> RuntimeModel:
    """Read an exported model folder (see `attentive export`): its int8 graph where it has one (exported with
    --int8), unless `int8` is False; `int8=True` requires it."""
    return RuntimeModel(folder, int8, threads)
