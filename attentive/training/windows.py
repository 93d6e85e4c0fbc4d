"""`train.window: W`: each epoch, a training text longer than W tokens is read through a window of W consecutive
tokens, its start drawn uniformly at random afresh each epoch; dev, test and every answer read whole texts.

An epoch then costs at most W tokens a text: the network's cost is linear in the tokens it reads (one embedding
lookup, one attention score and one n-gram row a token), so on long documents an epoch is cut by the share of tokens
past W. Over the epochs a long text shows the network different parts of itself (the random crop of image training,
here along the text). The attention pooling (LAMA paper §3, Eq. 4-6: a softmax over the text's words) and the n-gram
channel (its rows' mean) both average over the words read, so a model trained on windows reads a whole text at the
same scale.

The draws come from the run's seeded generator (the one the batches are shuffled with), one per text longer than W,
so a run is reproducible, a resumed run draws what the uninterrupted one would have, every torchrun rank draws the
same windows, and a set whose texts are all W tokens or shorter trains exactly as without a window.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..text.encoding import Item


def windowed(items: Sequence[Item], window: int | None, rng: np.random.Generator) -> Sequence[Item]:
    """This epoch's view of the training `items`: each text of more than `window` tokens cut to `window` consecutive
    tokens at a random start (its pair and aspect kept whole); `items` itself where `window` is None or no text is
    longer."""
    if not window:
        return items
    long = [row for row, item in enumerate(items) if len(item.ids) > window]
    if not long:
        return items
    starts = rng.integers(0, [len(items[row].ids) - window + 1 for row in long])
    view = list(items)
    for row, start in zip(long, starts):
        item = items[row]
        view[row] = Item(item.ids[start:start + window], item.pair, item.aspect)
    return view
