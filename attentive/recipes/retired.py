"""What the typed recipe (attentive/recipes/types.py) no longer has: the settings earlier versions had (`RETIRED`),
dropped from a recipe or saved folder at the value at which they did nothing."""
from __future__ import annotations

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

