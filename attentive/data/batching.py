"""Token ids for a list of examples, and batches bucketed by length.

Each batch is padded only to its own longest text. Training batches come from pools of ~50 batches sorted by
length, so texts of similar length meet while the order stays random (about 2x faster than random batches on
CPU, measured; packing was slower).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch
from tokenizers import Encoding, Tokenizer

from ..text.encoding import Item, batch_order, encode, truncated_ids
from ..text.tokenizer import PAD_ID

__all__ = ["Item", "batch_order", "collate", "encode", "encode_items", "iterate", "pad", "truncated_ids"]


def pad(sequences: Sequence[Sequence[int]], device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad to the longest sequence: ids (B x T, long) and mask (B x T, bool, True on real tokens)."""
    width = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), width), PAD_ID, dtype=torch.long)
    for row, seq in enumerate(sequences):
        ids[row, :len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    ids = ids.to(device)
    return ids, ids != PAD_ID


def encode_items(tokenizer: Tokenizer, texts: Sequence[str], pairs: Sequence[str] | None = None,
                 max_length: int | None = None, special_tokens: bool = False,
                 aspects: Sequence[list[int]] | None = None,
                 encodings: Sequence[Encoding] | None = None) -> list[Item]:
    """Items of single texts, with the second text of each pair when `pairs` is given and the aspect ids when
    `aspects` is; `encodings` are the texts' own when the caller has tokenised them already."""
    ids = truncated_ids(encodings, max_length) if encodings is not None else \
        encode(tokenizer, texts, max_length, special_tokens)
    second = encode(tokenizer, pairs, max_length, special_tokens) if pairs is not None else [None] * len(ids)
    aspect = aspects if aspects is not None else [None] * len(ids)
    return [Item(*parts) for parts in zip(ids, second, aspect)]


def collate(items: Sequence[Item], device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """The model's keyword inputs for a batch: ids and mask, plus pair_ids/pair_mask for pairs and
    aspect_ids/aspect_mask for aspects."""
    ids, mask = pad([item.ids for item in items], device)
    inputs = {"ids": ids, "mask": mask}
    if items[0].pair is not None:
        inputs["pair_ids"], inputs["pair_mask"] = pad([item.pair for item in items], device)
    if items[0].aspect is not None:
        inputs["aspect_ids"], inputs["aspect_mask"] = pad([item.aspect for item in items], device)
    return inputs


def iterate(items: Sequence[Item], batch_size: int, shuffle: bool = False,
            rng: np.random.Generator | None = None) -> Iterator[np.ndarray]:
    yield from batch_order([len(item) for item in items], batch_size, shuffle, rng)
