"""From the user's texts to the network's items, and from the network's numbers to answers, without PyTorch: shared
by `attentive.Model` and the exported-model runtime, so that both check, encode and answer in exactly one way.

`Inputs` knows what a model takes (single texts or pairs, aspects by category or by their words, its tokenizer,
truncation length and special tokens) and turns texts into `Item`s (attentive/text/encoding.py); `explanations`
turns per-text probabilities and attention into `Explanation`s with their `Prediction`s.

Every text is checked on its own (`text_problem`): a string, not blank, and valid Unicode (no lone surrogate, which
is what an undecodable byte of a command-line argument or a `\\ud800` escape in JSON becomes), so that a bad text is
its own one-line error naming it, before it is batched with others. A caller that has checked them already, as
`attentive predict` checks each line it reads and the server each request, says so (`Checked`) and `expand` does not
check them again.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Flag
from itertools import accumulate, chain

import numpy as np
from tokenizers import Encoding, Tokenizer

from ..errors import AttentiveError
from ..text.encoding import IdsAndWords, Item, encode, encode_batch, truncated_ids
from ..text.tokenizer import UNK_ID
from ..util.checks import as_list, texts_argument, unicode_problem
from ..util.spelling import listed
from .types import Explanation, Prediction


class Checked(Flag):
    """What the caller of `Inputs.expand` has checked already, so that it is not checked twice."""

    NOTHING = 0
    TEXTS = 1  # each text and second text, by `text_problem` (attentive predict's reading, the server's validation)
    ASPECTS = 2  # each aspect's Unicode, by `unicode_problem` (the server's validation)


class Expanded(list):
    """Texts, one per answer, as `Inputs.expand` gives them (checked), holding what it gives beside them: each one's
    second text (`pairs`, None for a single-text model) and aspect (`aspects`, None each for a model without).
    `Answerer`'s predict, predict_proba and explain take them in place of texts, and answer them as they are."""

    def __init__(self, texts: list[str], pairs: list[str] | None, aspects: list):
        super().__init__(texts)
        self.pairs, self.aspects = pairs, aspects


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
        """Each aspect, checked (`check_aspects`), as ids (`_encoded_aspects`)."""
        self.check_aspects(aspects)
        return self._encoded_aspects(aspects)

    def check_aspects(self, aspects: Sequence[str | None], unicode: bool = True) -> None:
        """An AttentiveError unless, for a model that uses aspects, each aspect is a non-blank string, of valid
        Unicode (unless `unicode` is False: the caller checked that) and one of the model's categories where it
        has them."""
        if not self.uses_aspect:
            return
        if any(not isinstance(a, str) or not a.strip() for a in aspects):
            raise AttentiveError("this model classifies a text with respect to an aspect: give one for every text")
        if unicode:
            check_unicode(aspects, "aspect")
        unknown = sorted({a for a in aspects if a not in self.aspects}) if self.aspect_type != "words" else []
        if unknown:
            raise AttentiveError(f"unknown aspect(s) {listed(unknown)}; this model knows {listed(self.aspects)}")

    def _encoded_aspects(self, aspects: Sequence[str]) -> list[list[int]] | None:
        """Each checked aspect as ids: its index in the model's categories (from 1), or its word ids for open-ended
        aspects."""
        if not self.uses_aspect:
            return None
        if self.aspect_type == "words":
            return [enc.ids or [UNK_ID] for enc in self.tokenizer.encode_batch(list(aspects))]
        index = {name: i for i, name in enumerate(self.aspects, start=1)}
        return [[index[a]] for a in aspects]

    def expand(self, texts, pairs=None, aspects=None,
               checked: Checked = Checked.NOTHING) -> tuple[list[str], list[str] | None, list]:
        """(texts, pairs, aspects), one of each per answer: a single string is one text; a single aspect applies to
        every text; an aspect model given none answers for each category it knows (text-major order), and a model
        without aspects takes none. A pair model needs a second text for every text, and a single-text model takes
        none. The texts and second texts are taken as `util.checks.texts_argument` takes them (a string or a list of
        strings), and each text, second text and aspect is checked, here and nowhere else on the answer path
        (`check_texts`, `check_aspects`): a bad one is an AttentiveError naming it; what the caller has `checked`
        already is not checked again."""
        texts, pairs = texts_argument(texts), None if pairs is None else texts_argument(pairs, "pairs")
        texts = [texts] if isinstance(texts, str) else texts
        if Checked.TEXTS not in checked:
            check_texts(texts)
        pairs = [pairs] if isinstance(pairs, str) else pairs
        if self.is_pair and pairs is None:
            raise AttentiveError("this model classifies text pairs: give a second text (--pair) for every text")
        if not self.is_pair and pairs is not None:
            raise AttentiveError("this model classifies single texts: it takes no second text")
        if pairs is not None and Checked.TEXTS not in checked:
            check_texts(pairs, "second text")
        if isinstance(aspects, str):
            aspects = [aspects] * len(texts)
        elif aspects is not None:
            aspects = as_list(aspects, "aspects")
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
        aspects = list(aspects) if aspects is not None else [None] * len(texts)
        self.check_aspects(aspects, unicode=Checked.ASPECTS not in checked)
        return texts, pairs, aspects

    def items(self, texts: list[str], pairs: list[str] | None, aspects: list, offsets: bool = True,
              words: bool = False) -> tuple[list[Item], list[Encoding | IdsAndWords]]:
        """The items to feed the network, and the first texts' encodings (for their words' character offsets, which
        only explanations need: without `offsets` the encodings hold ids alone); `texts`, `pairs` and `aspects` as
        `expand` returns them (one of each per answer, checked there and not here). A text longer than the model
        reads is tokenized only as far as it reads (attentive.text.encoding.encode_batch). With `words` (predict's
        top words) a text of the fast lane's encoding holds its whole words alone (`IdsAndWords`)."""
        encodings = encode_batch(self.tokenizer, texts, self.max_length, self.special_tokens, offsets, words)
        ids = truncated_ids(encodings, self.max_length)
        second = encode(self.tokenizer, pairs, self.max_length, self.special_tokens) if pairs is not None \
            else [None] * len(ids)
        aspect_ids = self._encoded_aspects(aspects) or [None] * len(ids)
        return [Item(*parts) for parts in zip(ids, second, aspect_ids)], encodings


def text_problem(text) -> str | None:
    """Why `text` cannot be classified ("empty: nothing to classify"), or None: it is not a string, is blank, or is
    not valid Unicode (a lone surrogate: an undecodable byte of a command-line argument, or a `\\ud800` escape in
    JSON; UTF-8 cannot encode it and the tokenizer refuses it)."""
    if not isinstance(text, str):
        return f"not a string but {type(text).__name__}"
    if not text.strip():
        return "empty: nothing to classify"
    return unicode_problem(text)


def check_texts(texts: Sequence, what: str = "text") -> list:
    """`texts`, or an AttentiveError naming the first bad one ("text 2 is empty: nothing to classify")."""
    for number, text in enumerate(texts, start=1):
        problem = text_problem(text)
        if problem is not None:
            raise AttentiveError(f"{what} {number} is {problem}")
    return texts


def check_unicode(names: Sequence, what: str) -> None:
    """An AttentiveError naming the first string of `names` (aspects) that is not valid Unicode; other values pass
    (they are checked where their meaning is known)."""
    for number, name in enumerate(names, start=1):
        problem = unicode_problem(name) if isinstance(name, str) else None
        if problem is not None:
            raise AttentiveError(f"{what} {number} is {problem}")


def explanation(text: str, encoding: Encoding, item: Item, labels: list[str], probabilities: np.ndarray,
                attention: np.ndarray | None, aspect: str | None = None, top_k: int = 5,
                thresholds: dict[str, float] | None = None, **details) -> Explanation:
    """One text's Explanation and Prediction: its whole words (`whole_words`: a word the tokenizer split into pieces,
    "yucks" as `yu` `##cks`, is one word again, its attention and every per-word score merged over its pieces by
    `merge_pieces`; a text with no known token was fed as one unknown token, and is shown whole as that one word),
    the most probable label, the `top_k` top words (of most linearised evidence, `linear_evidence`, where the backend
    gave it, those for the label alone: `for_the_label`; else the most attended). With `thresholds` (a multi-label
    model: one per label) the prediction's `labels` are those at or above their threshold (`label_set`)."""
    words, spans = whole_words(text, encoding, len(item.ids))
    if attention is not None:
        attention = merge_pieces("attention", attention, spans)
    details = {name: merge_pieces(name, value, spans) for name, value in details.items()}
    if details.get("attribution") is not None:  # the attention channel's evidence, summed over each word's pieces
        attribution = details["attribution"]
        details["attribution"] = {**attribution, "evidence": merge_pieces("evidence", attribution["evidence"], spans)}
    prediction = Prediction(labels[int(probabilities.argmax())],
                            {label: float(p) for label, p in zip(labels, probabilities)}, aspect=aspect)
    if thresholds is not None:
        prediction.labels = label_set(prediction.probabilities, thresholds)
        prediction.label = prediction.labels[0] if prediction.labels else None
    result = Explanation(words, attention, prediction, token_spans=spans, **details)
    weights = result.linear_evidence if result.linear_evidence is not None else result.summed
    if weights is not None and top_k:
        order = np.argsort(-weights, kind="stable")[:top_k]
        prediction.top_words = [(words[i], float(weights[i])) for i in order]
        if result.linear_evidence is not None:
            prediction.top_words = for_the_label(prediction.top_words)
    return result


ALIKE_TEXTS = 16  # `most_attended` pads texts of very unequal lengths in groups of this many (`_alike_lengths`)
PADDED_WORDS = 65_536  # ... where padding them all at once would give more cells than this
SORTED_WIDTH = 256  # `most_attended` sorts rows of up to this many words whole (`_ranked_first`)
FEW_TEXTS = 12  # `most_attended` computes up to this many texts one at a time (below it, a call at once costs more)


def predictions(texts: Sequence[str], encodings: Sequence[Encoding | IdsAndWords], lengths: Sequence[int],
                labels: list[str], probabilities: np.ndarray, attention: Sequence[np.ndarray | None],
                aspects: Sequence[str | None], top_k: int = 5,
                thresholds: dict[str, float] | None = None) -> list[Prediction]:
    """The Predictions `explanation` would give for the same texts (`lengths`: each one's tokens read, probabilities
    and attention one per text), made for the whole call at once and without the Explanations: `predict` answers
    only the label, the probabilities and the `top_k` most attended whole words (`top_words`), whose numbers are
    the same bit for bit (tests/answer/test_predictions.py, tests/answer/test_answer_path.py)."""
    best, rows = probabilities.argmax(1).tolist(), probabilities.tolist()
    if top_k:
        answers = [Prediction(labels[index], dict(zip(labels, row)), words, aspect) for index, row, words, aspect
                   in zip(best, rows, top_words(texts, encodings, lengths, attention, top_k), aspects)]
    else:
        answers = [Prediction(labels[index], dict(zip(labels, row)), aspect=aspect)
                   for index, row, aspect in zip(best, rows, aspects)]
    if thresholds is not None:
        for answer in answers:
            answer.labels = label_set(answer.probabilities, thresholds)
            answer.label = answer.labels[0] if answer.labels else None
    return answers


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
        encoding.words or [text] if type(encoding) is IdsAndWords else _words(text, encoding, text_sizes)
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


def _words(text: str, encoding: Encoding, sizes: list[int]) -> list[str]:
    """A text's whole words (`whole_words`' words, of `sizes` tokens each) from the tokenizer's offsets: from a
    word's first token's start to its last token's end; a text of no token is one word, the whole text."""
    offsets = encoding.offsets
    if not offsets:
        return [text]
    bounds = list(accumulate(sizes, initial=0))
    return [text[offsets[start][0]:offsets[end - 1][1]] for start, end in zip(bounds, bounds[1:])]


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


def word_sizes(word_ids: list[int | None], length: int) -> list[int]:
    """How many of a text's `length` tokens each whole word has (`whole_words`' spans), from its `word_ids`."""
    starts = word_starts(word_ids)
    return [end - start for start, end in zip(starts, [*starts[1:], length])]


def word_starts(word_ids: list[int | None]) -> list[int]:
    """The first token position of each whole word (`whole_words`' spans' starts): a token starts a word unless it
    continues the word of the token before it (the same `word_ids` entry, not None)."""
    return [position for position, word in enumerate(word_ids)
            if word is None or not position or word_ids[position - 1] != word]


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


def apply_threshold(predictions: list[Prediction], threshold: float | None) -> list[Prediction]:
    """Label None where the most probable label's probability is below `threshold` (the model abstains). A
    multi-label answer's labels are chosen again with `threshold` in place of every label's own."""
    if threshold is not None:
        for prediction in predictions:
            if prediction.labels is not None:
                prediction.labels = label_set(prediction.probabilities, dict.fromkeys(prediction.probabilities,
                                                                                     threshold))
                prediction.label = prediction.labels[0] if prediction.labels else None
            elif prediction.probabilities[prediction.label] < threshold:
                prediction.label = None
    return predictions


def label_set(probabilities: dict[str, float], thresholds: dict[str, float]) -> list[str]:
    """A multi-label answer: every label whose probability is at least its threshold, the most probable first
    (ties in the model's label order)."""
    chosen = [label for label, p in probabilities.items() if p >= thresholds[label]]
    return sorted(chosen, key=lambda label: -probabilities[label])


def thresholds_of(config: dict, where) -> dict[str, float] | None:
    """A multi-label model's per-label thresholds (config.json's `thresholds`, chosen on dev after training), None
    for a single-label model (no `multi_label: true`). A `multi_label` that is not true or false, or thresholds that
    are not one number in [0, 1] per label, are one line naming `where` (the file) and the entry."""
    flag = config.get("multi_label", False)
    if not isinstance(flag, bool):
        raise AttentiveError(f"{where}: 'multi_label' must be true or false, not {str(flag)[:40]!r}")
    if not flag:
        return None
    thresholds = config.get("thresholds")
    if not isinstance(thresholds, dict) or set(thresholds) != set(config["labels"]):
        raise AttentiveError(f"{where}: a multi-label model needs 'thresholds', one number per label")
    for label, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise AttentiveError(f"{where}: 'thresholds' of {label[:40]!r} must be a number in [0, 1], not "
                                 f"{str(value)[:40]!r}")
    return {label: float(thresholds[label]) for label in config["labels"]}


def temperature_of(config: dict) -> float:
    """The temperature a model's probabilities are computed at: config.json's `calibration: {temperature: T}`, 1 where
    there is no `calibration` (a folder saved before it existed); a value that is not a finite number > 0 is one
    line naming the entry."""
    calibration = config.get("calibration")
    if calibration is None:
        return 1.0
    value = calibration.get("temperature") if isinstance(calibration, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise AttentiveError(f"config.json: 'calibration.temperature' must be a number > 0, not {value!r}"[:200])
    return float(value)
