"""Seeded augmentation of texts, to make transfer texts for knowledge distillation.

After Tang et al. 2019, "Distilling Task-Specific Knowledge from BERT into Simple Neural Networks", §3.2: each word
is masked with probability p_mask, else replaced with probability p_pos, and the whole text is then replaced by a
random n-gram of it (n uniform in 1..5) with probability p_ng. Two deviations: our tokenizer has no mask token that
is not also a word, so masking is deletion of the word; and where Tang et al. replace a word by a random word of the
same part of speech, we replace it by one of its nearest neighbours in a word-vector space (`neighbours`,
`glove_neighbours`). The copies of a text depend only on the text, the copy number, the seed, the settings and the
neighbours, never on the other texts of the list.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_BLOCK = 2048  # rows of the similarity matrix computed at a time: 2,048 x 20,000 floats is 160 MB


def words(text: str) -> list[str]:
    """The words and punctuation marks of `text`, in order."""
    return _WORD.findall(text)


def join(tokens: Sequence[str]) -> str:
    """`tokens` joined with single spaces."""
    return " ".join(tokens)


def neighbours(vocabulary: list[str], matrix: np.ndarray, k: int = 5) -> dict[str, list[str]]:
    """Each word's k nearest other words of `vocabulary` by cosine similarity of the rows of `matrix`, most similar
    first, ties broken by vocabulary order. An all-zero row means no vector: no neighbours, nobody's neighbour."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(vocabulary):
        raise ValueError(f"matrix must have one row per vocabulary word ({len(vocabulary)}), not shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1)
    has_vector = norms > 0
    unit = matrix / np.where(has_vector, norms, 1.0)[:, None]
    result: dict[str, list[str]] = {word: [] for word in vocabulary}
    k = min(k, int(has_vector.sum()) - 1)
    if k <= 0:
        return result
    for start in range(0, len(vocabulary), _BLOCK):
        rows = np.arange(start, min(start + _BLOCK, len(vocabulary)))
        similarity = unit[rows] @ unit.T
        similarity[:, ~has_vector] = -np.inf
        similarity[np.arange(len(rows)), rows] = -np.inf  # a word is not its own neighbour
        kth = np.partition(similarity, -k, axis=1)[:, -k]  # the k-th largest similarity of each row
        for row, scores, bound in zip(rows, similarity, kth):
            if has_vector[row]:
                candidates = np.flatnonzero(scores >= bound)  # k of them, more on ties, in vocabulary order
                best = candidates[np.argsort(-scores[candidates], kind="stable")[:k]]
                result[vocabulary[row]] = [vocabulary[i] for i in best]
    return result


def glove_neighbours(vocabulary: list[str], k: int = 5) -> dict[str, list[str]]:
    """`neighbours` over GloVe 6B-50d vectors, of the lower-cased `vocabulary` (its distinct lower-cased words are
    the keys and the neighbours). Words GloVe does not know get none. Only the vocabulary's rows are read."""
    from .embeddings import packaged_glove

    embeddings, position = packaged_glove()
    lowered = list(dict.fromkeys(word.lower() for word in vocabulary))
    known = [i for i, word in enumerate(lowered) if word in position]
    matrix = np.zeros((len(lowered), embeddings.shape[1]), dtype=np.float32)
    matrix[known] = embeddings[[position[lowered[i]] for i in known]]
    return neighbours(lowered, matrix, k)


@dataclass(frozen=True)
class Augmentation:
    """How to augment a text (Tang et al. 2019 §3.2). `mask`: probability a word is deleted (Tang et al.'s [MASK];
    our tokenizer has no mask token that is not also a word, so the word is removed). `replace`: probability a word
    that has neighbours is replaced by one of them, chosen uniformly (Tang et al. use a word of the same part of
    speech; we use a word-vector neighbour). `ngram`: probability the augmented text is replaced by a random n-gram
    of it, n uniform in 1..5. `copies`: augmented texts per input text."""

    mask: float = 0.1
    replace: float = 0.1
    ngram: float = 0.25
    copies: int = 2

    def __post_init__(self):
        for name in ("mask", "replace", "ngram"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Augmentation.{name} is a probability and must be in [0, 1], not {value!r}.")
        if self.copies < 0:
            raise ValueError(f"Augmentation.copies must be 0 or more, not {self.copies!r}.")


def augment(texts: Sequence[str], how: Augmentation, seed: int,
            neighbours: dict[str, list[str]] | None = None) -> list[str]:
    """`how.copies` augmented copies of each text, in input order (text 0's copies first). Words are matched
    against `neighbours` lower-cased. A copy is never empty; a text with no words is copied unchanged."""
    if seed < 0:
        raise ValueError(f"seed must be 0 or more, not {seed!r}.")
    return [_copy(text, how, np.random.default_rng([seed, _text_hash(text), copy]), neighbours or {})
            for text in texts for copy in range(how.copies)]


def augment_with_neighbours(texts: Sequence[str], how: Augmentation, seed: int) -> list[str]:
    """`augment` with the GloVe neighbours (`glove_neighbours`) of the texts' own lower-cased words, read only where
    copies replace words."""
    neighbours = None
    if how.copies and how.replace:
        neighbours = glove_neighbours(sorted({word.lower() for text in texts for word in words(text)}))
    return augment(texts, how, seed, neighbours)


def _text_hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "little")


def _copy(text: str, how: Augmentation, rng: np.random.Generator, neighbours: dict[str, list[str]]) -> str:
    original = words(text)
    if not original:
        return text
    kept = []
    for word in original:
        if rng.random() < how.mask:
            continue
        options = neighbours.get(word.lower())
        if options and rng.random() < how.replace:
            word = options[rng.integers(len(options))]
        kept.append(word)
    if not kept:
        kept = [original[rng.integers(len(original))]]
    if rng.random() < how.ngram:
        n = min(int(rng.integers(1, 6)), len(kept))
        start = int(rng.integers(len(kept) - n + 1))
        kept = kept[start:start + n]
    return join(kept)
