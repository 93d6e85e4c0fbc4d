"""The answer path's ONNX Runtime backend, without PyTorch: `load(folder)` reads what `attentive export` wrote
(attentive/onnx_format/read.py) as a `RuntimeModel`, which offers the same `predict`, `predict_proba` and `explain`
as `attentive.load`, with onnxruntime, tokenizers and numpy only (install `attentive[runtime]`). Its calls are
`attentive.answer.answerer.Answerer`'s, which the PyTorch backend's (attentive/answer/torch_backend.py) are too, so
both paths check, encode and answer the same texts the same way.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..onnx_format.on_demand import EVIDENCE, EVIDENCE_WANTED
from ..onnx_format.read import FORMAT, read_exported
from ..text.encoding import Item, batch_order, pad_numpy
from ..util.checks import ArgumentError, check_folder, check_threads
from ..util.threads import default_threads
from .abstain import abstain_of
from .answerer import ATTENTION, EVIDENCE_WORDS, NO_EVIDENCE_WORDS, Answerer, Looked, Need
from .config_entries import temperature_of, thresholds_of
from .inputs import Inputs
from .lanes import Lanes
from .occlusion import linearised, occlusion_evidence


class RuntimeModel(Answerer):
    """An exported model run by ONNX Runtime. `int8`: True runs the quantised graph (exported with --int8), False
    the float32 one, None the quantised one where the export has it (what `attentive serve` and `predict` run);
    `graph` names the one it runs. `threads` is how many threads answer a call, each running whole batches on one
    ONNX Runtime thread (attentive/answer/lanes.py; None: attentive.util.threads.default_threads(), the usable cores
    or OMP_NUM_THREADS)."""

    def __init__(self, folder: str | Path, int8: bool | None = None, threads: int | None = None):
        check_folder(folder)
        check_threads(threads)  # 0 or -1 refused before the folder is read, as the CLI's --threads refuses them
        self.folder = Path(folder)
        self.config, self.session, self.tokenizer, self.graph = read_exported(self.folder, FORMAT, int8)
        self.lanes = Lanes(threads or default_threads())
        self.graph_inputs = {node.name for node in self.session.get_inputs()}  # an unused input is not in the graph
        self.labels: list[str] = self.config["labels"]
        self.thresholds = thresholds_of(self.config, self.folder / "config.json")  # multi-label models; else None
        abstain_of(self.config, self.folder / "config.json")  # a damaged abstain threshold fails at load

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
        probabilities, found = self.outputs(items, batch_size, ("attention",) if attention_wanted else ())
        return probabilities, found.get("attention", [None] * len(items))

    def outputs(self, items: list[Item], batch_size: int,
                wanted: tuple[str, ...]) -> tuple[np.ndarray, dict[str, list[np.ndarray]]]:
        """Probabilities (N x classes) and, of the `wanted` outputs, those the graph has, each item's cut to its
        tokens: "attention" (heads x tokens), "evidence" (the linearised evidence of each token,
        attentive/models/linearised.py; graphs exported since it existed: config.json's `has_evidence`). An output
        not wanted is not fetched."""
        probabilities = np.zeros((len(items), len(self.labels)), dtype=np.float32)
        has = {"attention": self.config["has_attention"], EVIDENCE: self.config.get("has_evidence", False)}
        fetched = [name for name in wanted if has[name]]
        found: dict[str, list] = {name: [None] * len(items) for name in fetched}
        lengths = [len(item) for item in items]
        batches = batch_order(lengths, batch_size, shuffle=False)

        def answer(batch: np.ndarray) -> None:
            chosen = [items[i] for i in batch]
            feed = dict(zip(("ids", "mask"), pad_numpy([item.ids for item in chosen])))
            if self.config["is_pair"]:
                feed.update(zip(("pair_ids", "pair_mask"), pad_numpy([item.pair for item in chosen])))
            if self.config["uses_aspect"]:
                feed.update(zip(("aspect_ids", "aspect_mask"), pad_numpy([item.aspect for item in chosen])))
            feed = {name: value.astype(np.int64, copy=False) for name, value in feed.items()
                    if name in self.graph_inputs}
            if EVIDENCE_WANTED in self.graph_inputs:  # the evidence is computed only when fetched
                # (attentive/onnx_format/on_demand.py)
                feed[EVIDENCE_WANTED] = np.array(EVIDENCE in fetched)
            outputs = self.session.run(["probabilities", *fetched], feed)
            probabilities[batch] = outputs[0]
            for name, values in zip(fetched, outputs[1:]):
                for row, index in enumerate(batch):
                    found[name][index] = values[row, ..., : len(items[index].ids)]

        self.lanes.run(batches, [max(lengths[i] for i in batch) for batch in batches], answer)
        return probabilities, found

    @property
    def _has_evidence(self) -> bool:
        """Whether the graph gives the linearised evidence (exported since it existed) for a one-label model."""
        return bool(self.config.get("has_evidence")) and not self.multi_label

    def _top_word_weights(self, items: list[Item], batch_size: int,
                          by: str) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """predict's probabilities and what its top words rank by (attentive.answer.answerer.top_word_weights): the
        graph's linearised evidence where it has it, else its attention, as `outputs` gives them (no `Looked` per
        item)."""
        if by == EVIDENCE_WORDS and not self._has_evidence:
            raise ArgumentError(NO_EVIDENCE_WORDS + " (an export of an older attentive has none: export again)")
        name = EVIDENCE if self._has_evidence and by != ATTENTION else "attention"
        probabilities, found = self.outputs(items, batch_size, (name,))
        return probabilities, found.get(name, [None] * len(items))

    def _look(self, items: list[Item], batch_size: int, need: Need) -> tuple[np.ndarray, list[Looked]]:
        """The answer path's ONNX Runtime backend (attentive.answer.answerer.Answerer): the graph's probabilities and,
        when `need` asks for more than them, each item's attention and linearised evidence (where the graph has it);
        `explain` (Need.EVIDENCE) also each token's evidence: the graph's linearised evidence, what `predict`'s top
        words rank by (attentive/answer/types.py EVIDENCE_MEANING), where the graph has it; for an export without it
        (made before it existed) by occlusion (attentive/answer/occlusion.py), the graph answering the text once
        without each token (not for a multi-label model, whose labels are no one softmax)."""
        wanted = () if need == Need.PROBABILITIES else ("attention", EVIDENCE) if self._has_evidence else ("attention",)
        probabilities, found = self.outputs(items, batch_size, wanted)
        nothing = [None] * len(items)
        evidence, linear = nothing, found.get(EVIDENCE, nothing)
        if need >= Need.EVIDENCE and not self.multi_label:
            evidence = self._evidence(items, probabilities, linear, batch_size)
        return probabilities, [Looked(weights, attribution=occluded, linear_evidence=values)
                               for weights, occluded, values in zip(found.get("attention", nothing), evidence, linear)]

    def _evidence(self, items: list[Item], probabilities: np.ndarray, linear: list[np.ndarray | None],
                  batch_size: int) -> list[dict | None]:
        """Each item's {"evidence", "margin", "method"}: the graph's linearised evidence `linear` where it has it
        (fetched in the same run as the attention: `has_evidence`, exported since it existed;
        attentive/models/linearised.py), so that `explain`, `/explain` and the page show what `predict` ranks by;
        by occlusion for the others (of up to its MAX_TOKENS tokens; None beyond)."""
        evidence: list[dict | None] = [None] * len(items)
        given = [index for index, values in enumerate(linear) if values is not None]
        for index, filled in zip(given, linearised([linear[index] for index in given], probabilities[given],
                                                   self.temperature)):
            evidence[index] = filled
        missing = [index for index, values in enumerate(linear) if values is None]
        if missing:
            occluded = occlusion_evidence(self.run, [items[index] for index in missing], probabilities[missing],
                                          self.temperature, batch_size)
            for index, filled in zip(missing, occluded):
                evidence[index] = filled
        return evidence


def load(folder: str | Path, int8: bool | None = None, threads: int | None = None) -> RuntimeModel:
    """Read an exported model folder (see `attentive export`): its int8 graph where it has one (exported with
    --int8), unless `int8` is False; `int8=True` requires it."""
    return RuntimeModel(folder, int8, threads)
