"""A scikit-learn estimator: `AttentiveClassifier` trains an attentive model in `fit` and answers `predict`,
`predict_proba` and `score`, so that it drops into `cross_val_score`, `GridSearchCV` and pipelines.

    from attentive.sklearn import AttentiveClassifier
    cross_val_score(AttentiveClassifier(epochs=3), texts, labels, cv=5)

It follows scikit-learn's conventions: bad input is a ValueError (continuous targets: "Unknown label type"), `predict`
before `fit` a NotFittedError, `random_state=None` fresh randomness, and its tags declare that it takes strings, not
numeric matrices (so scikit-learn's `check_estimator` skips it; tests/test_sklearn_conventions.py runs the checks).
"""
from __future__ import annotations

import numbers
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .data.checks import check_labels_given
from .data.example import Dataset
from .util.checks import ArgumentError, as_list, check_strings, overrides_argument

SEEDS = 2**31 - 1  # a seed drawn for random_state=None (or a RandomState) is below this


class AttentiveClassifier(ClassifierMixin, BaseEstimator):
    """Texts in (a sequence of strings), labels out (any hashable labels, returned as given).

    `recipe` and `overrides` ("section.key=value", or a list of them) choose the model as in `attentive.train`;
    `epochs`, `lr` and `batch_size`, when not None, override the recipe's. A stratified `dev_fraction` of the texts
    given to `fit` is held out to choose the epoch. `random_state` seeds the training and the dev split: an integer is
    the seed; None (or a numpy RandomState) draws one from numpy's random numbers, kept in `seed_`. The fitted model
    is in `model_`, the labels in `classes_` (sorted)."""

    def __init__(self, recipe: str = "default", overrides: str | Sequence[str] = (), epochs: int | None = None,
                 lr: float | None = None, batch_size: int | None = None, dev_fraction: float = 0.1,
                 random_state: int | np.random.RandomState | None = 0, device: str | None = None,
                 verbose: bool = False):
        self.recipe = recipe
        self.overrides = overrides
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.dev_fraction = dev_fraction
        self.random_state = random_state
        self.device = device
        self.verbose = verbose

    def fit(self, X: Sequence[str], y: Sequence) -> AttentiveClassifier:
        """Train on texts `X` with labels `y`; returns the estimator."""
        from .data.registry import load_texts
        from .recipes.for_data import recipe_for_data
        from .training.pipeline import train
        from .util.run_settings import RunSettings

        _check_dev_fraction(self.dev_fraction)
        labels = _labels(y)
        if labels.dtype.kind in "UO":  # the spaces around a label dropped and said, as attentive.train and the CLI do
            respaced = Counter(label for label in labels if isinstance(label, str) and label.strip() != label)
            if respaced:
                from .data.checks import data_warnings
                from .errors import DataWarning

                for line in data_warnings(Dataset("y", {}, []), {"y": respaced}):
                    warnings.warn(line, DataWarning, stacklevel=2)
                labels = np.array([label.strip() if isinstance(label, str) else label for label in labels],
                                  dtype=labels.dtype if labels.dtype.kind == "U" else object)
        self.classes_ = np.unique(labels)
        if len(self.classes_) < 2:
            held = f"one class, {self.classes_.tolist()[0]!r}" if len(self.classes_) else "no labels"
            raise ArgumentError(f"y holds {held}: a classifier needs examples of at least two classes")
        texts = _texts(X)
        if len(texts) != len(labels):
            raise ArgumentError(f"X holds {len(texts)} texts but y holds {len(labels)} labels: give one label per text")
        self.seed_ = _seed(self.random_state)
        data = load_texts(texts, [str(label) for label in labels], dev_fraction=self.dev_fraction, seed=self.seed_)
        settings = {key: value for key, value in (("epochs", self.epochs), ("lr", self.lr),
                                                  ("batch_size", self.batch_size)) if value is not None}
        overrides = [*overrides_argument(self.overrides), f"train.seed={self.seed_}"]
        recipe = recipe_for_data(data, self.recipe, overrides, settings)
        self.model_ = train(data, recipe, RunSettings(device=self.device, show_progress=self.verbose))
        self._columns = [self.model_.labels.index(str(label)) for label in self.classes_]
        return self

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, texts x `classes_`."""
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(_texts(X))[:, self._columns]

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """The most probable label of each text."""
        check_is_fitted(self, "model_")
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    def save(self, folder: str | Path) -> str:
        """Save the fitted model as `attentive train` saves one (`attentive.load(folder)` reads it back, and every
        command takes it); returns its model id."""
        check_is_fitted(self, "model_")
        return self.model_.save(folder)

    def export(self, out: str | Path, int8: bool = False, overwrite: bool = False) -> Path:
        """Export the fitted model to ONNX as `attentive export` does (with its int8 graph too with `int8`): the
        folder `attentive serve` and `attentive.load` run without PyTorch. Save it first (`save`)."""
        check_is_fitted(self, "model_")
        return self.model_.export(out, int8=int8, overwrite=overwrite)

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6: the input is strings (one text per sample), not a 2-D array of numbers."""
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def _more_tags(self) -> dict:
        """scikit-learn < 1.6: the same, in the older tag format."""
        return {"X_types": ["string"]}


def _texts(X) -> list[str]:
    """The texts of `X` (a sequence of strings), or a ValueError saying what it holds instead."""
    texts = as_list(X, "X")
    check_strings(texts, "X")
    return texts


def _labels(y) -> np.ndarray:
    """`y` as a 1-D array of class labels: a ValueError for no `y`, a missing (None, NaN) label, a continuous target
    or strings mixed with numbers (which could be equal as strings, 1 and '1'), as scikit-learn's classifiers raise."""
    if y is None:
        raise ArgumentError("AttentiveClassifier requires y to be passed, but the target y is None")
    labels = as_list(y, "y")
    check_labels_given(labels, "y")
    if len({type(label) for label in labels}) == 1 or all(isinstance(label, numbers.Number) for label in labels):
        array = np.asarray(labels)  # numbers stay numbers, so that continuous ones are recognised as such
    else:  # strings and numbers mixed: each kept as given (np.asarray would make them all strings)
        array = np.empty(len(labels), dtype=object)
        array[:] = labels
    check_classification_targets(array)
    return array


def _check_dev_fraction(dev_fraction) -> None:
    """An ArgumentError unless `dev_fraction` is a number between 0 and 1 (both excluded): the share of the texts
    given to `fit` held out as dev."""
    if isinstance(dev_fraction, bool) or not isinstance(dev_fraction, numbers.Real) or not 0 < dev_fraction < 1:
        raise ArgumentError(f"dev_fraction={dev_fraction!r}: must be a number between 0 and 1 (both excluded), the "
                            "share of the texts held out as dev to choose the epoch")


def _seed(random_state) -> int:
    """The training seed: an integer `random_state` as it is; None or a RandomState draws one (sklearn's rule)."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(SEEDS))
