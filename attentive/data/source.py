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

    def check(self, spelling: Spelling = PYTHON) -> None:
        """One line unless the data is given exactly one way."""
        given = [self.dataset is not None, self.texts is not None or self.labels is not None, self.train is not None]
        if sum(given) != 1:
            raise AttentiveError(spelling.message())

    def load(self, dev_fraction: float = 0.1, spelling: Spelling = PYTHON) -> Dataset:
        """The Dataset: a `Dataset` as it is; a named one read from `data_dir` ($ATTENTIVE_DATA or ../shared/data);
        texts and labels, or files, read as attentive.data.registry reads them. Where no dev split is given,
        `dev_fraction` of train is carved off (0: none, as cross-validation wants every row in train)."""
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
                                       dev_fraction=dev_fraction)
        return registry.load_texts(self.texts, self.labels, self.dev_texts, self.dev_labels, dev_fraction=dev_fraction)


def resolve_dataset(dataset: str | Dataset, data_dir: str | Path | None = None) -> Dataset:
    """`dataset` itself if it is a `Dataset`, else the named dataset loaded (a `DataSource` of a name)."""
    return DataSource(dataset=dataset, data_dir=data_dir).load()
