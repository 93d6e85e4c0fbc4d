"""The wide channel of a wide-and-deep classifier (Cheng et al. 2016, "Wide & Deep Learning"): a linear model over
the text's words and hashed word bigrams whose class scores are added to the attention model's logits.

A bag of n-grams is what TF-IDF + logistic regression and fastText (Joulin et al. 2017) read; here it is a fastText
whose hidden size is the number of classes: each unigram w has a row u_w of class scores, each bigram (w, w') the row
b_h of its hash bucket h(w, w'), and

    wide logits = (Σ_j u_{w_j} + Σ_j b_{h(w_j, w_{j+1})}) / n      (n the text's number of tokens)

or, with `weighting: idf`, each n-gram weighted by its inverse document frequency in the training texts (smoothed as
scikit-learn's TfidfVectorizer: idf = ln((1 + N) / (1 + df)) + 1) and the text's weights normalised to unit length,
as TF-IDF weighs the features of a linear model (Salton & Buckley 1988; without its sublinear term frequency, which
would need each text's counts inside the graph; every occurrence counts as its own feature in the norm):

    wide logits = (Σ_j idf_j u_{w_j} + Σ_j idf'_j b_{h(w_j, w_{j+1})}) / sqrt(Σ_j idf_j² + Σ_j idf'_j²)

The idf tables are buffers fitted once from the training texts before training (`fit_idf`) and saved with the weights.
The rows start at zero, so the model begins as the attention model alone. The hash is computed from the token ids
inside the network, so nothing outside the model (an export, a server) needs to know about n-grams.

`word_scores` splits the wide logits exactly over the words (each bigram's row shared half and half between its two
words): explanations show how much of the decision came from each channel, and which words moved the wide one.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
import torch
from torch import nn

HASH_MULTIPLIER = 1_000_003  # a prime larger than any vocabulary; products stay far below 2**63


class NgramChannel(nn.Module):
    channel = "ngrams"  # its name in explanations

    def __init__(self, vocab_size: int, classes: int, buckets: int = 2**18, weighting: Literal["mean", "idf"] = "mean"):
        super().__init__()
        if buckets < 1:
            raise ValueError(f"wide.buckets must be positive, not {buckets}")
        self.buckets, self.weighting = buckets, weighting
        self.unigrams = nn.Embedding(vocab_size, classes)
        self.bigrams = nn.Embedding(buckets, classes)
        nn.init.zeros_(self.unigrams.weight)
        nn.init.zeros_(self.bigrams.weight)
        if weighting == "idf":  # fitted by `fit_idf` before training; saved with the weights
            self.register_buffer("unigram_idf", torch.ones(vocab_size))
            self.register_buffer("bigram_idf", torch.ones(buckets))

    def bucket_of(self, ids: torch.Tensor) -> torch.Tensor:
        """The hash bucket of each bigram of `ids` (B x T -> B x T-1)."""
        return (ids[:, :-1] * HASH_MULTIPLIER + ids[:, 1:]) % self.buckets

    @torch.no_grad()
    def fit_idf(self, texts: Iterable[list[int]]) -> None:
        """Set the idf tables from the training texts' token ids: ln((1 + N) / (1 + df)) + 1 for each unigram id and
        bigram bucket, df the number of texts holding it."""
        texts = [np.asarray(ids, dtype=np.int64) for ids in texts]
        if not texts:
            return
        ids = np.concatenate(texts)
        text = np.repeat(np.arange(len(texts)), [len(ids) for ids in texts])
        vocab = self.unigram_idf.shape[0]
        unigram_df = np.bincount(np.unique(text * vocab + ids) % vocab, minlength=vocab)
        follows = text[1:] == text[:-1]  # a bigram never spans two texts
        buckets = (ids[:-1][follows] * HASH_MULTIPLIER + ids[1:][follows]) % self.buckets
        bigram_df = np.bincount(np.unique(text[:-1][follows] * self.buckets + buckets) % self.buckets,
                                minlength=self.buckets)
        for table, df in ((self.unigram_idf, unigram_df), (self.bigram_idf, bigram_df)):
            table.copy_(torch.from_numpy(np.log((1 + len(texts)) / (1 + df)) + 1))

    def word_scores(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """B x T x classes: each token's share of the wide logits (zero on padding); summed over T, the logits."""
        real = mask.unsqueeze(-1).to(self.unigrams.weight.dtype)
        idf = self.weighting == "idf"
        weights = real * self.unigram_idf[ids].unsqueeze(-1) if idf else real
        scores = self.unigrams(ids) * weights
        norm = (weights * weights).sum(1, keepdim=True) if idf else real.sum(1, keepdim=True)
        if ids.shape[1] > 1:
            buckets = self.bucket_of(ids)
            both = real[:, 1:] * real[:, :-1]
            if idf:
                both = both * self.bigram_idf[buckets].unsqueeze(-1)
                norm = norm + (both * both).sum(1, keepdim=True)
            bigrams = self.bigrams(buckets) * both / 2
            scores = scores + nn.functional.pad(bigrams, (0, 0, 0, 1)) + nn.functional.pad(bigrams, (0, 0, 1, 0))
        return scores / (norm.sqrt().clamp(min=1e-6) if idf else norm.clamp(min=1))

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.word_scores(ids, mask).sum(1)


WIDE_TYPES = {"none": None, NgramChannel.channel: NgramChannel}  # wide.type -> the channel added (none: no channel)
