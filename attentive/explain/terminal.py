"""Attention in the terminal: each word on a background whose strength is its attention weight (rich)."""
from __future__ import annotations

import numpy as np
from rich.table import Table
from rich.text import Text


def heat_text(words: list[str], weights: np.ndarray) -> Text:
    """Words coloured from white (no attention) to red (the most attended word of the text)."""
    text = Text()
    top = float(weights.max()) if len(weights) else 1.0
    for word, weight in zip(words, weights):
        level = float(weight) / top if top > 0 else 0.0
        fade = int(255 * (1 - level))
        text.append(word, style=f"black on rgb(255,{fade},{fade})")
        text.append(" ")
    return text


def explanation_table(explanations, gold: list[str] | None = None, heads: bool = False) -> Table:
    """One row per text: predicted label (and gold), then the summed attention heatmap (and each head's)."""
    table = Table(show_lines=True, title="attention (heads summed and renormalised, Lin et al. §2.3)")
    table.add_column("prediction", no_wrap=True)
    table.add_column("text, coloured by attention")
    for number, explanation in enumerate(explanations):
        pred = explanation.prediction
        label = pred.headline
        if gold is not None:
            label += f"\ngold {gold[number]}"
        if explanation.attention is None:
            table.add_row(label, Text(" ".join(explanation.words)))
            continue
        table.add_row(label, heat_text(explanation.words, explanation.summed))
        if heads:
            for head, weights in enumerate(explanation.attention):
                table.add_row(f"  head {head + 1}", heat_text(explanation.words, weights))
    return table
