"""A scikit-learn estimator: `AttentiveClassifier` trains an attentive model in `fit` and answers `predict`,
`predict_proba` and `score`, so that it drops into `cross_val_score`, `GridSearchCV` and pipelines.

    from attentive.sklearn import AttentiveClassifier
    cross_val_score(AttentiveClassifier(epochs=3), texts, labels, cv=5)
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted


class AttentiveClassifier(ClassifierMixin, BaseEstimator):
    """Texts in (a sequence of strings), labels out (any hashable labels, returned as given).

    `recipe` and `overrides` ("section.key=value") choose the model as in `attentive.train`; `epochs`, `lr` and
    `batch_size`, when not None, override the recipe's. A stratified `dev_fraction` of the texts given to `fit` is
    held out to choose the epoch. `random_state` seeds the training and the dev split. The fitted model is in
    `model_`, the labels in `classes_` (sorted)."""

    def __init__(self, recipe: str = "default", overrides: Sequence[str] = (), epochs: int | None = None,
                 lr: float | None = None, batch_size: int | None = None, dev_fraction: float = 0.1,
                 random_state: int = 0, device: str | None = None, verbose: bool = False):
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
        from .training.pipeline import train

        texts, labels = _texts(X), np.asarray(y)
        self.classes_ = np.unique(labels)
        names = {str(label) for label in self.classes_}
        if len(names) != len(self.classes_):
            raise ValueError("labels that are equal as strings (e.g. 1 and '1') cannot be told apart")
        data = load_texts(texts, [str(label) for label in labels], dev_fraction=self.dev_fraction,
                          seed=self.random_state)
        settings = {key: value for key, value in (("epochs", self.epochs), ("lr", self.lr),
                                                  ("batch_size", self.batch_size)) if value is not None}
        self.model_ = train(data, self.recipe, None, [*self.overrides, f"train.seed={self.random_state}"],
                            device=self.device, show_progress=self.verbose, settings=settings)
        self._columns = [self.model_.labels.index(str(label)) for label in self.classes_]
        return self

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, texts x `classes_`."""
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(_texts(X))[:, self._columns]

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """The most probable label of each text."""
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


def _texts(X) -> list[str]:
    texts = list(X.tolist() if isinstance(X, np.ndarray) else X)
    if any(not isinstance(text, str) for text in texts):
        raise ValueError("AttentiveClassifier takes texts: a sequence of strings")
    return texts
