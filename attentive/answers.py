"""What a model answers, as plain data (numpy, no PyTorch): a `Prediction` per text, an `Explanation` with its words
and attention. Shared by `attentive.Model` and the torch-free `attentive.runtime`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Prediction:
    label: str | None  # None: no label reached `predict`'s threshold
    probabilities: dict[str, float]
    top_words: list[tuple[str, float]] = field(default_factory=list)  # most attended words, heads summed
    aspect: str | None = None  # the aspect this answer is about (aspect models)

    @property
    def headline(self) -> str:
        """"positive (0.93)", with "for aspect service" when the answer is about an aspect."""
        about = f" for aspect {self.aspect}" if self.aspect is not None else ""
        if self.label is None:
            best = max(self.probabilities, key=self.probabilities.get)
            return f"no label (best {best}, {self.probabilities[best]:.2f}, is below the threshold){about}"
        return f"{self.label} ({self.probabilities[self.label]:.2f}){about}"

    def as_dict(self) -> dict:
        aspect = {"aspect": self.aspect} if self.aspect is not None else {}
        return {**aspect, "label": self.label, "probabilities": self.probabilities,
                "top_words": [[word, round(weight, 4)] for word, weight in self.top_words]}


@dataclass
class Explanation:
    """One text's words and its attention: heads x words, plus the summed-and-renormalised view (Lin et al. §2.3).

    The words are whole words: a word the tokenizer split into WordPiece pieces ("yucks" as `yu` `##cks`) is one
    word, its attention, polarity and n-gram scores summed over its pieces and its score their log-sum-exp
    (attentive.inputs.whole_words, merge_pieces); `token_spans` says which tokens each word was read as.

    `scores` are the attention scores before the softmax (heads x words); `polarity` (words x classes) is each
    word's own push towards each class (Sun & Lu 2020's s_j; see TextClassifier.word_polarity), None where the
    model's pooler does not allow it."""

    words: list[str]
    attention: np.ndarray | None
    prediction: Prediction
    scores: np.ndarray | None = None
    polarity: np.ndarray | None = None
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits over the classes
    ngram_words: np.ndarray | None = None  # words x classes: each word's share of the wide channel's logits
    #   (n-grams; for a pair model, the first text's words' share of the pair-word channel's)
    token_spans: list[tuple[int, int]] | None = None  # per word, the tokens it was read as: positions [start, end)
    #   (a word split into WordPiece pieces spans several; the per-word arrays above are summed over them)

    def channel_margins(self) -> dict[str, float] | None:
        """Each channel's part of the decision: its logit of the predicted label minus its logit of the runner-up
        (the label the model ranked second). The parts add up to the whole model's margin, so a channel's share of
        the decision can be read off without approximation; None for models with one channel."""
        if self.channels is None:
            return None
        total = sum(self.channels.values())
        first, second = np.argsort(-total, kind="stable")[:2] if len(total) > 1 else (0, 0)
        return {name: float(logits[first] - logits[second]) for name, logits in self.channels.items()}

    @property
    def summed(self) -> np.ndarray | None:
        if self.attention is None:
            return None
        total = self.attention.sum(0)
        return total / total.sum()
