"""predict's answers for a whole call at once (attentive/answer/outputs.py `predictions`, its top words by
attentive/answer/top_words.py `most_attended`) are bit for bit the answers `explanation` builds one text at a time:
the same top words, in the same order (ties in word order), with the same weights; the same labels, probabilities,
aspects and label sets."""
from __future__ import annotations

import numpy as np
import pytest

from attentive.answer import top_words
from attentive.answer.inputs import Inputs
from attentive.answer.outputs import explanation, predictions
from attentive.answer.top_words import most_attended
from attentive.answer.types import Explanation, Prediction
from attentive.answer.words import merge_pieces
from attentive.data.registry import load_dataset
from attentive.text.tokenizer import build_tokenizer


def _one_at_a_time(values: np.ndarray, sizes: list[int], top_k: int) -> tuple[list[int], list[float]]:
    """A text's top words as `explanation` finds them: pieces merged (`merge_pieces`), `Explanation.summed`, a stable
    sort."""
    ends = np.cumsum(sizes).tolist()
    spans = [(end - size, end) for size, end in zip(sizes, ends)]
    summed = Explanation([""] * len(spans), merge_pieces("attention", values, spans), Prediction("", {})).summed
    order = np.argsort(-summed, kind="stable")[:top_k]
    return order.tolist(), summed[order].tolist()


def _random_texts(rng: np.random.Generator, count: int, heads: int, dtype) -> tuple[list, list]:
    """Attention (heads x tokens, rows of one padded batch as a backend cuts them) and word sizes of `count` texts
    of every kind of length: one token, a few, more than 8 and 128 words (where numpy's pairwise sum regroups)."""
    width = 300
    batch = (rng.random((count, heads, width)) ** 4).astype(dtype)
    batch /= batch.sum(-1, keepdims=True)
    if count > 3:
        batch[1] = np.round(batch[1] * 8) / 8  # ties
        batch[2, :, :] = 0  # no attention at all: 0 / 0
        batch[3, 0, 0] = np.nan
    attention, sizes = [], []
    for row in range(count):
        length = int(rng.choice([1, 2, 3, 7, 8, 9, 17, 40, 129, 257, width]))
        cuts = rng.random(length) < rng.choice([0.0, 0.3, 1.0])
        cuts[0] = False
        attention.append(batch[row, :, :length])
        starts = [position for position in range(length) if not cuts[position]]
        sizes.append([end - start for start, end in zip(starts, [*starts[1:], length])])
    return attention, sizes


# Attention of all zeros (0 / 0) and a NaN are fed on purpose: both paths must give the same NaNs, and numpy warns.
ZERO_AND_NAN = pytest.mark.filterwarnings("ignore:(invalid value|divide by zero) encountered:RuntimeWarning")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("heads", [1, 3, 10])
@pytest.mark.parametrize("top_k", [1, 5, 50])
@pytest.mark.parametrize("grouped", [False, True], ids=["as-set", "groups-and-partition"])
@ZERO_AND_NAN
def test_the_whole_call_s_top_words_are_each_text_s_own(dtype, heads, top_k, grouped, monkeypatch):
    monkeypatch.setattr(top_words, "FEW_TEXTS", 0)  # even one text at once
    if grouped:  # the texts padded in groups of three by length, every row wider than 4 words ranked by partition
        monkeypatch.setattr(top_words, "PADDED_WORDS", 0)
        monkeypatch.setattr(top_words, "ALIKE_TEXTS", 3)
        monkeypatch.setattr(top_words, "SORTED_WIDTH", 4)
    rng = np.random.default_rng(heads * 100 + top_k)
    for count in (1, 4, 5, 64):
        attention, sizes = _random_texts(rng, count, heads, dtype)
        positions, weights, counts = most_attended(attention, sizes, top_k)
        assert sum(counts) == len(positions) == len(weights)
        first = words = 0
        for values, text_sizes, shown in zip(attention, sizes, counts):
            expected = _one_at_a_time(values, text_sizes, top_k)
            got = positions[first:first + shown], weights[first:first + shown]
            assert [position - words for position in got[0]] == expected[0]  # indices into all the texts' words
            assert np.array_equal(got[1], expected[1], equal_nan=True)  # bit for bit: == on floats, NaN as NaN
            first += shown
            words += len(text_sizes)


def test_a_partial_ranking_gives_the_stable_sort_s_first_positions(monkeypatch):
    """Ties (in position order), NaN (last), -0.0 beside 0.0, rows of fewer numbers than asked for."""
    monkeypatch.setattr(top_words, "SORTED_WIDTH", 0)
    rng = np.random.default_rng(3)
    for _ in range(300):
        rows, width = rng.integers(1, 20), rng.integers(1, 120)
        values = np.round(rng.random((rows, width)) * rng.choice([2, 4, 1000])) / 4
        values[np.arange(width)[None] >= rng.integers(0, width + 1, rows)[:, None]] = np.nan
        values[values == 0] = rng.choice([0.0, -0.0])
        for top_k in (0, 1, 2, 5, 50):
            assert np.array_equal(top_words._ranked_first(values, top_k),
                                  np.argsort(-values, axis=1, kind="stable")[:, :top_k])


@ZERO_AND_NAN
def test_the_few_texts_path_and_the_batch_path_agree(monkeypatch):
    rng = np.random.default_rng(7)
    attention, sizes = _random_texts(rng, 40, 4, np.float32)
    batch = most_attended(attention, sizes, 5)
    monkeypatch.setattr(top_words, "FEW_TEXTS", 10**9)
    each = most_attended(attention, sizes, 5)
    assert batch[0] == each[0] and batch[2] == each[2]
    assert np.array_equal(batch[1], each[1], equal_nan=True)


TEXTS = ["a gorgeous , witty film", "the the the film film", "zzzz", "naïve but warm-hearted", "Dull.",
         "unbelievable unbelievably believers", "x", "the plot is a mess but the actors shine " * 30, "good " * 100]


@pytest.fixture(scope="module")
def tokenizers():
    texts = [row.text for row in load_dataset("sst2_sample").splits["train"]][:300]
    pieces = sorted({word[:i] for text in texts for word in text.lower().split() for i in (2, 3)}) + \
        ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    return {"words": build_tokenizer(texts, min_frequency=2),
            "cased": build_tokenizer(texts, min_frequency=2, lowercase=False),
            "pieces": build_tokenizer(texts, min_frequency=3, pieces=pieces)}


@pytest.mark.parametrize("few", [0, 10**9], ids=["at-once", "one-at-a-time"])
@pytest.mark.parametrize("name", ["words", "cased", "pieces"])
@pytest.mark.parametrize("top_k", [0, 1, 5, 50])
@pytest.mark.parametrize("kind", ["single", "pairs", "aspects", "multi-label"])
def test_predictions_are_the_explanations_own(tokenizers, name, top_k, kind, few, monkeypatch):
    """Every text of a call (fast lane and tokenizer's encodings, a text of one unknown token, a long text cut at
    `max_length`, ties), of single-text, pair, aspect and multi-label models, with top_k 0."""
    monkeypatch.setattr(top_words, "FEW_TEXTS", few)
    labels = ["negative", "neutral", "positive"]
    texts = TEXTS * 2
    aspect_names = ["food", "service"]
    model = Inputs(tokenizers[name], kind == "pairs", kind == "aspects", aspect_names if kind == "aspects" else [],
                   "learned" if kind == "aspects" else "none", 64, False)
    texts, pairs, aspects = model.expand(texts, ["a second text"] * len(texts) if kind == "pairs" else None)
    items, encodings = model.items(texts, pairs, aspects, offsets=bool(top_k), words=bool(top_k))
    full, full_encodings = model.items(texts, pairs, aspects)  # explain's: the tokenizer's encodings
    assert [item.ids for item in items] == [item.ids for item in full]
    rng = np.random.default_rng(len(name) + top_k)
    probabilities = rng.random((len(items), len(labels))).astype(np.float32)
    probabilities[0] = [0.25, 0.5, 0.25]  # a tie of labels
    attention = []
    for item in items:
        weights = rng.random((3, len(item.ids))).astype(np.float32)
        if len(item.ids) > 2:
            weights[:, 1] = weights[:, 2]  # tied words
        attention.append(weights / weights.sum(-1, keepdims=True))
    thresholds = dict(zip(labels, [0.3, 0.5, 0.7])) if kind == "multi-label" else None
    lengths = [len(item.ids) for item in items]
    got = predictions(texts, encodings, lengths, labels, probabilities, attention, aspects, top_k, thresholds)
    expected = [explanation(text, encoding, item, labels, probs, weights, aspect, top_k, thresholds).prediction
                for text, encoding, item, probs, weights, aspect in
                zip(texts, full_encodings, full, probabilities, attention, aspects)]
    assert got == expected
    if top_k:
        assert got[texts.index("zzzz")].top_words == [("zzzz", 1.0)]  # one unknown token: the text whole
    without = predictions(texts, encodings, lengths, labels, probabilities, [None] * len(texts), aspects, top_k,
                          thresholds)
    assert [answer.top_words for answer in without] == [[]] * len(texts)  # a model without attention


def test_texts_without_attention_or_of_another_type_are_answered_apart(tokenizers, monkeypatch):
    """A backend gives every text's attention, of one type; should one not, each type is answered as a group and a
    text without attention has no top words."""
    monkeypatch.setattr(top_words, "FEW_TEXTS", 0)
    model = Inputs(tokenizers["pieces"], False, False, [], "none", None, False)
    texts, pairs, aspects = model.expand(TEXTS * 3)
    items, encodings = model.items(texts, pairs, aspects, words=True)
    full, full_encodings = model.items(texts, pairs, aspects)
    rng = np.random.default_rng(3)
    attention = [rng.random((2, len(item.ids))).astype(np.float64 if index % 3 else np.float32)
                 if index % 4 else None for index, item in enumerate(items)]
    probabilities = rng.random((len(items), 2)).astype(np.float32)
    got = predictions(texts, encodings, [len(item.ids) for item in items], ["a", "b"], probabilities, attention,
                      aspects, 3)
    expected = [explanation(text, encoding, item, ["a", "b"], probs, weights, None, 3).prediction
                for text, encoding, item, probs, weights in zip(texts, full_encodings, full, probabilities, attention)]
    assert got == expected
    assert [bool(answer.top_words) for answer in got] == [weights is not None for weights in attention]


def test_a_text_of_no_token_is_one_word_the_text_whole(tokenizers, monkeypatch):
    """A text the tokenizer finds no token in is fed as one unknown token, and shown whole as one word, by either
    lane's encoding."""
    from attentive.text.encoding import IdsAndWords, Item

    text = "\u200b"
    encodings = [IdsAndWords([], [], []), tokenizers["words"].encode("", add_special_tokens=False)] * 3
    attention = [np.array([[1.0], [1.0]], dtype=np.float32)] * len(encodings)
    probabilities = np.full((len(encodings), 2), 0.5, dtype=np.float32)
    for count, few in ((1, 10**9), (len(encodings), 0)):  # one text at a time, and the whole call at once
        monkeypatch.setattr(top_words, "FEW_TEXTS", few)
        got = predictions([text] * count, encodings[:count], [1] * count, ["a", "b"], probabilities[:count],
                          attention[:count], [None] * count, 5)
        expected = explanation(text, encodings[1], Item([1]), ["a", "b"], probabilities[0], attention[0]).prediction
        assert got == [expected] * count and expected.top_words == [(text, 1.0)]
