"""Run a model over encoded texts and keep, per text, what the explanations show: class probabilities, each head's
attention weights and pre-softmax scores, and each word's polarity (TextClassifier.word_polarity)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..data.batching import Item, collate, iterate


@dataclass
class Looked:
    """One text as the model saw it; arrays are cut to the text's own tokens."""

    probabilities: np.ndarray  # classes
    attention: np.ndarray | None = None  # heads x words, each row sums to 1
    scores: np.ndarray | None = None  # heads x words, before the softmax
    polarity: np.ndarray | None = None  # words x classes
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits (classes)
    ngram_words: np.ndarray | None = None  # words x classes: each word's share of the n-gram channel's logits


def _rows(tensor: torch.Tensor | None, row: int, length: int, words_last: bool = True) -> np.ndarray | None:
    if tensor is None:
        return None
    values = tensor[row].float().cpu().numpy()
    return values[..., :length] if words_last else values[:length]


@torch.no_grad()
def look(network: torch.nn.Module, items: Sequence[Item], batch_size: int = 128,
         device: str | torch.device = "cpu", with_polarity: bool = True) -> list[Looked]:
    """What `network` computes for each item, in input order; `with_polarity=False` skips the per-word polarity,
    which runs the head once per word (predictions do not need it)."""
    network.eval()
    looked: list[Looked | None] = [None] * len(items)
    for batch in iterate(items, batch_size):
        inputs = collate([items[i] for i in batch], device)
        out = network(**inputs)
        probabilities = torch.softmax(out.logits.float(), -1).cpu().numpy()
        polarity = network.word_polarity(out.states) if with_polarity and out.states is not None else None
        wide = out.wide_logits
        ngram_words = network.wide.word_scores(inputs["ids"], inputs["mask"]) \
            if with_polarity and wide is not None else None
        for row, index in enumerate(batch):
            length = len(items[index].ids)
            channels = None if wide is None else {"attention": (out.logits - wide)[row].float().cpu().numpy(),
                                                  "ngrams": wide[row].float().cpu().numpy()}
            looked[index] = Looked(probabilities[row], _rows(out.attention, row, length),
                                   _rows(out.scores, row, length), _rows(polarity, row, length, words_last=False),
                                   channels, _rows(ngram_words, row, length, words_last=False))
    return looked
