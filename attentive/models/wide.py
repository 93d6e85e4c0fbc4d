"""The wide channel of a wide-and-deep classifier (Cheng et al. 2016, "Wide & Deep Learning"): a linear model over
the text's words and hashed word bigrams whose class scores are added to the attention model's logits.

A bag of n-grams is what TF-IDF + logistic regression and fastText (Joulin et al. 2017) read; here it is a fastText
whose hidden size is the number of classes: each unigram w has a row u_w of class scores, each bigram (w, w') the row
b_h of its hash bucket h(w, w'), and

    wide logits = (Σ_j u_{w_j} + Σ_j b_{h(w_j, w_{j+1})}) / n      (n the text's number of tokens)

The rows start at zero, so the model begins as the attention model alone. The hash is computed from the token ids
inside the network, so nothing outside the model (an export, a server) needs to know about n-grams.

`word_scores` splits the wide logits exactly over the words (each bigram's row shared half and half between its two
words): explanations show how much of the decision came from each channel, and which words moved the wide one.

`prior` (`wide.prior: true` in a recipe): once the model is trained, a logistic regression fitted over these same
features (idf-weighted, divided by n) is added to the rows, at a weight fitted on dev (attentive/training/prior.py);
kept only where dev texts its weight was not fitted on do not say it hurts; with `prior_min_tokens`, only where the
training texts average at least that many tokens.
"""
from __future__ import annotations

import torch
from torch import nn

HASH_MULTIPLIER = 1_000_003  # a prime larger than any vocabulary; products stay far below 2**63


class NgramChannel(nn.Module):
    channel = "ngrams"  # its name in explanations

    def __init__(self, vocab_size: int, classes: int, buckets: int = 2**18, prior: bool = False,
                 prior_min_tokens: int = 0):
        super().__init__()
        if buckets < 1:
            raise ValueError(f"wide.buckets must be positive, not {buckets}")
        if prior_min_tokens < 0:
            raise ValueError(f"wide.prior_min_tokens must be 0 or more, not {prior_min_tokens}")
        self.buckets = buckets
        self.prior = prior  # whether a linear model is fitted after training and added to the rows
        self.prior_min_tokens = prior_min_tokens  # ... only where the training texts average this many tokens
        self.unigrams = nn.Embedding(vocab_size, classes)
        self.bigrams = nn.Embedding(buckets, classes)
        nn.init.zeros_(self.unigrams.weight)
        nn.init.zeros_(self.bigrams.weight)

    def word_scores(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """B x T x classes: each token's share of the wide logits (zero on padding); summed over T, the logits."""
        real = mask.unsqueeze(-1).to(self.unigrams.weight.dtype)
        scores = self.unigrams(ids) * real
        if ids.shape[1] > 1:
            both = real[:, 1:] * real[:, :-1]
            bigrams = self.bigram_rows((ids[:, :-1] * HASH_MULTIPLIER + ids[:, 1:]) % self.buckets) * both / 2
            scores = scores + nn.functional.pad(bigrams, (0, 0, 0, 1)) + nn.functional.pad(bigrams, (0, 0, 1, 0))
        length = real.sum(1, keepdim=True).clamp(min=1)
        return scores / length

    def bigram_rows(self, buckets: torch.Tensor) -> torch.Tensor:
        """The rows of the bigrams hashed into `buckets`."""
        return self.bigrams(buckets)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.word_scores(ids, mask).sum(1)


class CompactNgramChannel(NgramChannel):
    """A trained channel for an export, its bigram table kept by its nonzero rows: `rows` holds them and one zero
    row after them, `row_of` (int32) which row each bucket reads. A row no training bigram was hashed into stays zero
    (it starts at zero and no gradient reaches it), so on a set with few distinct bigrams for its buckets most rows
    are: Banking77's 19,665 bigrams touch a fraction of 2^18 buckets, whose dense table of 77 classes is 20 MB in int8.
    Answers as `channel` does (inference only: the rows are copies)."""

    def __init__(self, channel: NgramChannel):
        nn.Module.__init__(self)  # the channel's own rows, not new ones
        self.buckets, self.unigrams = channel.buckets, channel.unigrams
        self.prior, self.prior_min_tokens = channel.prior, channel.prior_min_tokens
        weight = channel.bigrams.weight.detach()
        kept = weight.any(1).nonzero().squeeze(1)
        self.rows = nn.Embedding.from_pretrained(torch.cat([weight[kept], weight.new_zeros(1, weight.shape[1])]))
        row_of = torch.full((channel.buckets,), len(kept), dtype=torch.int32)
        row_of[kept] = torch.arange(len(kept), dtype=torch.int32)
        self.register_buffer("row_of", row_of)

    def bigram_rows(self, buckets: torch.Tensor) -> torch.Tensor:
        return self.rows(self.row_of[buckets].long())


def compacted(channel: NgramChannel) -> NgramChannel:
    """`channel` as an export stores it in the fewest bytes of its int8 graph: `CompactNgramChannel` where its
    nonzero bigram rows (one byte a class each) and a 4-byte row index per bucket take less than the dense table."""
    classes, nonzero = channel.bigrams.embedding_dim, int(channel.bigrams.weight.detach().any(1).sum())
    if 4 * channel.buckets + classes * (nonzero + 1) < classes * channel.buckets:
        return CompactNgramChannel(channel)
    return channel


WIDE_TYPES = {"none": None, NgramChannel.channel: NgramChannel}  # wide.type -> the channel added (none: no channel)
