"""`train.sampler: balanced`: each epoch's training rows drawn so that every class appears about equally often,
still cut into length-bucketed batches (attentive/text/encoding.py `batch_order`).

What an epoch draws. The n labelled training rows of k classes give each class a quota of n / k rows (the mean
class count; the remainder of n / k, one row each, goes to classes chosen at random), and each class fills its
quota by drawing its own rows uniformly **with replacement**: a minority class repeats its rows, a majority class
shows a different random part of its rows each epoch. This is, with exact per-class quotas instead of independent
draws, what PyTorch's `WeightedRandomSampler(weights = 1 / n_c per row, num_samples = n, replacement=True)` does,
the usual way to balance the batches of a skewed data set (random oversampling, which Buda et al. 2018, "A systematic
study of the class imbalance problem in convolutional neural networks", found the most dependable remedy). The
mean, not the largest class count (imbalanced-learn's `RandomOverSampler`), keeps an epoch at n rows: the same
number of batches as one pass of the default sampler, so `epochs`, `patience`, `max_updates` and the step-counting
hooks (the moving average) mean what they mean without it. Rows without a label (distillation's transfer texts)
are kept, once each, as the default sampler keeps them.

The draws come from the run's seeded generator, the one the default sampler shuffles with, so a run is
reproducible, a resumed run draws what the uninterrupted run would have, and under torchrun every rank draws the
same epoch plan before taking its shard of the batches (attentive/training/distributed.py `shard`).

Against `train.class_weight: balanced` (the loss reweighted, every row seen once): the same expected gradient, but
each step sees every class, with a minority class's few texts repeated instead of weighted up.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import AttentiveError
from ..text.encoding import batch_order
from .terms import UNLABELLED

BALANCED = "balanced"  # the sampler this module draws for; recipe_types.SAMPLERS lists every sampler


def balanced_rows(labels: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """One epoch's training row numbers, in no order: each class present among the labelled rows (class ids;
    `UNLABELLED` rows aside) drawn with replacement to an equal share of the labelled rows (see the module
    docstring), then every unlabelled row once. As many rows as `labels` has."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise AttentiveError("train.sampler=balanced draws by one class per training row; these labels are not "
                             "one class id per row")
    unlabelled = np.flatnonzero(labels == UNLABELLED)
    labelled = np.flatnonzero(labels != UNLABELLED)
    if not len(labelled):
        raise AttentiveError("train.sampler=balanced draws by each training row's one label, and no row has one "
                             "(a multi-label model, or one trained on unlabelled texts alone): leave train.sampler "
                             "'shuffle'")
    classes = np.unique(labels[labelled])
    quota = np.full(len(classes), len(labelled) // len(classes))
    quota[rng.choice(len(classes), len(labelled) - int(quota.sum()), replace=False)] += 1
    drawn = [rng.choice(labelled[labels[labelled] == c], size=int(q), replace=True) for c, q in zip(classes, quota)]
    return np.concatenate([*drawn, unlabelled]).astype(np.int64)


def balanced_batches(lengths: Sequence[int], labels: Sequence[int], batch_size: int,
                     rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch's batches of training row numbers: `balanced_rows`, bucketed by length as the default sampler's
    (pools of similar length, in random order; `batch_order`). A row drawn twice may share a batch with itself."""
    rows = balanced_rows(labels, rng)
    return [rows[batch] for batch in batch_order(np.asarray(lengths)[rows], batch_size, True, rng)]
