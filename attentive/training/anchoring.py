"""The word tables anchored to their starting vectors (`embedder.anchor`, attentive/models/embedders.py), and those
starting vectors carried through a checkpoint: a resumed run rebuilds its model without the pretrained vectors, so
the vectors its tables are pulled towards must come from the checkpoint."""
from __future__ import annotations

import torch

from ..errors import AttentiveError
from ..models.embedders import WordEmbedder


def anchored_tables(model: torch.nn.Module) -> dict[str, WordEmbedder]:
    """The model's word tables with an anchor, by module name."""
    return {name: m for name, m in model.named_modules() if isinstance(m, WordEmbedder) and m.anchor > 0}


def anchor_starts(model: torch.nn.Module) -> dict[str, torch.Tensor] | None:
    """Each anchored table's starting vectors, by module name; None when no table is anchored."""
    return {name: m.start for name, m in anchored_tables(model).items()} or None


def restore_anchor_starts(model: torch.nn.Module, starts: dict[str, torch.Tensor] | None) -> None:
    """Put a checkpoint's starting vectors back into the rebuilt model's anchored tables."""
    tables = anchored_tables(model)
    if set(tables) != set(starts or {}):
        raise AttentiveError("the checkpoint's anchored word vectors do not match the recipe's embedder.anchor")
    for name, table in tables.items():
        table.start.copy_(starts[name])
