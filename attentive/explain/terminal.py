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
        label += channel_summary(explanation)
        if explanation.attention is None:
            table.add_row(label, Text(" ".join(explanation.words)))
            continue
        table.add_row(label, heat_text(explanation.words, explanation.summed))
        if heads:
            for head, weights in enumerate(explanation.attention):
                table.add_row(f"  head {head + 1}", heat_text(explanation.words, weights))
    return table


def channel_summary(explanation) -> str:
    """For a wide-and-deep model, each channel's part of the margin over the runner-up label ("" otherwise)."""
    margins = explanation.channel_margins()
    if margins is None:
        return ""
    return "\nmargin over runner-up:\n" + "\n".join(f"  {name} {value:+.2f}" for name, value in margins.items())


WIDE_COLUMNS = {"ngrams": "n-grams"}  # the wide channel's column in the word table


def word_table(explanation, labels: list[str]) -> Table:
    """Per word, side by side: the attention score before the softmax, the weight after it, and the word's polarity
    score for each class (Sun & Lu 2020, Fig. 1 and §4). Several heads: the scores are averaged over heads and the
    weight is the summed-and-renormalised view."""
    heads = 0 if explanation.scores is None else len(explanation.scores)
    table = Table(title=explanation.prediction.headline, show_edge=False)
    longest = max(map(len, explanation.words), default=1)  # a whole word shown whole, a very long one folded
    table.add_column("word", min_width=min(longest, 24), overflow="fold")
    table.add_column("score" if heads <= 1 else f"score (mean of {heads} heads)", justify="right")
    table.add_column("weight", justify="right")
    for label in labels:
        table.add_column(f"polarity {label}", justify="right")
    ngrams = explanation.ngram_words
    if ngrams is not None:
        predicted = labels.index(explanation.prediction.label)
        channel = next(name for name in explanation.channels if name != "attention")
        table.add_column(f"{WIDE_COLUMNS.get(channel, channel)} {explanation.prediction.label}", justify="right")
    summed = explanation.summed
    for j, word in enumerate(explanation.words):
        score = "—" if not heads else f"{float(explanation.scores[:, j].mean()):+.3f}"
        weight = "—" if summed is None else f"{float(summed[j]):.3f}"
        polarity = ["—"] * len(labels) if explanation.polarity is None else \
            [f"{float(v):+.3f}" for v in explanation.polarity[j]]
        wide = [] if ngrams is None else [f"{float(ngrams[j, predicted]):+.3f}"]
        table.add_row(word, score, weight, *polarity, *wide)
    return table
