"""`predict`'s top words for a whole call at once: each text's most attended whole words (or those of most linearised
evidence for the label), found with a few numpy calls over every text of the call rather than one text at a time,
and the same bit for bit as `explanation` (attentive/answer/outputs.py) finds them for one text."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import accumulate, chain

import numpy as np
from tokenizers import Encoding

from ..text.encoding import IdsAndWords
from .words import word_sizes, words_of

ALIKE_TEXTS = 16  # `most_attended` pads texts of very unequal lengths in groups of this many (`_alike_lengths`)
PADDED_WORDS = 65_536  # ... where padding them all at once would give more cells than this
SORTED_WIDTH = 256  # `most_attended` sorts rows of up to this many words whole (`_ranked_first`)
FEW_TEXTS = 12  # `most_attended` computes up to this many texts one at a time (below it, a call at once costs more)


def top_words(texts: Sequence[str], encodings: Sequence[Encoding | IdsAndWords], lengths: Sequence[int],
              attention: Sequence[np.ndarray | None], top_k: int) -> list[list[tuple[str, float]]]:
    """Each text's `top_k` most attended whole words and their summed attention, as `explanation` gives them ([]
    where the model gives no attention): the words are found (`word_sizes`, or the fast lane's `IdsAndWords`) and
    cut from the text, and the attention merged over their pieces, for the whole call at once (`most_attended`).
    Given each text's linearised evidence (one value a token) in place of its attention, the words of most evidence,
    each with its evidence summed over its pieces, those for the label alone (`for_the_label`)."""
    types = {None if weights is None else (weights.dtype, weights.ndim) for weights in attention}
    if len(types) == 1 and None not in types:  # one backend's weights: every text's, of one type and kind
        return _top_words(texts, encodings, lengths, attention, top_k)
    found: list[list[tuple[str, float]]] = [[] for _ in texts]
    for kind in types - {None}:
        group = [index for index, weights in enumerate(attention)
                 if weights is not None and (weights.dtype, weights.ndim) == kind]
        for index, words in zip(group, _top_words(*([values[index] for index in group]
                                                    for values in (texts, encodings, lengths, attention)), top_k)):
            found[index] = words
    return found


def _top_words(texts: Sequence[str], encodings: Sequence[Encoding | IdsAndWords], lengths: Sequence[int],
               attention: Sequence[np.ndarray], top_k: int) -> list[list[tuple[str, float]]]:
    """`top_words` of texts that all have weights, of one type and kind."""
    sizes = [encoding.sizes or [1] if type(encoding) is IdsAndWords  # no token: fed as one unknown token
             else word_sizes(encoding.word_ids[:length], length) or [1]
             for encoding, length in zip(encodings, lengths)]
    words = list(chain.from_iterable(  # every text's words, as it spells them; a text of no token is one word
        encoding.words or [text] if type(encoding) is IdsAndWords else words_of(text, encoding, text_sizes)
        for text, encoding, text_sizes in zip(texts, encodings, sizes)))
    chosen, weights, counts = most_attended(attention, sizes, top_k)
    pairs = list(zip(map(words.__getitem__, chosen), weights))
    bounds = [0, *accumulate(counts)]
    found = [pairs[start:end] for start, end in zip(bounds, bounds[1:])]
    return [for_the_label(words) for words in found] if attention[0].ndim == 1 else found


def for_the_label(ranked: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Words ranked by evidence, those for the answered label alone (evidence above 0): a word against it is no
    reason for it (the page and the HTML report show it, on the other side of the scale)."""
    return [(word, value) for word, value in ranked if value > 0]


def most_attended(attention: Sequence[np.ndarray], sizes: Sequence[list[int]],
                  top_k: int) -> tuple[list[int], list[float], list[int]]:
    """The `top_k` most attended whole words of each text (its attention, heads x tokens, and how many tokens each
    of its words has, adding up to its tokens), computed for all texts at once: the chosen words, most attended
    first (ties in word order), text after text, as indices into all the texts' words one after the other; their
    weights; how many each text has (its words, at most `top_k`). Given each text's linearised evidence (tokens) in
    place of its attention, the words of most evidence, each word's evidence summed over its pieces (not divided).

    The numbers are bit for bit those of `explanation` and `Explanation.summed`, which compute one text at a time:
    its attention merged over each word's pieces (`merge_pieces`: np.add.reduceat, which sums the same tokens here,
    the texts side by side), summed over the heads (head after head, for each word, either way; a text of one word
    has the weight x / x = 1 however its x is summed), divided by its words' sum (`_sums`) and sorted stably (the
    texts as the rows of one array, each padded with NaN, which sorts after every number and, stably, after the
    text's own NaN)."""
    evidence = attention[0].ndim == 1
    if evidence:  # one row, added as it is
        attention = [values[None] for values in attention]
    if len(attention) <= FEW_TEXTS:
        return _most_attended_each(attention, sizes, top_k, evidence)
    counts = np.array(list(map(len, sizes)))
    first = np.cumsum(counts) - counts
    flat = np.fromiter(chain.from_iterable(sizes), np.intp, int(counts.sum()))
    starts = np.cumsum(flat) - flat
    tokens = np.concatenate(attention, axis=-1)
    total = tokens.sum(0)[starts]  # a word of one token: its heads summed, head after head
    pieced = np.flatnonzero(flat > 1)
    if len(pieced):  # a word of pieces: each head's sum over its pieces (np.add.reduceat), summed head after head
        bounds = np.stack([starts[pieced], starts[pieced] + flat[pieced]], 1).ravel()
        merged = np.add.reduceat(tokens, bounds[:-1] if bounds[-1] == tokens.shape[-1] else bounds, axis=-1)
        total[pieced] = functools.reduce(np.add, merged[:, 0::2])
    groups = _alike_lengths(counts)
    if len(groups) == 1:
        top, weights, shown = _ranked_words(total, first, counts, top_k, evidence)
    else:
        top, weights = np.zeros((len(counts), top_k), np.intp), np.zeros((len(counts), top_k), total.dtype)
        shown = np.zeros((len(counts), top_k), bool)
        for rows in groups:
            ranked = _ranked_words(total, first[rows], counts[rows], top_k, evidence)
            width = ranked[0].shape[1]
            top[rows, :width], weights[rows, :width], shown[rows, :width] = ranked
    return top[shown].tolist(), weights[shown].tolist(), np.minimum(counts, top_k).tolist()


def _ranked_words(total: np.ndarray, first: np.ndarray, counts: np.ndarray, top_k: int,
                  evidence: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`most_attended`'s ranking of some texts, padded together (each `counts` words from `first` in `total`, each
    word's weight): their top words as indices into `total` (texts x at most `top_k`), their weights, and which are
    words (not padding)."""
    columns = np.arange(counts.max())
    padded = total[np.minimum(first[:, None] + columns, len(total) - 1)]  # texts x their most words
    summed = padded if evidence else padded / _sums(padded, counts)[:, None]
    past = columns >= counts[:, None]
    summed[past] = np.nan
    ranked = _ranked_first(summed, top_k)
    return ranked + first[:, None], np.take_along_axis(summed, ranked, 1), ~past[:, :ranked.shape[1]]


def _alike_lengths(counts: np.ndarray) -> list[np.ndarray]:
    """The texts (their positions) in the groups `most_attended` pads together: all of them, unless padding them to
    the longest would give more than PADDED_WORDS cells and more than double their words; then groups of
    ALIKE_TEXTS, from the fewest words to the most (20 Newsgroups' messages, a few hundred words to several thousand
    in one call: benchmarks/DECISIONS.md, "`predict` on long texts")."""
    if counts.max() * len(counts) <= max(PADDED_WORDS, 2 * counts.sum()):
        return [np.arange(len(counts))]
    by_length = np.argsort(counts, kind="stable")
    return [by_length[start:start + ALIKE_TEXTS] for start in range(0, len(counts), ALIKE_TEXTS)]


def _ranked_first(summed: np.ndarray, top_k: int) -> np.ndarray:
    """`np.argsort(-summed, axis=1, kind="stable")[:, :top_k]`, the same positions: each row's `top_k` largest
    values, ties in position order, NaN last. Rows wider than SORTED_WIDTH sort only their values at or above their
    `top_k`-th largest (found by np.partition, which puts NaN last as the sort does; a row of fewer numbers sorts
    whole), by value and then position (benchmarks/DECISIONS.md, "`predict` on long texts")."""
    if not top_k or summed.shape[1] <= max(SORTED_WIDTH, top_k):
        return np.argsort(-summed, axis=1, kind="stable")[:, :top_k]
    negated = -summed
    kth = np.partition(negated, top_k - 1, axis=1)[:, top_k - 1]
    rows, columns = np.nonzero((negated <= kth[:, None]) | np.isnan(kth)[:, None])
    order = np.lexsort((columns, negated[rows, columns], rows))  # by row, then value, then position
    rows, columns = rows[order], columns[order]
    return columns[np.searchsorted(rows, np.arange(len(summed)))[:, None] + np.arange(top_k)]


def _most_attended_each(attention: Sequence[np.ndarray], sizes: Sequence[list[int]], top_k: int,
                        evidence: bool = False) -> tuple[list[int], list[float], list[int]]:
    """`most_attended` one text at a time, as `explanation` and `Explanation.summed` compute it: for a few texts
    (one, as the server answers a request), which numpy's calls cost more for than their work."""
    chosen: list[int] = []
    weights: list[float] = []
    counts: list[int] = []
    first = 0
    for values, text_sizes in zip(attention, sizes):
        if len(text_sizes) < values.shape[-1]:
            values = np.add.reduceat(values, list(accumulate(text_sizes[:-1], initial=0)), axis=-1)
        total = values.sum(0)
        summed = total if evidence else total / total.sum()
        top = np.argsort(-summed, kind="stable")[:top_k]
        chosen += (top + first).tolist()
        weights += summed[top].tolist()
        counts.append(len(top))
        first += len(text_sizes)
    return chosen, weights, counts


def _sums(padded: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each row's first `counts[i]` values summed as numpy sums them alone (its pairwise sum depends on how many
    they are): the rows of one count summed as the rows of one array, which numpy sums as it sums each alone."""
    order = np.argsort(counts, kind="stable")
    ordered, rows = counts[order], padded[order]
    sums = np.empty(len(counts), padded.dtype)
    bounds = [0, *(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist(), len(ordered)]
    for start, end in zip(bounds, bounds[1:]):
        np.add.reduce(rows[start:end, :ordered[start]], axis=1, out=sums[start:end])
    result = np.empty_like(sums)
    result[order] = sums
    return result
