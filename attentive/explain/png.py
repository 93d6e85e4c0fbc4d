"""Attention heatmaps as a PNG (matplotlib): for each text a words x heads grid, the summed view in the last
column; long texts are shown as several word columns side by side so that the picture stays readable."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from ..errors import AttentiveError
from ..util.atomic import atomic_write_bytes

WORDS_PER_COLUMN = 40


def save_png(explanations, path: str | Path) -> None:
    """Draw the heatmaps and write them to `path` as a PNG, atomically (whatever its name ends with)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with_attention = [e for e in explanations if e.attention is not None]
    if not with_attention:
        raise AttentiveError("this model has no attention to draw (its pooler averages or takes a maximum): "
                             "drop --png")
    panels = [(e, start) for e in with_attention for start in range(0, len(e.words), WORDS_PER_COLUMN)]
    width = max(2.5, 0.35 * (with_attention[0].attention.shape[0] + 1) + 1.5)
    fig, axes = plt.subplots(1, len(panels), figsize=(width * len(panels), 0.28 * WORDS_PER_COLUMN + 1.5),
                             squeeze=False)
    for ax, (explanation, start) in zip(axes[0], panels):
        words = explanation.words[start:start + WORDS_PER_COLUMN]
        grid = np.column_stack([explanation.attention.T, explanation.summed])[start:start + WORDS_PER_COLUMN]
        ax.imshow(grid / grid.max(axis=0, keepdims=True).clip(min=1e-12), cmap="Reds", aspect="auto", vmin=0, vmax=1)
        ax.set_yticks(range(len(words)), words, fontsize=8)
        heads = grid.shape[1] - 1
        ax.set_xticks(range(heads + 1), [str(h + 1) for h in range(heads)] + ["sum"], fontsize=7)
        ax.set_title(explanation.prediction.headline + (f", words {start + 1}-" if start else ""), fontsize=9)
        ax.set_xlabel("head (each column scaled to its maximum)", fontsize=7)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
