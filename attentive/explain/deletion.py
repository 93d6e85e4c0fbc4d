"""Does the attention explain the decision? A deletion test (in the spirit of Serrano & Smith 2019).

For each text, rank its words three ways — by attention weight (heads summed), at random, and by gradient × input
(the predicted class's logit differentiated by each word vector, dotted with that vector) — remove the k top-ranked
words (k = 1, 2, 5 and 10% of the text), classify again, and measure how often the prediction flips and how much the
originally predicted class's probability drops. A ranking that finds the words the decision rests on flips more.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from ..answer.inference import predict_probabilities
from ..data.batching import Item, collate, iterate

STEPS: tuple[int | str, ...] = (1, 2, 5, "10%")
RANKINGS = ("attention", "random", "gradient")


def removal_count(step: int | str, length: int) -> int:
    """Words to remove for a step: a number, or a percentage of the text (at least 1); never the whole text."""
    k = max(1, math.ceil(length * float(step[:-1]) / 100)) if isinstance(step, str) else step
    return min(k, length - 1)


def without(item: Item, positions: Sequence[int]) -> Item:
    gone = set(positions)
    return Item([t for i, t in enumerate(item.ids) if i not in gone], item.pair, item.aspect)


def gradient_times_input(network: torch.nn.Module, items: Sequence[Item], predicted: np.ndarray,
                         batch_size: int = 64, device: str | torch.device = "cpu") -> list[np.ndarray] | None:
    """Per text, per word: (∂ logit of the predicted class / ∂ word vector) · word vector. None when the model has
    no word-vector layer (a pretrained encoder reads token ids)."""
    if not hasattr(network.embedder, "table"):
        return None
    captured: list[torch.Tensor] = []  # per forward pass: the first text's word vectors (a pair's second comes next)

    def keep_words(_module, _inputs, output):
        leaf = output.detach().requires_grad_()
        captured.append(leaf)
        return leaf

    handle = network.embedder.register_forward_hook(keep_words)
    saliency: list[np.ndarray | None] = [None] * len(items)
    network.eval()
    try:
        with torch.enable_grad():
            for batch in iterate(items, batch_size):
                captured.clear()
                logits = network(**collate([items[i] for i in batch], device)).logits
                chosen = torch.as_tensor(predicted[batch], device=logits.device)
                logits.gather(1, chosen.unsqueeze(1)).sum().backward()
                words = captured[0]
                values = (words.grad * words).sum(-1).detach().cpu().numpy()
                for row, index in enumerate(batch):
                    saliency[index] = values[row, : len(items[index].ids)]
    finally:
        handle.remove()
    return saliency


def deletion_test(network: torch.nn.Module, items: Sequence[Item], attention: Sequence[np.ndarray],
                  steps: Sequence[int | str] = STEPS, seed: int = 0, device: str | torch.device = "cpu",
                  words: Sequence[Sequence[tuple[int, int]] | None] | None = None) -> dict:
    """Flip rate and mean probability drop per ranking and step, over the texts of at least two words.

    `attention` gives each text's per-word weights (the summed view). `words` gives each text's words as spans of
    token positions [start, end) (an Explanation's `token_spans`: a word split into WordPiece pieces is one word,
    removed whole, its gradient × input summed over its pieces); without it (or None for a text) each token is a word.
    Returns {"texts": n, "rows": [...], "verdict": "..."}; each row holds ranking, step, k_mean, flip_rate,
    probability_drop."""
    spans = [_spans(item, None if words is None else words[i]) for i, item in enumerate(items)]
    keep = [i for i in range(len(items)) if len(spans[i]) >= 2]  # one word cannot lose a word
    dropped = len(items) - len(keep)
    items, spans = [items[i] for i in keep], [spans[i] for i in keep]
    attention = [attention[i] for i in keep]
    before = predict_probabilities(network, items, device=device)
    predicted = before.argmax(1)
    rng = np.random.default_rng(seed)
    rankings = {"attention": [np.argsort(-w, kind="stable") for w in attention],
                "random": [rng.permutation(len(text_spans)) for text_spans in spans]}
    saliency = gradient_times_input(network, items, predicted, device=device)
    if saliency is not None:
        rankings["gradient"] = [np.argsort(-_per_word(s, text_spans), kind="stable")
                                for s, text_spans in zip(saliency, spans)]
    rows = _removal_rows(network, items, spans, rankings, steps, before, device)
    return {"texts": len(items), "one_word_texts_left_out": dropped,
            "rows": rows, "verdict": verdict(rows)}


def _removal_rows(network, items: Sequence[Item], spans: list, rankings: dict, steps, before: np.ndarray,
                  device) -> list[dict]:
    """Per ranking and step: remove each text's k top-ranked words (whole words, `spans`), classify again, and
    measure the flip rate and the mean drop of the originally predicted class's probability (`before`)."""
    predicted = before.argmax(1)
    rows = []
    for ranking, orders in rankings.items():
        for step in steps:
            counts = [removal_count(step, len(text_spans)) for text_spans in spans]
            reduced = [without(item, [p for w in order[:k] for p in range(*text_spans[w])])
                       for item, order, k, text_spans in zip(items, orders, counts, spans)]
            after = predict_probabilities(network, reduced, device=device)
            index = np.arange(len(items))
            rows.append({"ranking": ranking, "step": str(step), "k_mean": round(float(np.mean(counts)), 3),
                         "flip_rate": round(float((after.argmax(1) != predicted).mean()), 6),
                         "probability_drop": round(float((before[index, predicted]
                                                          - after[index, predicted]).mean()), 6)})
    return rows


def faithfulness(network: torch.nn.Module, items: Sequence[Item], explanations: Sequence, fraction: float = 0.05,
                 seed: int = 0, device: str | torch.device = "cpu") -> dict:
    """The cheap deletion test run at the end of training (kept in config.json as `faithfulness`): the share of
    answers that change when the `fraction` of each text's words (at least one, never all) with the most attention
    (heads summed), chosen at random, or with the most positive signed evidence for the predicted label
    (Explanation.evidence) is removed. `explanations` are the texts' (whole words: `token_spans`); texts of one word
    are left out. Returns {"dev_texts": n, "fraction": f, "flipped": {"attention": .., "random": .., "evidence": ..}}
    (a ranking the model cannot give, attention without attention, is left out)."""
    keep = [i for i, e in enumerate(explanations)
            if len(_spans(items[i], e.token_spans)) >= 2]
    items = [items[i] for i in keep]
    explanations = [explanations[i] for i in keep]
    spans = [_spans(item, e.token_spans) for item, e in zip(items, explanations)]
    if not items:
        return {"dev_texts": 0, "fraction": fraction, "flipped": {}}
    rng = np.random.default_rng(seed)
    rankings = {}
    if all(e.attention is not None for e in explanations):
        rankings["attention"] = [np.argsort(-e.summed, kind="stable") for e in explanations]
    rankings["random"] = [rng.permutation(len(text_spans)) for text_spans in spans]
    evidence = [e.evidence for e in explanations]
    if all(v is not None for v in evidence):
        rankings["evidence"] = [np.argsort(-v, kind="stable") for v in evidence]
    before = predict_probabilities(network, items, device=device)
    rows = _removal_rows(network, items, spans, rankings, (f"{100 * fraction:g}%",), before, device)
    return {"dev_texts": len(items), "fraction": fraction,
            "flipped": {row["ranking"]: round(row["flip_rate"], 4) for row in rows}}


def _spans(item: Item, spans: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """A text's words as token spans: those given, or one per token."""
    return list(spans) if spans is not None else [(p, p + 1) for p in range(len(item.ids))]


def _per_word(values: np.ndarray, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """Per-token values summed over each word's tokens."""
    return np.array([values[start:end].sum() for start, end in spans])


def verdict(rows: list[dict]) -> str:
    """One line: does removing the most attended words hurt more than removing random words, or gradient-ranked?"""
    def mean_flip(ranking: str) -> float | None:
        values = [r["flip_rate"] for r in rows if r["ranking"] == ranking]
        return float(np.mean(values)) if values else None

    attention, random, gradient = mean_flip("attention"), mean_flip("random"), mean_flip("gradient")
    parts = [f"attention ranks words {'better' if attention > random else 'no better'} than random "
             f"(mean flip rate {attention:.3f} vs {random:.3f})"]
    if gradient is not None:
        parts.append(f"{'better' if attention > gradient else 'worse'} than gradient x input ({gradient:.3f})")
    return ", ".join(parts)
