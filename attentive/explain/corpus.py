"""Corpus-level views of what a model attends to, computed from its explanations of a dataset split.

- top attended words per class (LAMA paper Table 4),
- the weight distribution of chosen words in texts of each label (LAMA paper Fig. 2),
- head redundancy: the mean A A^T and its mean off-diagonal (Lin et al. 2017 Fig. 3, §4.4),
- polarity score against attention score by word class, and attention entropy (Sun & Lu 2020 Fig. 3-4).

Each function takes the explanations (`Model.explain`) and the gold labels and returns plain numbers; plotting and
writing files is attentive.explain.report's job.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np


def top_words(explanations, gold: list[str], labels: list[str], min_count: int = 5, top: int = 15) -> list[dict]:
    """Per gold class, the words with the highest mean attention weight (heads summed and renormalised) over their
    occurrences in that class's texts, among words seen at least `min_count` times there."""
    weights: dict[tuple[str, str], list[float]] = defaultdict(list)
    for explanation, label in zip(explanations, gold):
        if explanation.attention is None:
            continue
        for word, weight in zip(explanation.words, explanation.summed):
            weights[(label, word.lower())].append(float(weight))
    rows = []
    for label in labels:
        scored = [(word, float(np.mean(values)), len(values)) for (cls, word), values in weights.items()
                  if cls == label and len(values) >= min_count]
        scored.sort(key=lambda row: -row[1])
        rows += [{"class": label, "rank": rank, "word": word, "mean_weight": round(mean, 6), "count": count}
                 for rank, (word, mean, count) in enumerate(scored[:top], start=1)]
    return rows


def word_weights_by_label(explanations, gold: list[str], words: list[str]) -> dict[str, dict[str, list[float]]]:
    """word -> gold label -> the attention weight of every occurrence of the word in texts of that label."""
    wanted = {w.lower() for w in words}
    found: dict[str, dict[str, list[float]]] = {w.lower(): defaultdict(list) for w in words}
    for explanation, label in zip(explanations, gold):
        if explanation.attention is None:
            continue
        for word, weight in zip(explanation.words, explanation.summed):
            if word.lower() in wanted:
                found[word.lower()][label].append(float(weight))
    return {word: dict(by_label) for word, by_label in found.items()}


def head_redundancy(explanations) -> dict | None:
    """The mean over texts of A A^T (heads x heads) and its mean off-diagonal entry; None for one-head models."""
    grams = [e.attention @ e.attention.T for e in explanations if e.attention is not None and len(e.attention) > 1]
    if not grams:
        return None
    mean = np.mean(grams, axis=0)
    heads = mean.shape[0]
    offdiag = float((mean.sum() - np.trace(mean)) / (heads * (heads - 1)))
    return {"heads": heads, "mean_gram": mean.round(6).tolist(), "mean_offdiag": round(offdiag, 6)}


def attention_entropy(explanations) -> dict | None:
    """Entropy of each text's (summed) attention, also divided by log(length) so that 1 = uniform over its words."""
    values, normalised = [], []
    for explanation in explanations:
        if explanation.attention is None or len(explanation.words) < 2:
            continue
        weights = explanation.summed[explanation.summed > 0]
        entropy = float(-(weights * np.log(weights)).sum())
        values.append(entropy)
        normalised.append(entropy / np.log(len(explanation.words)))
    if not values:
        return None
    return {"texts": len(values), "mean_entropy": round(float(np.mean(values)), 6),
            "mean_normalised_entropy": round(float(np.mean(normalised)), 6), "normalised": normalised}


def polarity_points(explanations, labels: list[str], min_count: int = 3, max_points: int = 3000,
                    seed: int = 0) -> dict | None:
    """Sun & Lu's picture, for two-class models: every word occurrence as (attention score, polarity margin), the
    margin being its polarity towards labels[1] minus towards labels[0]. Each word type is put in a class by its
    mean margin over the corpus: labels[1] above +τ, labels[0] below -τ, "neutral" between, with τ half the
    standard deviation of the mean margins of the word types seen `min_count` times. None for other models."""
    if len(labels) != 2:
        return None
    occurrences: list[tuple[str, float, float]] = []
    for explanation in explanations:
        if explanation.polarity is None or explanation.scores is None:
            continue
        margins = explanation.polarity[:, 1] - explanation.polarity[:, 0]
        scores = explanation.scores.mean(0)
        occurrences += [(w.lower(), float(s), float(m)) for w, s, m in zip(explanation.words, scores, margins)]
    if not occurrences:
        return None
    by_word: dict[str, list[float]] = defaultdict(list)
    for word, _, margin in occurrences:
        by_word[word].append(margin)
    means = {word: float(np.mean(v)) for word, v in by_word.items() if len(v) >= min_count}
    tau = 0.5 * float(np.std(list(means.values()))) if means else 0.0

    def word_class(word: str) -> str:
        margin = means.get(word)
        if margin is None:
            return "rare"
        return labels[1] if margin > tau else labels[0] if margin < -tau else "neutral"

    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(occurrences), min(max_points, len(occurrences)), replace=False)
    points = [{"word": occurrences[i][0], "score": round(occurrences[i][1], 5), "margin": round(occurrences[i][2], 5),
               "class": word_class(occurrences[i][0])} for i in sorted(chosen)]
    return {"tau": round(tau, 6), "points": points}
