"""The wide channels (attentive/models/wide.py: n-grams, a pair's shared and lone words) and how explanations split
the decision between channels."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import attentive
from attentive.data.example import Dataset
from attentive.errors import AttentiveError
from attentive.models.wide import CompactNgramChannel, NgramChannel, compacted

from ..helpers import tiny_overrides


def test_word_scores_add_up_to_the_wide_logits_and_padding_scores_nothing():
    torch.manual_seed(0)
    channel = NgramChannel(vocab_size=20, classes=3, buckets=7)
    for table in (channel.unigrams, channel.bigrams):
        torch.nn.init.normal_(table.weight)
    ids = torch.tensor([[5, 6, 7, 0], [8, 9, 0, 0]])
    mask = ids != 0
    scores = channel.word_scores(ids, mask)
    assert torch.allclose(scores.sum(1), channel(ids, mask))
    assert not scores[~mask].any()
    by_hand = (channel.unigrams.weight[[8, 9]].sum(0) + channel.bigrams.weight[(8 * 1_000_003 + 9) % 7]) / 2
    assert torch.allclose(channel(ids, mask)[1], by_hand)


def test_a_new_channel_starts_silent():
    channel = NgramChannel(vocab_size=10, classes=2)
    ids = torch.tensor([[2, 3, 4]])
    assert not channel(ids, ids != 0).any()


def test_a_channel_kept_by_its_nonzero_bigram_rows_answers_as_the_dense_one_where_that_is_smaller():
    torch.manual_seed(0)
    channel = NgramChannel(vocab_size=30, classes=20, buckets=512)
    torch.nn.init.normal_(channel.unigrams.weight)
    with torch.no_grad():
        channel.bigrams.weight[torch.randint(512, (40,))] = torch.randn(40, 20)  # rows training reached
    compact = compacted(channel)
    assert isinstance(compact, CompactNgramChannel) and compact.rows.num_embeddings <= 41
    ids = torch.randint(1, 30, (16, 12))
    mask = torch.arange(12)[None] < torch.randint(1, 13, (16, 1))
    assert torch.equal(compact(ids, mask), channel(ids, mask)) and channel(ids, mask).any()
    few_classes = NgramChannel(vocab_size=30, classes=2, buckets=512)  # a row index costs more than 2 one-byte scores
    assert compacted(few_classes) is few_classes


def test_a_wide_and_deep_model_explains_each_channels_part_of_the_margin(sst2_small, tmp_path):
    data = Dataset("tiny", {"train": sst2_small.splits["train"][:200], "dev": sst2_small.splits["dev"][:40],
                            "test": []}, sst2_small.labels)
    overrides = tiny_overrides("lama_ctx") + ["wide.type=ngrams", "wide.buckets=4096", "train.wide_lr=0.05"]
    model = attentive.train(data, "lama_ctx", tmp_path, overrides=overrides, show_progress=False)
    [explanation] = attentive.load(tmp_path).explain("a gorgeous , witty film")
    margins = explanation.channel_margins()
    assert set(margins) == {"attention", "ngrams"} and margins["ngrams"] != 0
    total = sum(explanation.channels.values())
    assert sum(margins.values()) == pytest.approx(float(np.sort(total)[-1] - np.sort(total)[-2]), abs=1e-5)
    calibrated = total / model.temperature  # the probabilities are calibrated (a temperature fitted on dev)
    probabilities = np.exp(calibrated) / np.exp(calibrated).sum()
    assert probabilities.max() == pytest.approx(max(explanation.prediction.probabilities.values()), abs=1e-5)
    assert explanation.ngram_words.sum(0) == pytest.approx(explanation.channels["ngrams"], abs=1e-5)
    from attentive.explain.html import explanation_html

    assert f"ngrams {margins['ngrams']:+.2f}" in explanation_html([explanation])


def test_a_pair_recipe_refuses_the_ngram_channel_and_pair_words_is_unknown():
    from attentive.models.classifier import build_model
    from attentive.recipes.loader import load_recipe

    with pytest.raises(AttentiveError, match="wide.type ngrams reads a single text: pair recipes take none"):
        build_model(load_recipe("lama_pair", ["wide.type=ngrams", "embedder.vectors=random"]), 50, 3)
    with pytest.raises(AttentiveError, match=r"^--set wide.type=pair_words: wide.type must be 'none' or 'ngrams', "
                                             r"not 'pair_words'$"):
        load_recipe("lama_ctx", ["wide.type=pair_words", "embedder.vectors=random"])
