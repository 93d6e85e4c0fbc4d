"""Checks of what Python code passes in, made where it enters: the arguments of `predict`, `predict_proba` and
`explain` (shared by `attentive.Model` and the exported-model runtime, so both refuse a bad call with the same line),
the model folder given to `load`, and the in-memory lists that `train` and the scikit-learn estimator take.

A bad argument is an `ArgumentError`: an AttentiveError (one line in the CLI) that is also a ValueError, as Python
callers and scikit-learn expect of a bad value. No PyTorch here: the exported-model runtime imports this.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Iterable

import numpy as np

from ..errors import AttentiveError


class ArgumentError(AttentiveError, ValueError):
    """A bad argument to a Python call, named in one line (e.g. "batch_size=0: must be an integer ≥ 1")."""


def _kind(value) -> str:
    """"None", "an int", "a float": what a value is, for a message."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def as_list(values, name: str) -> list:
    """`values` (a list, tuple, array or any other iterable of items) as a list; a single string or bytes, which
    would be taken apart into characters, or a value that is not a collection is an ArgumentError naming `name`."""
    if isinstance(values, (str, bytes, bytearray)):
        raise ArgumentError(f"{name} is a single {type(values).__name__}, {values[:40]!r}: give a list "
                            "(one item per example)")
    if not isinstance(values, Iterable) and hasattr(values, "__array__"):  # an array-like that only converts
        values = np.asarray(values)
    if getattr(values, "ndim", 1) != 1:  # a numpy array or DataFrame of two (or zero) dimensions
        raise ArgumentError(f"{name} has {values.ndim} dimensions (shape {tuple(values.shape)}): give a list (one "
                            "item per example)")
    if not isinstance(values, Iterable):
        raise ArgumentError(f"{name} is {_kind(values)}: give a list (one item per example)")
    return list(values.tolist() if hasattr(values, "tolist") else values)


def check_strings(texts: list, name: str = "texts") -> None:
    """ArgumentError naming the first item of `texts` that is not a string (`name[i]`, counted from 0)."""
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise ArgumentError(f"{name}[{index}] is {_kind(text)}, not a string")


def unicode_problem(text: str) -> str | None:
    """Where a string is not valid Unicode ("not valid Unicode: lone surrogate U+D800 at character 5 ..."), or
    None: a lone surrogate (an undecodable byte of a command-line argument, or a `\\ud800` escape in JSON), which UTF-8
    cannot encode and the tokenizer refuses."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"not valid Unicode: lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start + 1} "
                "(an undecodable byte, or half of a UTF-16 pair)")
    return None


def check_unicode_strings(texts: list, name: str = "texts") -> None:
    """ArgumentError naming the first item of `texts` that is not a string or not valid Unicode (`name[i]`, counted
    from 0), as `attentive.train` takes texts: blank ones are left to the caller, which drops and counts them."""
    check_strings(texts, name)
    for index, text in enumerate(texts):
        problem = unicode_problem(text)
        if problem is not None:
            raise ArgumentError(f"{name}[{index}] is {problem}")


def texts_argument(texts, name: str = "texts") -> str | list[str]:
    """What `predict`, `predict_proba` and `explain` take as texts (or second texts): one string, or a list (any
    iterable) of strings; returned as a string or a list. None, bytes and other values are an ArgumentError."""
    if isinstance(texts, str):
        return texts
    if texts is None or isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Iterable):
        raise ArgumentError(f"{name} is {_kind(texts)}: give a string or a list of strings")
    texts = as_list(texts, name)
    check_strings(texts, name)
    return texts


def check_integer(value, name: str, least: int) -> int:
    """`value` as an int, where it is an integer (not a bool) of at least `least`; else an ArgumentError naming
    `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ArgumentError(f"{name}={value!r}: must be an integer ≥ {least}")
    return int(value)


def check_call(batch_size: int = 128, top_k: int = 5, threshold: float | None = None) -> None:
    """ArgumentError unless `batch_size` is an integer ≥ 1, `top_k` an integer ≥ 0 and `threshold` None or a number
    in [0, 1]."""
    check_integer(batch_size, "batch_size", 1)
    check_integer(top_k, "top_k", 0)
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
                                  or not 0 <= threshold <= 1):
        raise ArgumentError(f"threshold={threshold!r}: must be None or a number from 0 to 1")


def check_threads(threads) -> int | None:
    """`threads` (None: the default), or an ArgumentError unless it is an integer ≥ 1, as the CLI's --threads."""
    return None if threads is None else check_integer(threads, "threads", 1)


def check_folder(folder) -> None:
    """ArgumentError unless `folder` is a path (a str or os.PathLike) of a model folder."""
    if not isinstance(folder, (str, os.PathLike)) or not str(folder):
        raise ArgumentError(f"folder={folder!r}: give the path of a model folder")


def overrides_argument(overrides) -> list[str]:
    """Recipe overrides ("section.key=value") as a list: one string is one override, None is none."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    overrides = as_list(overrides, "overrides")
    check_strings(overrides, "overrides")
    return overrides
