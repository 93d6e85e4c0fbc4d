"""The keywords of `attentive.train`, `cv`, `tune` and `distill`, told apart by name: the data's (a `DataSource`
field the command reads: `texts=`, `train=`, `text_column=`, ...), the run's (a `RunSettings` field: `out=`,
`device=`, `overwrite=`, ...) and the recipe's (everything else: `epochs=3`, `heads=5`, which the recipe checks, so
that an unknown name is still one line). Each command resolves its data to one `DataSource` and its run to one
`RunSettings` here, and passes the two down.
"""
from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from ..errors import AttentiveError
from ..util.run_settings import RUN_FIELDS, RunSettings
from .example import Dataset
from .source import DataSource

DATA_FIELDS = frozenset(field.name for field in fields(DataSource)) - {"dataset", "data_dir"}  # data_dir: a run setting


def split_keywords(data, settings: RunSettings | None, given: dict, takes: frozenset[str] = DATA_FIELDS,
                   out: str | Path | None = None) -> tuple[DataSource, RunSettings, dict]:
    """(the DataSource, the RunSettings, the recipe's keyword settings) of a command's arguments: `data` (a dataset
    name, a `Dataset`, a `DataSource` or None), `settings` (None: the defaults), the keywords `given` and `out`
    (given apart, as the commands take it second or third). A keyword the command's data `takes` builds the
    DataSource with `data` as its dataset; a RunSettings field (and `out`) replaces the settings' own; the rest are
    the recipe's. A DataSource given with data keywords, or settings that are no RunSettings, are one line. The
    DataSource reads named datasets from the settings' `data_dir` unless it names its own."""
    if settings is not None and not isinstance(settings, RunSettings):
        raise AttentiveError(f"settings: give an attentive.RunSettings (got {type(settings).__name__})")
    data_keywords = {name: value for name, value in given.items() if name in takes}
    run_keywords = {name: value for name, value in given.items() if name in RUN_FIELDS}
    recipe_keywords = {name: value for name, value in given.items()
                       if name not in data_keywords and name not in run_keywords}
    settings = replace(settings or RunSettings(), **run_keywords)
    if out is not None:
        settings = replace(settings, out=out)
    if isinstance(data, DataSource):
        if data_keywords:
            raise AttentiveError(f"give the data one way: a DataSource, or {', '.join(sorted(data_keywords))}= "
                                 "without one")
        source = data
    elif data is None or isinstance(data, (str, Path, Dataset)):
        source = DataSource(dataset=data, **data_keywords)
    else:
        raise AttentiveError(f"data: give a dataset name, a Dataset or a DataSource (got {type(data).__name__})")
    if source.data_dir is None and settings.data_dir is not None:
        source = replace(source, data_dir=settings.data_dir)
    return source, settings, recipe_keywords
