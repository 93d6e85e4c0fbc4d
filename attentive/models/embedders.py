"""Token ids -> vectors: a trainable lookup table, initialised from word2vec / GloVe / uniform random."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..token_ids import PAD_ID


class WordEmbedder(nn.Module):
    """Trainable embedding table (fine-tuned during training, LAMA paper §3.1) with dropout on its output.

    `dropout` drops single entries of the word vectors; `word_dropout` drops whole tokens in training (each token's
    vector zeroed with that probability and the kept ones scaled by 1 / (1 - p), as inverted dropout does), so that
    no single word can carry a decision alone. It is the word dropout of Iyyer et al. (2015, §3.1), who leave the
    dropped tokens out of a deep averaging network's average; before a recurrent layer a dropped token is zeroed
    instead, keeping its place in the sequence (Gal & Ghahramani 2016, §4.2, zero dropped word types the same way).

    `anchor` (a) pulls the table back towards its starting vectors after every optimiser step, E <- E - a (E - E0):
    the L2-SP penalty of Li et al. (2018, "Explicit inductive bias for transfer learning", Eq. 3), which regularises
    fine-tuned weights towards their pretrained values instead of towards zero, applied decoupled from the gradient as
    AdamW applies weight decay (Loshchilov & Hutter 2019, Algorithm 2). Under Adam, whose steps are about the learning
    rate η in size, a word's vector then drifts at most about η / a from where it started: rare words keep their
    pretrained meaning while frequent ones adapt, between frozen vectors (a = 1) and free ones (a = 0)."""

    def __init__(self, vocab_size: int, dim: int, dropout: float = 0.0, initial: np.ndarray | None = None,
                 trainable: bool = True, word_dropout: float = 0.0, anchor: float = 0.0):
        super().__init__()
        self.word_dropout, self.anchor = word_dropout, anchor
        self.table = nn.Embedding(vocab_size, dim, padding_idx=PAD_ID)
        if initial is not None:
            self.table.weight.data.copy_(torch.as_tensor(initial))
        if anchor > 0:  # not saved with the model; a resumed run takes it from the checkpoint
            self.register_buffer("start", self.table.weight.detach().clone(), persistent=False)
        self.table.weight.requires_grad_(trainable)
        self.dropout = nn.Dropout(dropout)
        self.output_dim = dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        vectors = self.table(ids)
        if self.training and self.word_dropout > 0:
            keep = torch.empty(ids.shape + (1,), device=vectors.device).bernoulli_(1 - self.word_dropout)
            vectors = vectors * keep / (1 - self.word_dropout)
        return self.dropout(vectors)

    @torch.no_grad()
    def pull_towards_start(self) -> None:
        """One step of the anchor: E <- E - a (E - E0); nothing without one."""
        if self.anchor > 0:
            self.table.weight.lerp_(self.start, self.anchor)
