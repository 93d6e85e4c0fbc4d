"""How a model reads its data: the columns of the user's files (text, label, pair, aspect) and the label separator,
kept in the model's config.json as `reading` (and in its export's), so that `evaluate`, `predict`, `explain`,
`analyze` and `Model.evaluate` read a file as training read it, unless told otherwise. `reading_of` makes the record
from the options a file was read with; `reading_for` decides, in this one place, how to read a file for a model: an
option given wins, else the model's record, else the defaults (a "text" and a "label" column)."""
from __future__ import annotations

from pathlib import Path

from ..errors import AttentiveError

READING = "reading"  # config.json's entry
DEFAULTS: dict[str, str | None] = {"text_column": "text", "label_column": "label", "pair_column": None,
                                   "aspect_column": None, "label_separator": None}
COLUMNS = ("text_column", "label_column", "pair_column", "aspect_column")


def reading_of(text_column: str | None = "text", label_column: str | None = "label", pair_column: str | None = None,
               aspect_column: str | None = None, label_separator: str | None = None) -> dict:
    """The `reading` record of the options a file was read with (None: the default)."""
    given = {"text_column": text_column, "label_column": label_column, "pair_column": pair_column,
             "aspect_column": aspect_column, "label_separator": label_separator}
    return {key: DEFAULTS[key] if value is None else value for key, value in given.items()}


def model_reading(config: dict, where: str | Path = "config.json") -> dict:
    """The reading a model's config.json records (every key present); the defaults for a model trained on a named
    dataset, on texts in memory, or saved before it was recorded. A damaged entry is one line naming it."""
    recorded = config.get(READING)
    if recorded is None:
        return dict(DEFAULTS)
    if not isinstance(recorded, dict) or not all(
            (value is None and DEFAULTS[key] is None) or (isinstance(value, str) and value)
            for key, value in recorded.items() if key in DEFAULTS):
        raise AttentiveError(f"{where}: 'reading' is not an object of column names (strings): save or export the "
                             "model again")
    return {key: recorded.get(key, default) for key, default in DEFAULTS.items()}


def reading_for(config: dict, **given) -> dict:
    """How to read a file for the model of `config`: each option of `given` (named as in DEFAULTS) that is not None,
    else the model's record (`model_reading`)."""
    unknown = set(given) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown reading option(s) {sorted(unknown)}")
    return {key: given[key] if given.get(key) is not None else value
            for key, value in model_reading(config).items()}


def described(reading: dict) -> str:
    """The columns a reading names, for a message: "text column 'message', label column 'category'"."""
    return ", ".join(f"{key.replace('_', ' ')} {value!r}" for key, value in reading.items() if value is not None)

