"""Attention and evidence heatmaps as a PNG (matplotlib): for each text a words x heads grid of attention, the summed
view in its last column, and beside it a column of each word's signed evidence (EVIDENCE_MEANING: blue towards the
predicted label, red against it, as on the page); long texts are shown as several word columns side by side so that
the picture stays readable. Each has one colour scale for the whole picture, drawn as a colourbar with its unit: the
attention from 0 to the largest share of any head, so that a head spreading its attention evenly shows pale; the
evidence from −m to +m, m the largest |evidence| drawn."""
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
    figure = heatmap_figure(panels, plt)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    plt.close(figure)
    atomic_write_bytes(path, buffer.getvalue())


def heatmap_figure(panels: list, plt):
    """The figure of `panels` ((explanation, first word) each): per panel the attention grid and, where the
    explanation has evidence, its evidence column; one colourbar per scale."""
    evidence = [e.evidence for e, _ in panels]
    attention_top = max(float(np.column_stack([e.attention.T, e.summed]).max()) for e, _ in panels)
    evidence_top = max([float(np.abs(values).max()) for values in evidence if values is not None and len(values)],
                       default=0.0)
    heads = panels[0][0].attention.shape[0]
    ratios = [ratio for values in evidence for ratio in ((heads + 1, 1) if values is not None else (heads + 1,))]
    width = max(2.5, 0.35 * (heads + 2) + 1.5)
    figure, axes = plt.subplots(1, len(ratios), figsize=(width * len(panels) + 1.5, 0.28 * WORDS_PER_COLUMN + 2),
                                squeeze=False, gridspec_kw={"width_ratios": ratios}, layout="constrained")
    axes = list(axes[0])
    attention_image = evidence_image = None
    for (explanation, start), values in zip(panels, evidence):
        ax = axes.pop(0)
        words = explanation.words[start:start + WORDS_PER_COLUMN]
        grid = np.column_stack([explanation.attention.T, explanation.summed])[start:start + WORDS_PER_COLUMN]
        attention_image = ax.imshow(grid, cmap="Purples", aspect="auto", vmin=0, vmax=attention_top or 1)
        ax.set_yticks(range(len(words)), words, fontsize=8)
        ax.set_xticks(range(heads + 1), [str(h + 1) for h in range(heads)] + ["sum"], fontsize=7)
        ax.set_title(explanation.prediction.headline + (f", words {start + 1}-" if start else ""), fontsize=9)
        ax.set_xlabel("head", fontsize=7)
        if values is not None:
            side = axes.pop(0)
            column = np.asarray(values, dtype=float)[start:start + WORDS_PER_COLUMN, None]
            evidence_image = side.imshow(column, cmap="RdBu", aspect="auto", vmin=-(evidence_top or 1),
                                         vmax=evidence_top or 1)
            side.set_yticks(range(len(words)), [])
            side.set_xticks([0], ["evidence"], fontsize=7)
    all_axes = figure.axes
    bar = figure.colorbar(attention_image, ax=all_axes, fraction=0.04, pad=0.01)
    bar.set_label("attention: share of the head's attention (sum: of all heads')", fontsize=7)
    if evidence_image is not None:
        bar = figure.colorbar(evidence_image, ax=all_axes, fraction=0.04, pad=0.01)
        bar.set_label("evidence, logits (blue: towards the predicted label, red: against)", fontsize=7)
    return figure
