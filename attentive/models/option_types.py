"""The types a recipe's part sections may name and the options each type's constructor takes, read from the part
tables (attentive/models/registry.py PARTS, aspects.py ASPECT_TYPES, wide.py WIDE_TYPES) and the constructors'
signatures, checked against a recipe.

The typed recipe (attentive/recipes/types.py) bounds the settings every recipe shares; a part's own options
(`pooler.score_scale`, `head.features`, `encoder.cell`, ...) are typed in its constructor's signature, so a recipe
giving `pooler.score_scale=abc`, `pooler.type=lamma` or `pooler.foo=1` is refused in one line before any data is
read, rather than failing deep inside PyTorch (or, for a flag, being silently taken as true) once the vectors are
made.
"""
from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable

import pydantic

from .aspects import ASPECT_TYPES, AspectEmbedder
from .registry import PARTS
from .wide import WIDE_TYPES

FAMILIES = ("encoder", "pooler", "head")
# What build_model (attentive/models/classifier.py) gives a part's constructor itself: the sizes of its input and
# output, the aspect vector's, the aspect type (`kind`: the recipe's `type`), the number of aspects and of words.
MODEL_GIVES = ("input_dim", "classes", "rows", "aspect_dim", "kind", "aspects", "word_dim", "vocab_size")
NOUNS = {bool: "true or false", int: "an integer", float: "a number", str: "text", dict: "a mapping",
         list: "a list", tuple: "a list", type(None): "null"}
BOUNDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}  # pydantic's (annotated_types') bounds, in words
# The largest integer any part option may hold (a size: wide.buckets, a table's positions, a convolution's width),
# where neither its constructor nor the recipe's shared options bound it: 2**24 buckets of a wide channel are already
# hundreds of MB; a mistyped 10**11 is one line here instead of an allocation.
MAX_SIZE = 2**24


def accepts(hint, value) -> bool:
    """Whether a recipe value fits an annotation (a constructor's, or the recipe's for options parts share), checked
    strictly by pydantic (no "3" for 3, no NaN); an annotation pydantic cannot check accepts everything."""
    try:
        pydantic.TypeAdapter(hint, config=pydantic.ConfigDict(strict=True, allow_inf_nan=False)).validate_python(value)
    except pydantic.ValidationError:
        return False
    except pydantic.PydanticUserError:  # an annotation pydantic cannot check (a class of the part's own)
        pass
    return True


def describe(hint, constraints=()) -> str:
    """What a value of an annotation must be, in words: "an integer ≥ 1 or null"; a Literal's choices, an Annotated
    member's bounds (or the field's `constraints`) said, a text pattern (the SSAN recipes' "2*d_model") left unsaid."""
    is_union = isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union
    words = []
    for member in typing.get_args(hint) if is_union else (hint,):
        bounds = constraints
        if typing.get_origin(member) is typing.Annotated:
            member, *extra = typing.get_args(member)
            bounds = [c for field in extra for c in getattr(field, "metadata", [field])]
        if typing.get_origin(member) is typing.Literal:
            words.append(one_of(typing.get_args(member)))
        elif not any(getattr(c, "pattern", None) for c in bounds):
            said = [f"{sign} {getattr(c, name):g}" for c in bounds for name, sign in BOUNDS.items() if hasattr(c, name)]
            noun = NOUNS.get(typing.get_origin(member) or member, str(member))
            words.append(" ".join([noun, " and ".join(said)]).strip())
    return " or ".join(dict.fromkeys(words))


def one_of(choices) -> str:
    """The end of "must be ..." for a value that must be one of `choices`: "'a' or 'b'", "one of 'a', 'b', 'c'"."""
    names = [repr(choice) for choice in choices]
    return " or ".join(names) if len(names) <= 2 else f"one of {', '.join(names)}"


def left_out(taker: str, names, given: str | None = None) -> str:
    """The end of "must be ..." for a key nothing reads: the keys `taker` (e.g. "pooler type 'lama'") takes, and the
    one closest to the `given` key, where one is close."""
    from ..util.spelling import did_you_mean

    hint = did_you_mean(given, names or ()) if given is not None else ""
    return f"left out{hint} ({taker} takes {', '.join(names) if names else 'no options'})"


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


def part_problems(recipe, shared: dict) -> list[tuple[str, str]]:
    """(key, what it must be) for each part section (`type`, `options`) of a recipe_types.Recipe naming a type that
    is none of its family's, each option its part's constructor does not take, each option that does not fit the
    type the constructor declares, or the recipe's type of an option every part `shared`s, and each option holding
    an integer above MAX_SIZE. A type that builds no
    part (aspect none, wide none) reads no option, and takes those of its section's other types: `--set
    wide.type=none` leaves wide.buckets. A constructor taking any keyword (`**options`) takes any option."""
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
                found.append((key, left_out(taker, options, name)))
            elif (hint := shared.get(name, hints.get(name))) is not None and not accepts(hint, value):
                found.append((key, describe(hint)))
            elif largest_integer(value) > MAX_SIZE:
                found.append((key, f"at most {MAX_SIZE:,} (a size no part allocates more of)"))
            elif largest_integer(value, magnitude=True) > MAX_SIZE:  # no option of a part reads a number that low
                found.append((key, f"at least {-MAX_SIZE:,}"))
    return found


def largest_integer(value, magnitude: bool = False) -> int:
    """The largest integer in an option's value (itself, or the items of a list or tuple), or with `magnitude` the
    largest absolute value of one; 0 where it holds none."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) if magnitude else value
    if isinstance(value, (list, tuple)):
        return max((largest_integer(item, magnitude) for item in value), default=0)
    return 0
