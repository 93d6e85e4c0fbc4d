"""What the typed recipe (attentive/recipes/types.py) no longer has or does not type: the settings earlier versions
had (`RETIRED`), dropped from a recipe or saved folder at the value at which they did nothing, and the search spaces
of a recipe's `tune:` section."""
from __future__ import annotations

import math

# Settings earlier versions had, each with the value at which it did nothing. Saved config.json files hold the
# defaults of their day, so a retired setting at that value is dropped on reading; any other value is refused, in a
# recipe, a --set or a saved folder (whose train.* entries are dropped at any value: a trained network never reads
# them).
RETIRED = {"embedder.word_dropout": 0.0, "embedder.anchor": 0.0, "wide.norm": "mean", "align.type": "none",
           "head.affine": False,
           "train.label_smoothing": 0.0, "train.lr_decay": 1.0, "train.momentum": 0.9, "train.channel_loss": 0.0,
           "train.wide_loss": 0.0, "train.evals_per_epoch": 1}
RETIRED_SECTIONS = ("align",)  # sections earlier versions had: dropped once empty of their retired settings


def drop_retired(recipe: dict, trained: bool = False) -> str | None:
    """Remove from `recipe` (in place) each retired setting at its neutral value, and with `trained` every retired
    train.* setting, then each retired section left empty; the first setting left, as "key=value", or None when
    there is none."""
    for key, neutral in RETIRED.items():
        section, name = key.split(".")
        values = recipe.get(section)
        if not isinstance(values, dict) or name not in values:
            continue
        if values[name] == neutral or (trained and section == "train"):
            del values[name]
        else:
            return f"{key}={values[name]!r}"
    for section in RETIRED_SECTIONS:
        values = recipe.pop(section, None) or {}
        if values:
            return (f"{section}.{next(iter(values))}={next(iter(values.values()))!r}" if isinstance(values, dict)
                    else f"{section}={values!r}")
    return None


# The search spaces of a recipe's `tune:` section (attentive tune, attentive/selection/tune.py): each entry maps a
# setting ("section.key") to one space. uniform and log_uniform draw a number between two bounds (log_uniform evenly in
# the logarithm, bounds > 0), int an integer between two bounds (both included), choice one of a list of values.
TUNE_SPACES = {"uniform": "[low, high]", "log_uniform": "[low, high] with low > 0", "int": "[low, high] (integers)",
               "choice": "[value, ...]"}


def tune_space_problem(space) -> str | None:
    """What is wrong with one search space of a `tune:` section, as the end of "must be ...", or None when it is
    fine. Whether its values suit the setting is checked when the study starts (attentive/selection/tune.py)."""
    kinds = " or ".join(f"{{{kind}: {form}}}" for kind, form in TUNE_SPACES.items())
    if not isinstance(space, dict) or len(space) != 1 or next(iter(space)) not in TUNE_SPACES:
        return f"one search space, {kinds}"
    kind, values = next(iter(space.items()))
    if kind == "choice":
        if not isinstance(values, list) or not values:
            return f"{{choice: [value, ...]}} with one value at least, not {str(values)[:60]}"
        odd = [value for value in values if value is not None and not isinstance(value, (bool, int, float, str))]
        if odd:
            return f"{{choice: [value, ...]}} of numbers, text, true/false or null, not {str(odd[0])[:60]}"
        if len({repr(value) for value in values}) != len(values):
            return "{choice: [value, ...]} without a value twice"
        return None
    number = (int,) if kind == "int" else (int, float)
    if (not isinstance(values, list) or len(values) != 2
            or not all(isinstance(value, number) and not isinstance(value, bool) and math.isfinite(value)
                       for value in values)
            or not values[0] < values[1] or (kind == "log_uniform" and values[0] <= 0)):
        return f"{{{kind}: {TUNE_SPACES[kind]}}} with low < high, not {str(values)[:60]}"
    return None
