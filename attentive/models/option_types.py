"""The types a recipe's part sections may name and the options each type's constructor takes, read from the part
tables (attentive/models/registry.py PARTS, aspects.py ASPECT_TYPES, wide.py WIDE_TYPES) and the constructors'
signatures, checked against a recipe.

The typed recipe (attentive/recipe_types.py) bounds the settings every recipe shares; a part's own options
(`pooler.score_scale`, `head.features`, `encoder.cell`, ...) are typed in its constructor's signature, so a recipe
giving `pooler.score_scale=abc`, `pooler.type=lamma` or `pooler.foo=1` is refused in one line before any data is
read, rather than failing deep inside PyTorch (or, for a flag, being silently taken as true) once the vectors are
made.
"""
from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable

from .aspects import ASPECT_TYPES, AspectEmbedder
from .registry import PARTS
from .wide import WIDE_TYPES

FAMILIES = ("encoder", "pooler", "head")
# What build_model (attentive/models/classifier.py) gives a part's constructor itself: the sizes of its input and
# output, the aspect vector's, the aspect type (`kind`: the recipe's `type`), the number of aspects and of words.
MODEL_GIVES = ("input_dim", "classes", "rows", "aspect_dim", "kind", "aspects", "word_dim", "vocab_size")
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


def one_of(choices) -> str:
    """The end of "must be ..." for a value that must be one of `choices`: "'a' or 'b'", "one of 'a', 'b', 'c'"."""
    names = [repr(choice) for choice in choices]
    return " or ".join(names) if len(names) <= 2 else f"one of {', '.join(names)}"


def left_out(taker: str, names) -> str:
    """The end of "must be ..." for a key nothing reads: the keys `taker` (e.g. "pooler type 'lama'") takes."""
    return f"left out ({taker} takes {', '.join(names) if names else 'no options'})"


def part_sections() -> dict[str, dict[str, Callable | None]]:
    """Each part section of a recipe -> the types it may name -> the constructor its other entries go to as options
    (None: that type builds no part, and the section's other entries are not read)."""
    return {**{family: PARTS[family] for family in FAMILIES},
            "aspect": {kind: None if kind in ("none", "ignore") else AspectEmbedder for kind in ASPECT_TYPES},
            "wide": WIDE_TYPES}


def signature_of(constructor: Callable) -> Callable:
    """What types a part's options: a class's `__init__`, the class a builder `builds`, or the function itself."""
    if isinstance(constructor, type):
        return constructor.__init__
    builds = getattr(constructor, "builds", None)
    return builds.__init__ if builds is not None else constructor


def options_of(constructor: Callable) -> list[str] | None:
    """The options a recipe may give a part's constructor: its parameters but those the model gives (MODEL_GIVES);
    None when it takes any keyword (`**options`)."""
    parameters = inspect.signature(signature_of(constructor)).parameters.values()
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return None
    return [parameter.name for parameter in parameters if parameter.name not in ("self", *MODEL_GIVES)
            and parameter.kind is not inspect.Parameter.VAR_POSITIONAL]


def part_problems(recipe, skip: typing.Container[str] = ()) -> list[tuple[str, str]]:
    """(key, what it must be) for each part section of the recipe (a recipe_types.Recipe, whose part sections hold a
    `type` and `options`) naming a type that is none of its family's, each option its part's constructor does not
    take, and each option that does not fit the type the constructor declares (options named in `skip`, typed by the
    recipe, are not type-checked here). A type that builds no part (aspect none, wide
    none) reads no option, and takes those of its section's other types: `--set wide.type=none` leaves wide.buckets.
    A constructor taking any keyword (`**options`) takes any option."""
    found = []
    for family, types_ in part_sections().items():
        section = getattr(recipe, family)
        kind = section.type
        if not isinstance(kind, str) or kind not in types_:
            found.append((f"{family}.type", one_of(types_)))
            continue
        if types_[kind] is None:
            every = [options_of(constructor) for constructor in types_.values() if constructor is not None]
            options = None if None in every else list(dict.fromkeys(name for names in every for name in names))
            taker, hints = f"the {family} section", {}
        else:
            options, taker = options_of(types_[kind]), f"{family} type {kind!r}"
            hints = typing.get_type_hints(signature_of(types_[kind]))
        for name, value in section.options.items():
            key = f"{family}.{name}"
            if options is not None and name not in options:
                found.append((key, left_out(taker, options)))
            elif name not in skip and name in hints and not accepts(hints[name], value):
                found.append((key, describe(hints[name])))
    return found
