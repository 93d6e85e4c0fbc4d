"""Token ids -> vectors: a trainable lookup table, initialised from word2vec / GloVe / uniform random."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..text.tokenizer import PAD_ID


class WordEmbedder(nn.Module):
    """Trainable embedding table (fine-tuned during training, LAMA paper §3.1) with dropout on its output.

    `dropout` drops single entries of the word vectors; `word_dropout` drops whole tokens in training (each token's
    vector zeroed with that probability and the kept ones scaled by 1 / (1 - p), as inverted dropout does), so that
    no single word can carry a decision alone. It is the word dropout of Iyyer et al. (2015, §3.1), who leave the
    dropped tokens out of a deep averaging network's average; before a recurrent layer a dropped token is zeroed
    instead, keeping its place in the sequence (Gal & Ghahramani 2016, §4.2, zero dropped word types the same way)."""

    def __init__(self, vocab_size: int, dim: int, dropout: float = 0.0, initial: np.ndarray | None = None,
                 trainable: bool = True, word_dropout: float = 0.0):
        super().__init__()
        self.word_dropout = word_dropout
        self.table = nn.Embedding(vocab_size, dim, padding_idx=PAD_ID)
        if initial is not None:
            self.table.weight.data.copy_(torch.as_tensor(initial))
        self.table.weight.requires_grad_(trainable)
        self.dropout = nn.Dropout(dropout)
        self.output_dim = dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        vectors = self.table(ids)
        if self.training and self.word_dropout > 0:
            keep = torch.empty(ids.shape + (1,), device=vectors.device).bernoulli_(1 - self.word_dropout)
            vectors = vectors * keep / (1 - self.word_dropout)
        return self.dropout(vectors)
