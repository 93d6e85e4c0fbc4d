"""The one inference path: encoded items through the network in batches (bucketed by length), answers back in input
order. `predict`, `evaluate`, `explain`, `analyze`, the deletion test and the training loop's dev pass all run here;
it is the boundary that export and serving attach to.

`infer` returns the class probabilities (N x classes) and, with `details=True`, what the explanations show of each
text: each head's attention and pre-softmax scores, each word's polarity (TextClassifier.word_polarity, only with
`polarity=True`: it runs the head once per word) and signed evidence in the attention channel
(TextClassifier.attribution, also only with `polarity=True`: exact, or gradient × input, one backward pass), and,
for wide-and-deep models, each channel's logits.

A trained model's probabilities are softmax(logits / T), T its temperature (temperature scaling, Guo et al. 2017,
fitted on dev after training: attentive/training/calibration.py), kept in config.json as `calibration.temperature`;
a folder saved before calibration existed has none and answers with T = 1. Dividing by T > 0 changes no argmax, so
no predicted label, and no attention.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import math

import numpy as np
import torch

from .data.batching import Item, collate, iterate
from .errors import AttentiveError


@dataclass
class Looked:
    """One text as the model saw it; arrays are cut to the text's own tokens."""

    probabilities: np.ndarray  # classes
    attention: np.ndarray | None = None  # heads x words, each row sums to 1
    scores: np.ndarray | None = None  # heads x words, before the softmax
    polarity: np.ndarray | None = None  # words x classes
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits (classes)
    ngram_words: np.ndarray | None = None  # words x classes: each word's share of the wide channel's logits
    attribution: dict | None = None  # the attention channel's evidence per word, margin and method
    #   (TextClassifier.attribution)


@dataclass
class Inference:
    probabilities: np.ndarray  # N x classes, in input order
    looked: list[Looked] | None = None  # per text, with details=True
    logits: np.ndarray | None = None  # N x classes, in input order, before the temperature


def temperature_of(config: dict) -> float:
    """The temperature a model's probabilities are computed at: config.json's `calibration.temperature`, 1 where
    there is no `calibration` (a folder saved before it existed); a value that is not a finite number > 0 is one
    line naming the entry."""
    calibration = config.get("calibration")
    if calibration is None:
        return 1.0
    value = calibration.get("temperature") if isinstance(calibration, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise AttentiveError(f"config.json: 'calibration.temperature' must be a number > 0, not {value!r}"[:200])
    return float(value)


def _rows(tensor: torch.Tensor | None, row: int, length: int, words_last: bool = True) -> np.ndarray | None:
    if tensor is None:
        return None
    values = tensor[row].float().cpu().numpy()
    return values[..., :length] if words_last else values[:length]


@torch.no_grad()
def infer(network: torch.nn.Module, items: Sequence[Item], batch_size: int = 128, device: str | torch.device = "cpu",
          details: bool = False, polarity: bool = False, temperature: float = 1.0) -> Inference:
    """Run `network` (in eval mode) over `items`; probabilities at `temperature`; see the module docstring."""
    network.eval()
    probabilities: np.ndarray | None = None
    logits: np.ndarray | None = None
    looked: list[Looked | None] | None = [None] * len(items) if details else None
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
        if details:
            _keep_details(network, items, batch, inputs, out, probs, polarity, looked)
    if probabilities is None:
        probabilities = logits = np.zeros((0, 0), dtype=np.float32)
    return Inference(probabilities, looked, logits)


def _keep_details(network, items, batch, inputs, out, probs, polarity: bool, looked: list) -> None:
    word_polarity = network.word_polarity(out.states) if polarity and out.states is not None else None
    wide = out.wide_logits
    ngram_words = _wide_word_scores(network, inputs) if polarity and wide is not None else None
    attribution = network.attribution(inputs, out) if polarity and hasattr(network, "attribution") else None
    for row, index in enumerate(batch):
        length = len(items[index].ids)
        channels = None if wide is None else {"attention": (out.logits - wide)[row].float().cpu().numpy(),
                                              network.wide.channel: wide[row].float().cpu().numpy()}
        looked[index] = Looked(probs[row], _rows(out.attention, row, length), _rows(out.scores, row, length),
                               _rows(word_polarity, row, length, words_last=False), channels,
                               _rows(ngram_words, row, length, words_last=False),
                               None if attribution is None else
                               {"evidence": attribution.evidence[row, :length].float().cpu().numpy(),
                                "margin": float(attribution.margin[row]), "method": attribution.method})


def _wide_word_scores(network, inputs: dict) -> torch.Tensor:
    """B x T x classes: each word's share of the wide channel's logits."""
    return network.wide.word_scores(inputs["ids"], inputs["mask"])


def predict_probabilities(network: torch.nn.Module, items: Sequence[Item], batch_size: int = 128,
                          device: str | torch.device = "cpu", temperature: float = 1.0) -> np.ndarray:
    """Class probabilities (N x classes) in input order, at `temperature`."""
    return infer(network, items, batch_size, device, temperature=temperature).probabilities
