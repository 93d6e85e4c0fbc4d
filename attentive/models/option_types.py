"""The type of every option a part's constructor takes, read from its annotations, checked against a recipe.

The recipe schema (attentive/recipe_schema.py) bounds the settings every recipe shares; a part's own options
(`pooler.score_scale`, `head.features`, `encoder.cell`, ...) are typed in its constructor's signature, so a recipe
giving `pooler.score_scale=abc` is refused in one line before any data is read, rather than failing deep inside
PyTorch (or, for a flag, being silently taken as true).
"""
from __future__ import annotations

import math
import types
import typing

from .registry import PARTS

FAMILIES = ("encoder", "pooler", "head")
NOUNS = {bool: "true or false", int: "an integer", float: "a number", str: "text", dict: "a mapping",
         list: "a list", tuple: "a list", type(None): "null"}


def union_members(hint) -> tuple | None:
    """The members of a union annotation (`int | None`, `Optional[int]`), None for any other annotation."""
    is_union = isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union
    return typing.get_args(hint) if is_union else None


def accepts(hint, value) -> bool:
    """Whether a recipe value fits a constructor annotation (None, bool, int, float, str, dict, list/tuple or a union
    of those; any other annotation accepts everything)."""
    if (members := union_members(hint)) is not None:
        return any(accepts(member, value) for member in members)
    hint = typing.get_origin(hint) or hint
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if hint in (list, tuple):
        return isinstance(value, (list, tuple))
    if hint in (str, dict, type(None)):
        return isinstance(value, hint)
    return True


def describe(hint) -> str:
    members = union_members(hint) or (hint,)
    return " or ".join(dict.fromkeys(NOUNS.get(typing.get_origin(m) or m, str(m)) for m in members))


def option_problems(recipe: dict, skip: typing.Container[str] = ()) -> list[tuple[str, str]]:
    """(key, what it must be) for each option of the recipe's encoder, pooler and head that does not fit the type its
    part's constructor declares; keys in `skip` (checked by the schema) and options no constructor takes (refused
    when the model is built) are left alone."""
    found = []
    for family in FAMILIES:
        section = recipe.get(family) or {}
        constructor = PARTS[family].get(section.get("type"))
        if not isinstance(constructor, type):  # unknown (refused when built), or a builder naming the class it builds
            constructor = getattr(constructor, "builds", None)
        if constructor is None:
            continue
        hints = typing.get_type_hints(constructor.__init__)
        for name, value in section.items():
            key = f"{family}.{name}"
            if name != "type" and key not in skip and name in hints and not accepts(hints[name], value):
                found.append((key, describe(hints[name])))
    return found
