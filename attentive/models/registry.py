"""The parts a recipe can name: family ("encoder", "pooler", "head") -> type -> constructor.

Adding a part is one file and one line: subclass the family's contract (attentive/models/parts.py), then
`register("pooler", "first_token")(FirstTokenPooler)` (or use `@register("pooler", "first_token")` on the class);
a recipe then says `pooler: {type: first_token, ...}`, the other entries of its section going to the constructor.
"""
from __future__ import annotations

from collections.abc import Callable

from .aspects import AspectAttentionPooler
from .encoders import ENCODERS
from .heads import HEADS
from .poolers import POOLERS

PARTS: dict[str, dict[str, Callable]] = {
    "encoder": dict(ENCODERS),
    "pooler": {**POOLERS, "aspect_attention": AspectAttentionPooler},
    "head": dict(HEADS),
}


def register(family: str, name: str) -> Callable:
    """A decorator (or a function to call on the part) that lets recipes name `part` as `family` type `name`."""
    if family not in PARTS:
        raise ValueError(f"unknown part family {family!r}; known: {', '.join(PARTS)}")

    def add(part: Callable) -> Callable:
        PARTS[family][name] = part
        return part

    return add
