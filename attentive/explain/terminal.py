"""Attention and evidence in the terminal (rich): each word on a background whose strength is its attention weight,
or its signed evidence (blue towards the predicted label, red against it, as on the page). Where colour does not
show (`plain`: output piped or logged, or NO_COLOR) the words that stand out are marked in the text itself."""
from __future__ import annotations

import numpy as np
from rich.table import Table
from rich.text import Text

from ..answer.types import EVIDENCE_MEANING

TOWARDS, AGAINST = (33, 102, 172), (214, 96, 77)  # the page's diverging scale of signed evidence
MARKED = 0.25  # plain text marks the words of at least this share of the text's largest value
PLAIN_KEY = ("plain text: a word at a quarter or more of its text's largest value is marked with it in brackets, "
             "▲ for the predicted label and ▼ against it (evidence, in logits), or its share of the attention")


def heat_text(words: list[str], weights: np.ndarray, plain: bool = False) -> Text:
    """Words coloured from white (no attention) to red (the most attended word of the text); `plain`: uncoloured,
    a word of at least MARKED of the largest weight followed by its weight in brackets."""
    text = Text()
    top = float(weights.max()) if len(weights) else 1.0
    for word, weight in zip(words, weights):
        level = float(weight) / top if top > 0 else 0.0
        if plain:
            text.append(f"{word}[{float(weight):.2f}]" if level >= MARKED else word)
        else:
            fade = int(255 * (1 - level))
            text.append(word, style=f"black on rgb(255,{fade},{fade})")
        text.append(" ")
    return text


def evidence_text(words: list[str], evidence: np.ndarray, plain: bool = False) -> Text:
    """Words on the diverging scale of their signed evidence (EVIDENCE_MEANING), full colour the text's largest
    |evidence|; `plain`: uncoloured, a word of at least MARKED of it marked ▲ (for the label) or ▼ (against) with
    its evidence."""
    text = Text()
    top = float(np.abs(evidence).max()) if len(evidence) else 1.0
    for word, value in zip(words, evidence):
        value = float(value)
        level = abs(value) / top if top > 0 else 0.0
        if plain:
            text.append(f"{'▲' if value > 0 else '▼'}{word}[{value:+.2f}]" if level >= MARKED else word)
        else:
            r, g, b = (round(255 - level * (255 - c)) for c in (TOWARDS if value >= 0 else AGAINST))
            text.append(word, style=f"black on rgb({r},{g},{b})")
        text.append(" ")
    return text


def explanation_table(explanations, gold: list[str] | None = None, heads: bool = False, plain: bool = False) -> Table:
    """One row per text: predicted label (and gold) with its top words, then each word's evidence, where the model
    gives it, and the summed attention heatmap (and each head's); `plain` marks words without colour."""
    table = Table(show_lines=True, title="evidence and attention (heads summed and renormalised, Lin et al. §2.3)",
                  caption=EVIDENCE_MEANING + (f"\n{PLAIN_KEY}" if plain else ""))
    table.add_column("prediction", no_wrap=True)
    table.add_column("text, by evidence (blue: for the label, red: against) and attention (red)")
    for number, explanation in enumerate(explanations):
        pred = explanation.prediction
        label = pred.headline
        if gold is not None:
            label += f"\ngold {gold[number]}"
        if pred.top_words:
            label += "\ntop words: " + ", ".join(word for word, _ in pred.top_words)
        label += channel_summary(explanation)
        evidence = explanation.evidence
        if evidence is not None:
            table.add_row(label, evidence_text(explanation.words, evidence, plain))
            label = "  attention"
        if explanation.attention is None:
            if evidence is None:
                table.add_row(label, Text(" ".join(explanation.words)))
            continue
        table.add_row(label, heat_text(explanation.words, explanation.summed, plain))
        if heads:
            for head, weights in enumerate(explanation.attention):
                table.add_row(f"  head {head + 1}", heat_text(explanation.words, weights, plain))
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
