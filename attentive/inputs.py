"""From the user's texts to the network's items, and from the network's numbers to answers, without PyTorch: shared
by `attentive.Model` and the exported-model runtime, so that both check, encode and answer in exactly one way.

`Inputs` knows what a model takes (single texts or pairs, aspects by category or by their words, its tokenizer,
truncation length and special tokens) and turns texts into `Item`s (attentive/text/encoding.py); `explanations`
turns per-text probabilities and attention into `Explanation`s with their `Prediction`s.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tokenizers import Encoding, Tokenizer

from .answers import Explanation, Prediction
from .errors import AttentiveError
from .text.encoding import Item, encode, truncated_ids
from .text.tokenizer import UNK_ID


@dataclass
class Inputs:
    tokenizer: Tokenizer
    is_pair: bool
    uses_aspect: bool
    aspects: list[str]  # the categories a learned-aspect model knows ([] for aspect terms and other models)
    aspect_type: str  # none | ignore | learned | words
    max_length: int | None
    special_tokens: bool

    def aspect_ids(self, aspects: Sequence[str | None]) -> list[list[int]] | None:
        """Each aspect as ids: its index in the model's categories (from 1), or its word ids for open-ended aspects."""
        if not self.uses_aspect:
            return None
        if any(not isinstance(a, str) or not a.strip() for a in aspects):
            raise AttentiveError("this model classifies a text with respect to an aspect: give one for every text")
        if self.aspect_type == "words":
            return [enc.ids or [UNK_ID] for enc in self.tokenizer.encode_batch(list(aspects))]
        index = {name: i for i, name in enumerate(self.aspects, start=1)}
        unknown = sorted({a for a in aspects if a not in index})
        if unknown:
            raise AttentiveError(f"unknown aspect(s) {listed(unknown)}; this model knows {listed(self.aspects)}")
        return [[index[a]] for a in aspects]

    def expand(self, texts, pairs=None, aspects=None) -> tuple[list[str], list[str] | None, list]:
        """(texts, pairs, aspects), one of each per answer: a single string is one text; a single aspect applies to
        every text; an aspect model given none answers for each category it knows (text-major order), and a model
        without aspects takes none. A pair model needs a second text for every text, and a single-text model takes
        none."""
        texts = [texts] if isinstance(texts, str) else list(texts)
        pairs = [pairs] if isinstance(pairs, str) else (None if pairs is None else list(pairs))
        if self.is_pair and pairs is None:
            raise AttentiveError("this model classifies text pairs: give a second text (--pair) for every text")
        if not self.is_pair and pairs is not None:
            raise AttentiveError("this model classifies single texts: it takes no second text")
        if isinstance(aspects, str):
            aspects = [aspects] * len(texts)
        if not self.uses_aspect and aspects is not None and any(a is not None for a in aspects):
            raise AttentiveError("this model classifies texts without an aspect: give no aspects")
        if self.uses_aspect and aspects is None:
            if not self.aspects:
                raise AttentiveError("this model takes open-ended aspects: give the aspect of each text (--aspect)")
            repeat = len(self.aspects)
            texts, aspects = [t for t in texts for _ in range(repeat)], [a for _ in texts for a in self.aspects]
            pairs = None if pairs is None else [p for p in pairs for _ in range(repeat)]
        if aspects is not None and len(aspects) != len(texts):
            raise AttentiveError(f"{len(aspects)} aspects for {len(texts)} texts: give one per text")
        if pairs is not None and len(pairs) != len(texts):
            raise AttentiveError(f"{len(pairs)} second texts for {len(texts)} texts: give one per text")
        return texts, pairs, list(aspects) if aspects is not None else [None] * len(texts)

    def items(self, texts: list[str], pairs: list[str] | None, aspects: list) -> tuple[list[Item], list[Encoding]]:
        """The items to feed the network, and the first texts' encodings (for their words' character offsets);
        `texts`, `pairs` and `aspects` as `expand` returns them (one of each per answer, checked there)."""
        for number, text in enumerate(list(texts) + list(pairs or []), 1):
            if not isinstance(text, str) or not text.strip():
                raise AttentiveError(f"text {number} is empty: nothing to classify")
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=self.special_tokens)
        ids = truncated_ids(encodings, self.max_length)
        second = encode(self.tokenizer, pairs, self.max_length, self.special_tokens) if pairs is not None \
            else [None] * len(ids)
        aspect_ids = self.aspect_ids(aspects) or [None] * len(ids)
        return [Item(*parts) for parts in zip(ids, second, aspect_ids)], encodings


def explanation(text: str, encoding: Encoding, item: Item, labels: list[str], probabilities: np.ndarray,
                attention: np.ndarray | None, aspect: str | None = None, top_k: int = 5, **details) -> Explanation:
    """One text's Explanation and Prediction: its words (a text with no known token was fed as one unknown token,
    and is shown whole as that one word), the most probable label, the `top_k` most attended words."""
    words = [text[start:end] for start, end in encoding.offsets[: len(item.ids)]] or [text]
    prediction = Prediction(labels[int(probabilities.argmax())],
                            {label: float(p) for label, p in zip(labels, probabilities)}, aspect=aspect)
    result = Explanation(words, attention, prediction, **details)
    if attention is not None and top_k:
        summed = result.summed
        order = np.argsort(-summed, kind="stable")[:top_k]
        prediction.top_words = [(words[i], float(summed[i])) for i in order]
    return result


def apply_threshold(predictions: list[Prediction], threshold: float | None) -> list[Prediction]:
    """Label None where the most probable label's probability is below `threshold` (the model abstains)."""
    if threshold is not None:
        for prediction in predictions:
            if prediction.probabilities[prediction.label] < threshold:
                prediction.label = None
    return predictions


def listed(names: Sequence[str], most: int = 10) -> str:
    """Names for a one-line message: the first `most` quoted, then how many more."""
    shown = ", ".join(map(repr, names[:most]))
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
