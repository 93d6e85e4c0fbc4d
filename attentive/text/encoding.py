"""The tokenizer step shared by PyTorch models and the torch-free runtime (numpy and `tokenizers` only), so that the
two paths cannot drift: token ids truncated to the model's length, one unknown token for a text with no token,
batches ordered by length, and right padding.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tokenizers import Encoding, Tokenizer

from .tokenizer import PAD_ID, UNK_ID

POOL_BATCHES = 50


@dataclass(frozen=True)
class Item:
    """One example's token ids: the text, the second text of a pair, and the aspect (aspect-vocabulary ids of a
    category, or the word ids of an open-ended aspect term)."""

    ids: list[int]
    pair: list[int] | None = None
    aspect: list[int] | None = None

    def __len__(self) -> int:
        return len(self.ids) + len(self.pair or ())


def encode(tokenizer: Tokenizer, texts: Sequence[str], max_length: int | None = None,
           special_tokens: bool = False) -> list[list[int]]:
    """Token ids of each text, truncated to `max_length`; a text with no tokens becomes one unknown token.

    `special_tokens` adds the tokenizer's own ([CLS] ... [SEP] for a pretrained WordPiece tokenizer)."""
    return truncated_ids(tokenizer.encode_batch(list(texts), add_special_tokens=special_tokens), max_length)


def truncated_ids(encodings: Sequence[Encoding], max_length: int | None = None) -> list[list[int]]:
    """The ids of tokenizer encodings, truncated to `max_length`; an encoding with no tokens becomes one unknown
    token."""
    return [(enc.ids[:max_length] if max_length else enc.ids) or [UNK_ID] for enc in encodings]


def batch_order(lengths: Sequence[int], batch_size: int, shuffle: bool,
                rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Index batches: length-sorted pools when shuffling, one global length sort otherwise."""
    lengths = np.asarray(lengths)
    if not shuffle:
        order = np.argsort(lengths, kind="stable")
        return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng = rng or np.random.default_rng()
    order = rng.permutation(len(lengths))
    pool = batch_size * POOL_BATCHES
    batches = []
    for start in range(0, len(order), pool):
        chunk = order[start:start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def pad_numpy(sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad to the longest sequence: ids (B x T, int64) and mask (B x T, bool, True on real tokens)."""
    width = max(len(seq) for seq in sequences)
    ids = np.full((len(sequences), width), PAD_ID, dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, :len(seq)] = seq
    return ids, ids != PAD_ID
