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


def is_file_name(name) -> bool:
    """Whether `name` (a dataset argument) names the user's file rather than a registered dataset: a Path, or a
    string that is not a dataset's name and names an existing file or ends in a data file's extension."""
    from .readers.generic import FORMATS
    from .registry import DATASETS

    if isinstance(name, Path):
        return True
    if not isinstance(name, str) or name in DATASETS:
        return False
    path = Path(name)
    suffix = Path(path.stem).suffix if path.suffix == ".gz" else path.suffix
    return path.is_file() or suffix.lower() in FORMATS


def scored_dataset(config: dict, dataset, labels=None, data_dir=None, **given):
    """(Dataset, split forced or None) that `evaluate` scores for the model of `config`: texts and their `labels` (a
    "test" split of them), the user's labelled file read as the model reads its files (`reading_for`; `given`
    options win), a Dataset as it is, or a registered dataset by name."""
    from .example import Dataset
    from .registry import load_test_file, load_texts
    from .source import resolve_dataset

    if labels is not None:
        if isinstance(dataset, (str, Path, Dataset)):
            raise AttentiveError("labels= goes with the texts they label: give evaluate(texts, labels), or a file or "
                                 "dataset without labels=")
        loaded = load_texts(dataset, labels, dev_fraction=0.0)
        loaded.splits["test"], loaded.splits["train"] = loaded.splits["train"], []
        return loaded, "test"
    if is_file_name(dataset):
        return load_test_file(dataset, **reading_for(config, **given)), "test"
    if isinstance(dataset, str) and dataset == config.get("dataset") and config.get(READING) is not None:
        raise AttentiveError(f"{dataset!r} is the file this model was trained on, not a named dataset: give the "
                             "file to evaluate on (its columns are read as training read them)")
    return resolve_dataset(dataset, data_dir), None
