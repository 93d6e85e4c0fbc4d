"""The one inference path: encoded items through the network in batches (bucketed by length), answers back in input
order. `predict`, `evaluate`, `explain`, `analyze`, the deletion test and the training loop's dev pass all run here;
it is the boundary that export and serving attach to.

`infer` returns the class probabilities (N x classes) and, as far as its `need` asks (attentive.answer.answerer.Need),
what the explanations show of each text: with ATTENTION each head's attention and each token's linearised evidence
(attentive/models/linearised.py; None where the model has none), what predict's top words rank by; with DETAILS
also the pre-softmax scores and, for wide-and-deep models, each channel's logits; with EVIDENCE also each
word's polarity (TextClassifier.word_polarity: it runs the head once per word), its share of the wide channel's
logits, and its signed evidence in the attention channel (TextClassifier.attribution: exact, or gradient × input,
one backward pass). `attentive.Model` is the answer path's PyTorch backend through it.

A trained model's probabilities are softmax(logits / T), T its temperature (temperature scaling, Guo et al. 2017,
fitted on dev after training: attentive/training/calibration.py), kept in config.json (`calibration: {temperature: T}`);
a folder saved before calibration existed has none and answers with T = 1. Dividing by T > 0 changes no argmax, so
no predicted label, and no attention.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..data.batching import Item, collate, iterate
from ..models.classifier import Attribution
from ..models.linearised import LINEARISED, attention_part, linearised_evidence
from .answerer import Looked, Need


@dataclass
class Inference:
    probabilities: np.ndarray  # N x classes, in input order
    looked: list[Looked] | None = None  # per text, unless only the probabilities were needed
    logits: np.ndarray | None = None  # N x classes, in input order, before the temperature


def _numpy(tensor: torch.Tensor | None) -> np.ndarray | None:
    """A batch's tensor on the CPU as float32 numpy, copied once for all its rows."""
    return None if tensor is None else tensor.float().cpu().numpy()


def _row(values: np.ndarray | None, row: int, length: int, words_last: bool = True) -> np.ndarray | None:
    """A batch's `row` cut to its text's `length` tokens (on the last axis, or with `words_last=False` the first)."""
    if values is None:
        return None
    return values[row, ..., :length] if words_last else values[row, :length]


@torch.no_grad()
def infer(network: torch.nn.Module, items: Sequence[Item], batch_size: int = 128, device: str | torch.device = "cpu",
          need: Need = Need.PROBABILITIES, temperature: float = 1.0) -> Inference:
    """Run `network` (in eval mode) over `items`; probabilities at `temperature`; see the module docstring."""
    network.eval()
    probabilities: np.ndarray | None = None
    logits: np.ndarray | None = None
    looked: list[Looked | None] | None = [None] * len(items) if need > Need.PROBABILITIES else None
    for batch in iterate(items, batch_size):
        inputs = collate([items[i] for i in batch], device)
        out = network(**inputs)
        scores = out.logits.float()
        probs = torch.softmax(scores if temperature == 1.0 else scores / temperature, -1).cpu().numpy()
        if probabilities is None:
            probabilities = np.zeros((len(items), probs.shape[1]), dtype=np.float32)
            logits = np.zeros((len(items), probs.shape[1]), dtype=np.float32)
        probabilities[batch] = probs
        logits[batch] = scores.cpu().numpy()
        if looked is not None:
            _keep_looks(network, items, batch, inputs, out, need, looked)
    if probabilities is None:
        probabilities = logits = np.zeros((0, 0), dtype=np.float32)
    return Inference(probabilities, looked, logits)


def _keep_looks(network, items, batch, inputs, out, need: Need, looked: list) -> None:
    """Each row's `Looked`, as far as `need` asks: what a level does not need is not computed."""
    details, evidence = need >= Need.DETAILS, need >= Need.EVIDENCE
    attention = _numpy(out.attention)
    linear_tensor = linearised_evidence(network, out)
    linear = _numpy(linear_tensor)
    scores = _numpy(out.scores) if details else None
    wide = out.wide_logits if details else None
    channels = None if wide is None else {"attention": _numpy(out.logits - wide), network.wide.channel: _numpy(wide)}
    polarity = _numpy(network.word_polarity(out.states)) if evidence and out.states is not None else None
    ngram_words = _numpy(_wide_word_scores(network, inputs)) if evidence and out.wide_logits is not None else None
    if evidence and linear_tensor is not None:  # the evidence the top words rank by, the attention channel's share
        part, margin = attention_part(out, linear_tensor)
        attribution = Attribution(part, margin, LINEARISED)
    else:
        attribution = network.attribution(inputs, out) if evidence and hasattr(network, "attribution") else None
    evidence_values = None if attribution is None else _numpy(attribution.evidence)
    for row, index in enumerate(batch):
        length = len(items[index].ids)
        looked[index] = Looked(
            _row(attention, row, length), _row(scores, row, length), _row(polarity, row, length, words_last=False),
            None if channels is None else {name: values[row] for name, values in channels.items()},
            _row(ngram_words, row, length, words_last=False),
            None if attribution is None else {"evidence": evidence_values[row, :length],
                                              "margin": float(attribution.margin[row]),
                                              "method": attribution.method},
            _row(linear, row, length))


def _wide_word_scores(network, inputs: dict) -> torch.Tensor:
    """B x T x classes: each word's share of the wide channel's logits."""
    return network.wide.word_scores(inputs["ids"], inputs["mask"])


def predict_probabilities(network: torch.nn.Module, items: Sequence[Item], batch_size: int = 128,
                          device: str | torch.device = "cpu", temperature: float = 1.0) -> np.ndarray:
    """Class probabilities (N x classes) in input order, at `temperature`."""
    return infer(network, items, batch_size, device, temperature=temperature).probabilities
