"""`attentive export RUN --out DIR [--int8]`: a saved model as an ONNX graph that outputs the class probabilities and
the attention (batch x heads x tokens) and, asked for it, each token's linearised evidence
(attentive/onnx_format/on_demand.py), beside the same tokenizer.json and a config.json for the runtime
(attentive/onnx_format/read.py reads them).

The graph is traced with PyTorch's TorchScript exporter with dynamic batch and token axes (the newer dynamo
exporter freezes the sequence length of bidirectional GRUs); the example batch is ragged (lengths 5 and 3) so that
the padding paths are traced. What happens before the network (truncation, one unknown token for an empty text,
aspect ids) lives in the tokenizer step that both paths share (attentive/text/encoding.py, the runtime's
`encode`), and everything after the embedding lookup, the backward GRU's reversal within each length included, is
in the graph. `--int8`: ONNX Runtime's dynamic quantisation, which stores the MatMul and Gather weights (the
embedding table, the linear layers) as int8; GRU and LSTM ops are not quantised and stay float32. `attentive
predict`, `explain`, `evaluate` and `serve` of an export run its int8 graph where it has one (`--fp32`: model.onnx).

The export is bound to its files: config.json records the SHA-256 of each graph and of tokenizer.json
("checksums"), and each graph's metadata keeps the label list in the order of its outputs (BOUND_LABELS) and the
model id (BOUND_MODEL_ID), so that another export's graph dropped into the folder (even where config.json has lost its
digests), or config.json's labels reordered, is refused at load (attentive/onnx_format/read.py) rather than changing
every answer without a word.

The folder is claimed as every output folder is (attentive/folders/output.py): never the input model, a folder
holding it or the working directory; an earlier export is replaced only with `overwrite`; a folder holding anything
else is refused unless `overwrite`, and even then only the export's own four files are replaced (a model.int8.onnx
only where the earlier export listed it among its graphs), all at once.
"""
from __future__ import annotations

import copy
import hashlib
import json
import logging
import warnings
from pathlib import Path
from typing import Protocol

import torch
from torch import nn

from ..answer.config_entries import temperature_of
from ..answer.types import BEFORE_EXPORT
from ..folders.config import BOUND_LABELS, BOUND_MODEL_ID
from ..folders.output import OutputKind, claim, read_config
from ..folders.saved import CONFIG, TOKENIZER, WEIGHTS
from ..models.folding import FoldedClassifier, fold
from ..models.linearised import linearised_evidence
from ..models.wide import CompactNgramChannel, NgramChannel, compacted
from ..util.atomic import json_text
from .on_demand import EVIDENCE, evidence_on_demand
from .read import FORMAT, GRAPH, GRAPH_INT8, is_exported


def earlier_export(folder: Path) -> dict | None:
    """The config.json of the export `folder` holds, if it holds one."""
    config = read_config(folder)
    return config if config is not None and config.get("format") == FORMAT else None


def _trained_model(folder: Path) -> str | None:
    if (folder / WEIGHTS).exists() and (folder / CONFIG).exists() and not is_exported(folder):
        return f"a trained model ({WEIGHTS} with its {CONFIG})"
    return None


EXPORT = OutputKind(command="export", output="an export", files=frozenset({GRAPH, GRAPH_INT8, TOKENIZER, CONFIG}),
                    holds_output=is_exported, clash=_trained_model)


class ExportedNetwork(nn.Module):
    """The network as the graph sees it: its inputs positional, in the order of `names` (ids, mask, then
    pair_ids/pair_mask or aspect_ids/aspect_mask; masks as int64, 1 on real tokens); its outputs the probabilities,
    softmax(logits / temperature) at the model's calibrated temperature (attentive/answer/inference.py), or for a
    multi-label model each label's sigmoid (`multi_label`), the attention (zeros, one head, for a pooler without
    attention) and, where the network has it and the model answers one label, each token's linearised evidence
    (attentive/models/linearised.py: what `predict`'s top words rank by, and the evidence `explain` gives a text too
    long for occlusion)."""

    def __init__(self, network: nn.Module, names: list[str], temperature: float = 1.0, multi_label: bool = False):
        super().__init__()
        self.network, self.names, self.temperature = network, names, float(temperature)
        self.multi_label = multi_label

    def forward(self, *tensors):
        inputs = {name: tensor.bool() if name.endswith("mask") else tensor for name, tensor in zip(self.names, tensors)}
        out = self.network(**inputs)
        mask = inputs["mask"]
        attention = out.attention if out.attention is not None else torch.zeros_like(mask, dtype=torch.float32)[:, None]
        logits = out.logits.float()
        if self.multi_label:  # independent labels: the runtime applies config.json's per-label thresholds
            return torch.sigmoid(logits), attention.float()
        evidence = linearised_evidence(self.network, out)  # in logits, before the temperature
        if self.temperature != 1.0:  # a constant of the graph: the runtime and the server need nothing of their own
            logits = logits / self.temperature
        return (torch.softmax(logits, -1), attention.float()) + (() if evidence is None else (evidence,))


class Exportable(Protocol):
    """What export reads of a trained model (`attentive.Model`): its network, tokenizer, config.json, typed recipe,
    folder and the answer settings the graph's inputs and config.json follow."""

    network: nn.Module
    tokenizer: object
    config: dict
    recipe: object
    folder: Path | None
    labels: list[str]


def _example(model: Exportable) -> tuple[dict[str, torch.Tensor], dict[str, dict[int, str]]]:
    """A ragged example batch (two texts, 5 and 3 tokens) with every input the model takes, and the dynamic axes."""
    vocab = model.config["vocab_size"]
    ids = torch.tensor([[5, 6, 7, 8, 9], [10, 11, 12, 0, 0]]) % vocab
    mask = (torch.arange(5)[None] < torch.tensor([[5], [3]])).long()
    inputs = {"ids": ids * mask, "mask": mask}
    axes = {"ids": {0: "batch", 1: "tokens"}, "mask": {0: "batch", 1: "tokens"}}
    if model.is_pair:
        inputs.update(pair_ids=inputs["ids"].flip(0), pair_mask=mask.flip(0))
        axes.update(pair_ids={0: "batch", 1: "pair_tokens"}, pair_mask={0: "batch", 1: "pair_tokens"})
    if model.uses_aspect:
        if model.recipe.aspect.type == "words":  # the aspect term's word ids, ragged too
            aspect = torch.tensor([[5, 6], [7, 0]]) % vocab
        else:  # one category id (from 1)
            aspect = torch.tensor([[1], [min(2, len(model.aspects))]])
        inputs.update(aspect_ids=aspect, aspect_mask=(aspect != 0).long())
        axes.update(aspect_ids={0: "batch", 1: "aspect_tokens"}, aspect_mask={0: "batch", 1: "aspect_tokens"})
    axes.update(probabilities={0: "batch"}, attention={0: "batch", 2: "tokens"}, evidence={0: "batch", 1: "tokens"})
    return inputs, axes


def export(model: Exportable, out: str | Path, int8: bool = False, overwrite: bool = False) -> Path:
    """Write the ONNX folder of `model` (and its int8 graph with `int8`); returns the folder. An earlier export
    there is replaced only with `overwrite`; see the module's docstring for what else `out` may hold."""
    out = Path(out)
    with claim(out, EXPORT, overwrite=overwrite, inputs=[model.folder]) as folder:
        earlier = earlier_export(out) or {}
        with folder.scratch() as scratch:
            files = _exported_files(model, scratch, int8)
        graphs = earlier.get("graphs")
        stale = [name for name in graphs if name in (GRAPH, GRAPH_INT8)] if isinstance(graphs, list) else []
        folder.commit(files, remove=stale)
    return out


def _quiet_tracing() -> None:
    """Silence, inside the caller's `warnings.catch_warnings()`, what the TorchScript exporter says on every export
    and a user cannot act on: that it is the legacy exporter (chosen: `dynamo=False` traces the graph the runtime
    reads); that tracing turns a shape test into a constant (the graph's axes stay dynamic, and
    tests/onnx_format/test_export.py answers texts of other lengths and batch sizes as PyTorch does); that a GRU
    exported with a batch of more than one may fail on other batch sizes (the same tests run batches of 1 to 128); and
    what constant folding skips."""
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    for message, category in (("You are using the legacy TorchScript-based ONNX export", DeprecationWarning),
                              ("The feature will be removed", DeprecationWarning),
                              ("Exporting a model to ONNX with a batch_size other than 1", UserWarning),
                              ("Constant folding - Only steps=1", UserWarning),
                              ("Exporting aten::index operator of advanced indexing", UserWarning)):
        warnings.filterwarnings("ignore", message=message, category=category)


def _exported_files(model: Exportable, scratch: Path, int8: bool) -> dict[str, bytes]:
    """The export's files, by name: the graphs are written (traced, quantised) in `scratch`."""
    inputs, axes = _example(model)
    network = model.network.cpu().eval()
    folded = fold(network)  # a recurrence-free LAMA model looks its words' vectors and keys up
    answering = _compact_rows(folded or network)
    network = ExportedNetwork(answering, list(inputs), temperature_of(model.config), model.multi_label)
    with torch.no_grad(), warnings.catch_warnings():
        example = network(*inputs.values())
        has_attention = bool(example[1].sum() > 0)  # zeros stand in for a pooler without any
        outputs = ["probabilities", "attention", EVIDENCE][:len(example)]
        _quiet_tracing()
        torch.onnx.export(network, tuple(inputs.values()), str(scratch / GRAPH), input_names=list(inputs),
                          output_names=outputs, dynamic_axes={name: axes[name] for name in [*inputs, *outputs]},
                          opset_version=17, dynamo=False)
    _bind(scratch / GRAPH, model.labels, model.config.get("model_id"))  # before quantising: the int8 graph keeps it
    graphs = [GRAPH] + ([GRAPH_INT8] if int8 else [])
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # onnxruntime's quantiser logs on the root logger that it skips integer tensors (the n-gram hashing's
        # slices, which hold ids, not weights) and suggests a pre-processing step for image models: nothing a user
        # of `attentive export --int8` can act on, so it is not shown
        logging.disable(logging.WARNING)
        try:
            quantize_dynamic(str(scratch / GRAPH), str(scratch / GRAPH_INT8), weight_type=QuantType.QInt8)
        finally:
            logging.disable(logging.NOTSET)
    if EVIDENCE in outputs:  # computed only where a call asks for it, the int8 graph's after its quantisation
        for name in graphs:
            evidence_on_demand(scratch / name)
    config = {
        "format": FORMAT, "labels": model.labels, "inputs": list(inputs), "has_attention": has_attention,
        "has_evidence": EVIDENCE in outputs,  # the linearised evidence (attentive/onnx_format/on_demand.py)
        "max_length": model.max_length, "special_tokens": model.special_tokens, "aspects": model.aspects,
        "aspect_type": model.recipe.aspect.type, "is_pair": model.is_pair, "uses_aspect": model.uses_aspect,
        "recipe": model.config["recipe"], "model_id": model.config.get("model_id"),
        "graphs": graphs,
        "folded": folded is not None,  # for the record (attentive/models/folding.py): the runtime needs nothing else
    }
    if isinstance(getattr(answering, "wide", None), CompactNgramChannel):  # for the record too
        config["bigram_rows"] = {"kept": answering.wide.rows.num_embeddings - 1, "buckets": answering.wide.buckets}
    if model.multi_label:  # the graph answers sigmoids; the runtime gives each label at or above its threshold
        config.update(multi_label=True, thresholds=model.thresholds)
    if "abstain" in model.config:  # the threshold below which predict answers "none of these"
        config["abstain"] = model.config["abstain"]  # (attentive/answer/abstain.py)
    for key in ("calibration", "prior"):  # for the record: the graph applies the temperature and holds the linear
        if key in model.config:  # model fitted first (attentive/training/prior.py) in its n-gram rows itself
            config[key] = model.config[key]
    if "reading" in model.config:  # how the model reads a file (attentive/data/reading.py): evaluate and predict
        config["reading"] = model.config["reading"]  # of the export read it as training did
    if isinstance(model.config.get("faithfulness"), dict):  # the deletion test run at training's end, shown by /info,
        # named as the PyTorch model's: the export's evidence is occlusion's, its own measured by `attentive evaluate`
        config["faithfulness"] = {**model.config["faithfulness"], "measured_on": BEFORE_EXPORT}
    files = {name: (scratch / name).read_bytes() for name in config["graphs"]}
    files[TOKENIZER] = model.tokenizer.to_str().encode("utf-8")
    config["checksums"] = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    return {**files, CONFIG: (json_text(config, scratch / CONFIG) + "\n").encode("utf-8")}


def _compact_rows(network: nn.Module) -> nn.Module:
    """`network` with its n-gram channel's bigram table kept by its nonzero rows, where that is smaller
    (attentive/models/wide.py `compacted`); the model's own network is left as it is (a folded one is a new module
    already, any other is copied)."""
    wide = getattr(network, "wide", None)
    compact = compacted(wide) if isinstance(wide, NgramChannel) else wide
    if compact is wide:
        return network
    if not isinstance(network, FoldedClassifier):
        network = copy.deepcopy(network)
    network.wide = compact
    return network


def _bind(path: Path, labels: list[str], model_id: str | None) -> None:
    """Keep `labels` (a JSON list, in the order of the graph's outputs) and the `model_id` config.json gives, where it
    gives one, in the metadata of the graph at `path`."""
    import onnx

    graph = onnx.load(str(path))
    bound = {BOUND_LABELS: json.dumps(labels, ensure_ascii=False)}
    if isinstance(model_id, str):
        bound[BOUND_MODEL_ID] = model_id
    for key, value in bound.items():
        entry = graph.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(graph, str(path))
