"""`attentive export RUN --out DIR [--int8]`: a saved model as an ONNX graph that outputs the class probabilities and
the attention (batch x heads x tokens), beside the same tokenizer.json and a config.json for the runtime.

The graph is traced with PyTorch's TorchScript exporter with dynamic batch and token axes (the newer dynamo
exporter freezes the sequence length of bidirectional GRUs); the example batch is ragged (lengths 5 and 3) so that
the padding paths are traced. What happens before the network (truncation, one unknown token for an empty text,
aspect ids) lives in the tokenizer step that both paths share (attentive/text/encoding.py, the runtime's
`encode`), and everything after the embedding lookup, the backward GRU's reversal within each length included, is
in the graph. `--int8`: ONNX Runtime's dynamic quantisation, which stores the MatMul and Gather weights (the
embedding table, the linear layers) as int8; GRU and LSTM ops are not quantised and stay float32.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import torch
from torch import nn

from .io_utils import atomic_write_json
from .model import Model
from .runtime import FORMAT

GRAPH, GRAPH_INT8 = "model.onnx", "model.int8.onnx"


class ExportedNetwork(nn.Module):
    """The network as the graph sees it: its inputs positional, in the order of `names` (ids, mask, then
    pair_ids/pair_mask or aspect_ids/aspect_mask; masks as int64, 1 on real tokens); its outputs the probabilities
    and the attention (zeros, one head, for a pooler without attention)."""

    def __init__(self, network: nn.Module, names: list[str]):
        super().__init__()
        self.network, self.names = network, names

    def forward(self, *tensors):
        inputs = {name: tensor.bool() if name.endswith("mask") else tensor for name, tensor in zip(self.names, tensors)}
        out = self.network(**inputs)
        mask = inputs["mask"]
        attention = out.attention if out.attention is not None else torch.zeros_like(mask, dtype=torch.float32)[:, None]
        return torch.softmax(out.logits.float(), -1), attention.float()


def _example(model: Model) -> tuple[dict[str, torch.Tensor], dict[str, dict[int, str]]]:
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
        if model.config["recipe"]["aspect"]["type"] == "words":  # the aspect term's word ids, ragged too
            aspect = torch.tensor([[5, 6], [7, 0]]) % vocab
        else:  # one category id (from 1)
            aspect = torch.tensor([[1], [min(2, len(model.aspects))]])
        inputs.update(aspect_ids=aspect, aspect_mask=(aspect != 0).long())
        axes.update(aspect_ids={0: "batch", 1: "aspect_tokens"}, aspect_mask={0: "batch", 1: "aspect_tokens"})
    axes.update(probabilities={0: "batch"}, attention={0: "batch", 2: "tokens"})
    return inputs, axes


def export(model: Model, out: str | Path, int8: bool = False) -> Path:
    """Write the ONNX folder of `model` (and its int8 graph with `int8`); returns the folder."""
    out = Path(out)
    staging = out.with_name(f".{out.name}.exporting")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    inputs, axes = _example(model)
    network = ExportedNetwork(model.network.cpu().eval(), list(inputs))
    with torch.no_grad():
        has_attention = bool(network(*inputs.values())[1].sum() > 0)  # zeros stand in for a pooler without any
        torch.onnx.export(network, tuple(inputs.values()), str(staging / GRAPH), input_names=list(inputs),
                          output_names=["probabilities", "attention"], dynamic_axes=axes, opset_version=17,
                          dynamo=False)
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(staging / GRAPH), str(staging / GRAPH_INT8), weight_type=QuantType.QInt8)
    (staging / "tokenizer.json").write_text(model.tokenizer.to_str(), encoding="utf-8")
    recipe = model.config["recipe"]
    atomic_write_json(staging / "config.json", {
        "format": FORMAT, "labels": model.labels, "inputs": list(inputs), "has_attention": has_attention,
        "max_length": model.max_length, "special_tokens": model.special_tokens, "aspects": model.aspects,
        "aspect_type": recipe["aspect"]["type"], "is_pair": model.is_pair, "uses_aspect": model.uses_aspect,
        "recipe": recipe, "model_id": model.config.get("model_id"), "graphs": [GRAPH] + ([GRAPH_INT8] if int8 else []),
    })
    if out.exists():
        shutil.rmtree(out)
    staging.rename(out)
    return out
