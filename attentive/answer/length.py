"""Accuracy by text length: does a model hold up on long texts?

The LAMA paper argues that several attention heads pay on longer texts: it builds YelpL from the Yelp reviews longer
than their mean length of 118 tokens (§4.1.1) and shows the heads helping there more than on IMDB (§5.2, Fig. 3).
`attentive analyze` reports the same split (texts longer than the mean of the analysed texts, and the rest) and, finer,
the quartiles of the lengths, for any model; a benchmark applies the same function to every model and peer on the same
texts, so that their rows compare.

A text's length is its count of whitespace-separated words: a measure every model and peer shares, whatever its
tokenizer (a WordPiece model reads more tokens than words, and a truncating one fewer).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def text_length(text: str) -> int:
    """The length `accuracy_by_length` buckets by: the text's whitespace-separated words."""
    return len(text.split())


def accuracy_by_length(lengths: Sequence[int], correct: Sequence[bool]) -> dict:
    """Accuracy per length bucket of texts of `lengths` (words) answered `correct`ly or not.

    `quartiles`: four buckets cut at the 25th, 50th and 75th percentiles of the lengths (a text of a cut's length
    falls in the lower bucket); a bucket that no text falls in (many texts of one length) is left out. `mean`: the
    texts up to the mean length and those longer than it, as the LAMA paper splits YelpL. Each bucket:
    `bucket`, `min_words`, `max_words`, `texts`, `accuracy`."""
    lengths = np.asarray(lengths, dtype=np.int64)
    correct = np.asarray(correct, dtype=bool)
    if lengths.shape != correct.shape:
        raise ValueError(f"{len(lengths)} lengths for {len(correct)} answers")
    if not len(lengths):
        return {"mean_words": None, "quartiles": [], "mean": []}
    cuts = np.quantile(lengths, [0.25, 0.5, 0.75])
    quartile = np.searchsorted(cuts, lengths, side="left")
    mean = float(lengths.mean())
    longer = lengths > mean
    return {"mean_words": round(mean, 2),
            "quartiles": [_bucket(f"Q{q + 1}", lengths, correct, quartile == q) for q in range(4)
                          if (quartile == q).any()],
            "mean": [_bucket(name, lengths, correct, chosen) for name, chosen in
                     ((f"<= mean ({mean:.1f} words)", ~longer), (f"> mean ({mean:.1f} words)", longer))
                     if chosen.any()]}


def _bucket(name: str, lengths: np.ndarray, correct: np.ndarray, chosen: np.ndarray) -> dict:
    return {"bucket": name, "min_words": int(lengths[chosen].min()), "max_words": int(lengths[chosen].max()),
            "texts": int(chosen.sum()), "accuracy": round(float(correct[chosen].mean()), 4)}


def length_line(found: dict) -> str:
    """One line for the terminal: "accuracy by length: Q1 (1-9 words) 0.85, ...; <= mean (19 words) 0.84, ..."."""
    def part(row: dict) -> str:
        return f"{row['bucket']} ({row['min_words']}-{row['max_words']} words) {row['accuracy']:.3f}" \
            if row["bucket"].startswith("Q") else f"{row['bucket']} {row['accuracy']:.3f}"

    return "accuracy by length: " + ", ".join(map(part, found["quartiles"])) + "; " + \
        ", ".join(map(part, found["mean"]))
