"""The folds of `attentive cv` (attentive/selection/cv.py): what stratified k-fold cross-validation needs of the
rows (`check_folds`: every row labelled, two labels at least, as many rows of each label as folds), how the rows are
cut (`fold_splits`: each fold's test, then a dev split carved from the rest), and what each fold then needs to train
(`check_fold_training`); each shortfall is one line saying what is true and what to do.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.example import Example
from ..errors import AttentiveError


@dataclass(frozen=True)
class Fold:
    """The row indices (into the cross-validated rows) of one fold's train, dev and test parts; `number` from 1."""

    number: int
    train: tuple[int, ...]
    dev: tuple[int, ...]
    test: tuple[int, ...]


def check_folds(name: str, labels: Sequence[str | None], folds: int) -> None:
    """What stratified `folds`-fold cross-validation needs of the rows' labels, else one line naming the problem."""
    missing = sum(label is None for label in labels)
    if missing:
        raise AttentiveError(f"{name}: {missing} rows have no label; cross-validation needs every row labelled")
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    if len(counts) < 2:
        only = f"every row has the label {next(iter(counts))!r}" if counts else "no rows"
        raise AttentiveError(f"{name}: {only}; cross-validation needs rows of two classes at least")
    few = sorted((count, label) for label, count in counts.items() if count < folds)
    if few:
        count, label = few[0]
        short = f" ({len(few)} labels are short)" if len(few) > 1 else ""
        if count < 2:  # no number of folds helps: there are 2 at least
            raise AttentiveError(f"{name}: label {label!r} has 1 row: each fold tests every label, so a label needs "
                                 f"a row for each of the folds (2 at least): give more rows of it{short}")
        raise AttentiveError(f"{name}: label {label!r} has {count} rows, fewer than the {folds} folds (each fold "
                             f"tests every label): give --folds {count} or fewer, or more rows of it{short}")


def check_fold_training(name: str, labels: Sequence[str], splits: list[Fold]) -> None:
    """Each fold must leave, once its test rows and then its dev rows are held out, training rows of two labels at
    least and one dev row at least (what training needs); else one line naming the first fold that does not."""
    for fold in splits:
        kinds = {labels[i] for i in fold.train}
        if len(kinds) < 2 or not fold.dev:
            raise AttentiveError(f"{name}: {len(labels)} rows are too few for {len(splits)} folds: fold {fold.number} "
                                 f"keeps {len(fold.train)} training row(s) of {len(kinds)} label(s) and "
                                 f"{len(fold.dev)} dev row(s) once its {len(fold.test)} test rows are held out, and "
                                 "each fold trains on rows of two labels at least and chooses its epoch on a dev row: "
                                 "give more rows" + (", or fewer --folds" if len(splits) > 2 else ""))


def fold_splits(labels: Sequence[str], folds: int, seed: int = 13, dev_fraction: float = 0.1) -> list[Fold]:
    """Stratified k-fold (scikit-learn's StratifiedKFold, shuffled with `seed`) over rows with these labels; each
    fold's dev is a stratified `dev_fraction` of its other rows (`carve_dev`, seed `seed` + the fold's number), its
    train the rest. Test parts are disjoint and cover every row once; no fold's test row is in its train or dev."""
    from sklearn.model_selection import StratifiedKFold

    from ..data.splits import carve_dev

    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    result = []
    for number, (rest, test) in enumerate(splitter.split(np.zeros(len(labels)), list(labels)), 1):
        proxies = [Example(text=str(int(i)), label=labels[i]) for i in rest]  # carve_dev splits examples: carry indices
        kept, dev = carve_dev(proxies, dev_fraction, seed + number)
        result.append(Fold(number, tuple(sorted(int(ex.text) for ex in kept)),
                           tuple(sorted(int(ex.text) for ex in dev)), tuple(int(i) for i in test)))
    return result
