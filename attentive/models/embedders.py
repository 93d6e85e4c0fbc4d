"""Token ids -> vectors: a trainable lookup table, initialised from word2vec / GloVe / uniform random."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..util.token_ids import PAD_ID


class WordEmbedder(nn.Module):
    """Trainable embedding table (fine-tuned during training, LAMA paper §3.1) with dropout on its output: `dropout`
    drops single entries of the word vectors in training."""

    def __init__(self, vocab_size: int, dim: int, dropout: float = 0.0, initial: np.ndarray | None = None,
                 trainable: bool = True):
        super().__init__()
        self.table = nn.Embedding(vocab_size, dim, padding_idx=PAD_ID)
        if initial is not None:
            self.table.weight.data.copy_(torch.as_tensor(initial))
        self.table.weight.requires_grad_(trainable)
        self.dropout = nn.Dropout(dropout)
        self.output_dim = dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.table(ids))
