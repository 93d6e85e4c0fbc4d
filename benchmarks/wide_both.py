"""An n-gram channel with both weightings side by side, on trial (issue 46, item 3; benchmarks/notes.md, "Where
TF-IDF + LR's lead on long documents comes from"): the experiment's code, not the package's, until the rule written
in the notes before its runs says it ships.

The shipped channel (attentive/models/wide.py) weighs a text's n-grams by their mean; an idf-weighted channel
(commit b6d2c6f) gained on the long sets with many rare, telling words (20 Newsgroups, IMDB) and lost as much on R8,
News and the short texts. Here each weighting has its own rows, both starting at zero, and the model learns how much
of each to use:

    wide logits = (Σ_j u_{w_j} + Σ_j b_{h_j}) / n
                + (Σ_j idf_j u'_{w_j} + Σ_j idf'_j b'_{h_j}) / sqrt(Σ_j idf_j² + Σ_j idf'_j²)

(idf smoothed as scikit-learn's TfidfVectorizer, ln((1 + N) / (1 + df)) + 1, fitted from the training texts before
training; Salton & Buckley 1988 for the unit-length weighting).

    python -m benchmarks.wide_both --recipe default --dataset D --seeds 0 1 2 --variant both --set wide.type=both

takes benchmarks.run's arguments: it registers the channel as `wide.type: both`, has the training pipeline fit its
idf, and runs benchmarks.run in the same process.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

import numpy as np
import torch
from torch import nn

from attentive.models import wide
from attentive.training import pipeline
from benchmarks import run

TYPE = "both"


class BothWeightings(wide.NgramChannel):
    """The mean-weighted channel plus a second set of rows weighted by idf over the text's unit-length norm."""

    def __init__(self, vocab_size: int, classes: int, buckets: int = 2**18):
        super().__init__(vocab_size, classes, buckets)
        self.idf_unigrams = nn.Embedding(vocab_size, classes)
        self.idf_bigrams = nn.Embedding(buckets, classes)
        nn.init.zeros_(self.idf_unigrams.weight)
        nn.init.zeros_(self.idf_bigrams.weight)
        self.register_buffer("unigram_idf", torch.ones(vocab_size))
        self.register_buffer("bigram_idf", torch.ones(buckets))

    @torch.no_grad()
    def fit_idf(self, texts: Iterable[list[int]]) -> None:
        """The idf tables from the training texts' token ids, df the number of texts holding each unigram id and
        bigram bucket."""
        texts = [np.asarray(ids, dtype=np.int64) for ids in texts]
        ids = np.concatenate(texts)
        text = np.repeat(np.arange(len(texts)), [len(ids) for ids in texts])
        vocab = self.unigram_idf.shape[0]
        unigram_df = np.bincount(np.unique(text * vocab + ids) % vocab, minlength=vocab)
        follows = text[1:] == text[:-1]  # a bigram never spans two texts
        buckets = (ids[:-1][follows] * wide.HASH_MULTIPLIER + ids[1:][follows]) % self.buckets
        bigram_df = np.bincount(np.unique(text[:-1][follows] * self.buckets + buckets) % self.buckets,
                                minlength=self.buckets)
        for table, df in ((self.unigram_idf, unigram_df), (self.bigram_idf, bigram_df)):
            table.copy_(torch.from_numpy(np.log((1 + len(texts)) / (1 + df)) + 1))

    def word_scores(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        real = mask.unsqueeze(-1).to(self.unigrams.weight.dtype)
        weights = real * self.unigram_idf[ids].unsqueeze(-1)
        scores = self.idf_unigrams(ids) * weights
        norm = (weights * weights).sum(1, keepdim=True)
        if ids.shape[1] > 1:
            buckets = (ids[:, :-1] * wide.HASH_MULTIPLIER + ids[:, 1:]) % self.buckets
            both = real[:, 1:] * real[:, :-1] * self.bigram_idf[buckets].unsqueeze(-1)
            norm = norm + (both * both).sum(1, keepdim=True)
            bigrams = self.idf_bigrams(buckets) * both / 2
            scores = scores + nn.functional.pad(bigrams, (0, 0, 0, 1)) + nn.functional.pad(bigrams, (0, 0, 1, 0))
        return super().word_scores(ids, mask) + scores / norm.sqrt().clamp(min=1e-6)


def with_idf(new_model):
    """The training pipeline's `new_model`, fitting a `both` channel's idf from all of train once it is built."""
    def built(data, recipe, *args, **kwargs):
        model = new_model(data, recipe, *args, **kwargs)
        if isinstance(model.network.wide, BothWeightings):
            model.network.wide.fit_idf(item.ids for item in model.encode_examples(list(data.splits["train"])))
        return model
    return built


def main(argv: Sequence[str] | None = None) -> int:
    wide.WIDE_TYPES[TYPE] = BothWeightings
    pipeline.new_model = with_idf(pipeline.new_model)
    return run.main(argv)


if __name__ == "__main__":
    sys.exit(main())
