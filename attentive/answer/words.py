"""A text's whole words from the tokens the model read: a word the tokenizer split into pieces ("yucks" as `yu`
`##cks`) is one word again (`whole_words`, `word_sizes`), and each per-token value of an answer is merged over its
pieces (`merge_pieces`), so that explanations and `predict`'s top words show the words the user wrote."""
from __future__ import annotations

from itertools import accumulate

import numpy as np
from tokenizers import Encoding


def word_sizes(word_ids: list[int | None], length: int) -> list[int]:
    """How many of a text's `length` tokens each whole word has (`whole_words`' spans), from its `word_ids`."""
    starts = word_starts(word_ids)
    return [end - start for start, end in zip(starts, [*starts[1:], length])]


def word_starts(word_ids: list[int | None]) -> list[int]:
    """The first token position of each whole word (`whole_words`' spans' starts): a token starts a word unless it
    continues the word of the token before it (the same `word_ids` entry, not None)."""
    return [position for position, word in enumerate(word_ids)
            if word is None or not position or word_ids[position - 1] != word]


def words_of(text: str, encoding: Encoding, sizes: list[int]) -> list[str]:
    """A text's whole words (`whole_words`' words, of `sizes` tokens each) from the tokenizer's offsets: from a
    word's first token's start to its last token's end; a text of no token is one word, the whole text."""
    offsets = encoding.offsets
    if not offsets:
        return [text]
    bounds = list(accumulate(sizes, initial=0))
    return [text[offsets[start][0]:offsets[end - 1][1]] for start, end in zip(bounds, bounds[1:])]


def whole_words(text: str, encoding: Encoding, length: int) -> tuple[list[str], list[tuple[int, int]]]:
    """The words of a text's first `length` tokens (those the model read), and each word's tokens as a span
    [start, end) of token positions: the consecutive tokens of one pre-tokenized word (the same `word_ids` entry:
    a word and its `##` pieces) are one word, shown as the text from its first token's start to its last token's end.
    A token of no word (a special token, [CLS] or [SEP]) is a word of its own, as is each token of a word-level
    tokenizer. A text with no token (fed as one unknown token) is one word, the whole text."""
    offsets = encoding.offsets[:length]
    if not offsets:
        return [text], [(0, length)]
    word_ids = encoding.word_ids[:length]
    spans: list[tuple[int, int]] = []
    for position, word in enumerate(word_ids):
        if word is not None and position and word_ids[position - 1] == word:
            spans[-1] = (spans[-1][0], position + 1)
        else:
            spans.append((position, position + 1))
    return [text[offsets[start][0]:offsets[end - 1][1]] for start, end in spans], spans


# How each per-token array of an Explanation becomes per-word: its words axis, and how a word's pieces combine.
# Weights and additive scores (Sun & Lu's polarity, the wide channel's share of the logits) are summed, so that they
# still add up over the words to what they added up to over the tokens; pre-softmax attention scores combine by
# log-sum-exp, the score whose softmax is the word's summed weight (so that score and weight stay consistent).
PER_TOKEN = {"attention": (-1, np.add), "scores": (-1, np.logaddexp), "polarity": (0, np.add),
             "ngram_words": (0, np.add), "evidence": (0, np.add), "linear_evidence": (0, np.add)}


def merge_pieces(name: str, values, spans: list[tuple[int, int]]):
    """`values` (an Explanation's field `name`) with its words axis merged over `spans` (`whole_words`); fields that
    are not per token (a channel's logits) and values where every word is one token are returned as they are."""
    if values is None or name not in PER_TOKEN or all(end - start == 1 for start, end in spans):
        return values
    axis, combine = PER_TOKEN[name]
    values = np.asarray(values)
    if values.shape[axis] != spans[-1][1]:
        raise ValueError(f"{name} has {values.shape[axis]} tokens for {spans[-1][1]}")
    return combine.reduceat(values, [start for start, _ in spans], axis=axis)
