"""Types, ranges and choices of the recipe settings, checked after a recipe is loaded and its `--set` overrides
applied, so that `train.epochs=abc`, `train.batch_size=0` or `train.optimizer=adamw` is a one-line error naming the
key rather than a traceback (or a model trained for zero epochs) after the data and vectors were read. The parts'
types and options (`pooler.type`, `pooler.score_scale`, `head.features`) are read from the parts' tables and
constructors and checked by attentive/models/option_types.py."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import AttentiveError
from .models.d_model import D_MODEL


@dataclass(frozen=True)
class Setting:
    """A number, an integer or a flag; `low`/`high` bound it (`open_low`: strictly above `low`); `null` allows None.
    `d_model` allows the SSAN recipes' "d_model" / "k*d_model" for a width."""

    kind: type
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    null: bool = False
    d_model: bool = False

    def describe(self) -> str:
        noun = {int: "an integer", float: "a number", bool: "true or false"}[self.kind]
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>' if self.open_low else '≥'} {self.low:g}")
        if self.high is not None:
            bounds.append(f"{'<' if self.open_high else '≤'} {self.high:g}")
        return noun + (" " + " and ".join(bounds) if bounds else "") + (" or null" if self.null else "")

    def accepts(self, value) -> bool:
        if value is None:
            return self.null
        if self.d_model and isinstance(value, str) and D_MODEL.fullmatch(value.strip()):
            return True
        if self.kind is bool:
            return isinstance(value, bool)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.kind is int and not isinstance(value, int):
            return False
        if not math.isfinite(value):
            return False
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            return False
        return self.high is None or not (value > self.high or (self.open_high and value == self.high))


COUNT, FLAG = Setting(int, 1), Setting(bool)
FRACTION = Setting(float, 0, 1, open_high=True)
POSITIVE = Setting(float, 0, open_low=True)

SETTINGS = {
    "tokenizer.min_frequency": COUNT, "tokenizer.max_length": Setting(int, 1, null=True),
    "tokenizer.max_vocab": Setting(int, 1, null=True), "tokenizer.lowercase": FLAG, "tokenizer.keep_known": FLAG,
    "tokenizer.pieces": FLAG, "tokenizer.prune_pieces": FLAG,
    "embedder.dim": COUNT, "embedder.trainable": FLAG, "embedder.scale": Setting(float, 0, open_low=True, null=True),
    "embedder.distilled_dim": COUNT, "embedder.word2vec_epochs": COUNT, "embedder.word2vec_seed": Setting(int),
    "wide.buckets": Setting(int, 0),
    "train.weight_decay": Setting(float, 0), "train.batch_size": COUNT,
    "train.epochs": COUNT, "train.patience": COUNT, "train.clip": Setting(float, 0, null=True),
    "train.seed": Setting(int),
    "train.wide_lr": Setting(float, 0, open_low=True, null=True), "train.rho": Setting(float, 0, 1, True, True),
    "train.eps": POSITIVE, "train.batches_per_epoch": Setting(int, 0, null=True),
    "train.max_updates": Setting(int, 1, null=True),
    "train.ema_epochs": Setting(float, 0, open_low=True, null=True),
}
# Settings of the same name in every part (encoder, pooler, head, aspect): widths and counts, dropout rates.
PART_SETTINGS = {"dropout": FRACTION, "hidden": Setting(int, 0, d_model=True),  # 0: no hidden layer
                 "heads": COUNT, "hops": COUNT, "layers": COUNT, "maps": COUNT, "factors": COUNT,
                 "ff": Setting(int, 1, d_model=True), "d_model": Setting(int, 1, d_model=True)}
PARTS = ("embedder", "aspect", "encoder", "pooler", "head")

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


CLASS_WEIGHT = "'none', 'balanced' or a mapping {label: weight > 0}"


def class_weight_problem(value) -> str | None:
    """What is wrong with a `train.class_weight` (none, balanced, or a mapping of labels to finite weights > 0), as
    the end of "must be ...", or None when it is fine. Whether the mapping's labels are the data's is checked once
    the data is read (attentive/training/pipeline.py)."""
    if value in ("none", "balanced"):
        return None
    if not isinstance(value, dict) or not value:
        return CLASS_WEIGHT
    for label, weight in value.items():
        if isinstance(label, bool) or not isinstance(label, (str, int)):
            return f"{CLASS_WEIGHT}: its key {label!r} is no label"
        if not Setting(float, 0, open_low=True).accepts(weight):
            return f"{CLASS_WEIGHT}: the weight of {str(label)[:60]!r} is {str(weight)[:60]}"
    return None


SAMPLERS = ("shuffle", "balanced")  # train.sampler: every row once, shuffled; or classes drawn equally often
# (attentive/training/sampling.py). Both cut the rows into length-bucketed batches.
OPTIMIZERS = ("adam", "adadelta", "adagrad")  # train.optimizer, in any case (attentive/training/loop.py)
REGULARISERS = ("frobenius", "frobenius_norm", "std", "neg_entropy")  # train.regulariser.type, the attention
# penalties of attentive/training/regularisers.py, which keys its table by these names
REGULARISER_KEYS = {"type": None, "weight": Setting(float, 0)}  # train.regulariser: {type: ..., weight: ...}
# Types of the two sections whose type only switches the part off or to a pretrained one: left out, a vocabulary built
# from the training texts and a word table; `pretrained` and `none`, MiniLM's WordPiece vocabulary and its encoder
# embedding the ids itself (attentive/models/pretrained.py, the minilm recipes).
TOKENIZER_TYPES, EMBEDDER_TYPES = ("pretrained",), ("none",)


def choice_problems(recipe: dict) -> list[tuple[str, str]]:
    """(key, what it must be) for each choice of the tokenizer, embedder and train sections outside its list: the
    types, the word-vector sources, the optimizer, the sampler and the attention regulariser (the parts' types are
    checked with their options, attentive/models/option_types.py)."""
    from .models.option_types import one_of  # torch, tokenizers: only when a recipe is checked
    from .text.sources import SOURCES, source_names

    found = []
    tokenizer, embedder, train = (recipe.get(section) or {} for section in ("tokenizer", "embedder", "train"))
    if "type" in tokenizer and tokenizer["type"] not in TOKENIZER_TYPES:
        found.append(("tokenizer.type", f"{one_of(TOKENIZER_TYPES)} or left out"))
    if "type" in embedder and embedder["type"] not in EMBEDDER_TYPES:
        found.append(("embedder.type", f"{one_of(EMBEDDER_TYPES)} or left out"))
    if "vectors" in embedder:
        try:
            source_names(embedder)
        except AttentiveError:
            found.append(("embedder.vectors", f"{one_of(SOURCES)}, or several joined by +"))
    optimizer = train.get("optimizer", OPTIMIZERS[0])
    if not isinstance(optimizer, str) or optimizer.lower() not in OPTIMIZERS:
        found.append(("train.optimizer", one_of(OPTIMIZERS)))
    if train.get("sampler", SAMPLERS[0]) not in SAMPLERS:
        found.append(("train.sampler", one_of(SAMPLERS)))
    return found + regulariser_problems(train.get("regulariser"))


def regulariser_problems(regulariser) -> list[tuple[str, str]]:
    """(key, what it must be) for what is wrong with `train.regulariser`: absent or null, or a mapping of a `type`
    (required once the weight is not 0) and a `weight` ≥ 0 (attentive/training/regularisers.py)."""
    from .models.option_types import left_out, one_of

    if regulariser is None:
        return []
    if not isinstance(regulariser, dict):
        return [("train.regulariser", "a mapping {type: ..., weight: ...} or null")]
    found = [(f"train.regulariser.{key}", left_out("train.regulariser", REGULARISER_KEYS))
             for key in regulariser if key not in REGULARISER_KEYS]
    weight = regulariser.get("weight", 0)
    if not REGULARISER_KEYS["weight"].accepts(weight):
        found.append(("train.regulariser.weight", REGULARISER_KEYS["weight"].describe()))
    elif ("type" in regulariser or weight) and regulariser.get("type") not in REGULARISERS:
        found.append(("train.regulariser.type", one_of(REGULARISERS)))
    return found


def problems(recipe: dict) -> list[tuple[str, str]]:
    """(key, what it must be) for each setting of `recipe` outside its type, range or list of choices, and each
    option its part does not take; [] when all are fine. A key may name an entry inside a setting
    (train.regulariser.type)."""
    found = []
    for key, setting in SETTINGS.items():
        section, name = key.split(".")
        values = recipe.get(section) or {}
        if name in values and not setting.accepts(values[name]):
            found.append((key, setting.describe()))
    learning_rate = (recipe.get("train") or {}).get("lr")
    if not (POSITIVE.accepts(learning_rate) or isinstance(learning_rate, dict)):  # a {d_model: rate} table (SSAN)
        found.append(("train.lr", POSITIVE.describe()))
    if "class_weight" in (recipe.get("train") or {}):
        if (meaning := class_weight_problem(recipe["train"]["class_weight"])) is not None:
            found.append(("train.class_weight", meaning))
    for section in PARTS:
        for name, value in (recipe.get(section) or {}).items():
            setting = PART_SETTINGS.get(name)
            key = f"{section}.{name}"
            if setting is not None and key not in SETTINGS and not setting.accepts(value):
                found.append((key, setting.describe()))
    from .models.option_types import part_problems  # the parts' types and options, read from their constructors

    checked = set(SETTINGS) | {f"{section}.{name}" for section in PARTS for name in PART_SETTINGS}
    return found + choice_problems(recipe) + part_problems(recipe, skip=checked)


# The search spaces of a recipe's `tune:` section (attentive tune, attentive/tuning.py): each entry maps a setting
# ("section.key") to one space. uniform and log_uniform draw a number between two bounds (log_uniform evenly in the
# logarithm, bounds > 0), int an integer between two bounds (both included), choice one of a list of values.
TUNE_SPACES = {"uniform": "[low, high]", "log_uniform": "[low, high] with low > 0", "int": "[low, high] (integers)",
               "choice": "[value, ...]"}


def tune_space_problem(space) -> str | None:
    """What is wrong with one search space of a `tune:` section, as the end of "must be ...", or None when it is
    fine. Whether its values suit the setting is checked when the study starts (attentive/tuning.py)."""
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
    number = Setting(int) if kind == "int" else Setting(float)
    if (not isinstance(values, list) or len(values) != 2 or not all(number.accepts(value) for value in values)
            or not values[0] < values[1] or (kind == "log_uniform" and values[0] <= 0)):
        return f"{{{kind}: {TUNE_SPACES[kind]}}} with low < high, not {str(values)[:60]}"
    return None
