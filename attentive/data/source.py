"""Where a command's labelled data comes from, resolved in one place: `DataSource` holds what the caller was given
(a named dataset or a `Dataset`, texts and labels in memory, or the user's files with their columns) and `load`
turns it into a `Dataset`, refusing data given in none or in more than one of those ways with one line. The CLI
(`--dataset` / `--train`), `attentive.train`, `cv`, `tune`, `Model.evaluate` and the training pipeline all resolve
their data through it, so that each way reads alike and says the same when it is missing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import AttentiveError
from .example import Dataset


@dataclass(frozen=True)
class Spelling:
    """How a caller names the three ways, for the one message that asks for the data one way."""

    dataset: str
    texts: str | None
    files: str

    def message(self) -> str:
        ways = [self.dataset, *([self.texts] if self.texts else []), self.files]
        return "give the data one way: " + (", ".join(ways[:-1]) + " or " + ways[-1])


PYTHON = Spelling("a dataset name (or a Dataset)", "texts= and labels=", "train= (a file)")
CLI = Spelling("--dataset NAME (see `attentive datasets`)", None, "--train FILE")


@dataclass(frozen=True)
class DataSource:
    dataset: str | Dataset | None = None
    texts: Sequence[str] | None = None
    labels: Sequence | None = None
    dev_texts: Sequence[str] | None = None
    dev_labels: Sequence | None = None
    train: str | Path | None = None
    dev: str | Path | None = None
    test: str | Path | None = None
    text_column: str = "text"
    label_column: str = "label"
    pair_column: str | None = None
    aspect_column: str | None = None
    label_separator: str | None = None
    data_dir: str | Path | None = None
    id_column: str | None = None

    def check(self, spelling: Spelling = PYTHON) -> None:
        """One line unless the data is given exactly one way."""
        given = [self.dataset is not None, self.texts is not None or self.labels is not None, self.train is not None]
        if sum(given) != 1:
            raise AttentiveError(spelling.message())

    def load(self, dev_fraction: float = 0.1, spelling: Spelling = PYTHON, unlabelled_rows: list | None = None) \
            -> Dataset:
        """The Dataset: a `Dataset` as it is; a named one read from `data_dir` ($ATTENTIVE_DATA or ../shared/data);
        texts and labels, or files, read as attentive.data.registry reads them. Where no dev split is given,
        `dev_fraction` of train is carved off (0: none, as cross-validation wants every row in train). With
        `unlabelled_rows` a list, the train file's rows without a label go there (`registry.load_files`)."""
        from . import registry

        self.check(spelling)
        if isinstance(self.dataset, Dataset):
            return self.dataset
        if self.dataset is not None:
            return registry.load_dataset(self.dataset, data_dir=self.data_dir, dev_fraction=dev_fraction)
        if self.train is not None:
            return registry.load_files(self.train, dev=self.dev, test=self.test, text_column=self.text_column,
                                       label_column=self.label_column, pair_column=self.pair_column,
                                       aspect_column=self.aspect_column, label_separator=self.label_separator,
                                       id_column=self.id_column, dev_fraction=dev_fraction,
                                       unlabelled_rows=unlabelled_rows)
        return registry.load_texts(self.texts, self.labels, self.dev_texts, self.dev_labels, dev_fraction=dev_fraction)


def resolve_dataset(dataset: str | Dataset, data_dir: str | Path | None = None) -> Dataset:
    """`dataset` itself if it is a `Dataset`, else the named dataset loaded (a `DataSource` of a name)."""
    return DataSource(dataset=dataset, data_dir=data_dir).load()


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
    from .reading import READING, reading_for
    from .registry import load_test_file, load_texts

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
