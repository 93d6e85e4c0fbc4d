"""Does the attention explain the decision? A deletion test (in the spirit of Serrano & Smith 2019).

For each text, rank its words three ways — by attention weight (heads summed), at random, and by gradient × input
(the predicted class's logit differentiated by each word vector, dotted with that vector) — remove the k top-ranked
words (k = 1, 2, 5 and 10% of the text), classify again, and measure how often the prediction flips and how much the
originally predicted class's probability drops. A ranking that finds the words the decision rests on flips more.

The removal and its counting are the torch-free core of attentive/answer/deletion.py (which also holds the cheap
`faithfulness` test every backend runs, `Answerer.faithfulness`); here are what needs PyTorch: gradient × input, and
the full test over the network.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ..answer.deletion import removal_rows, word_spans
from ..answer.inference import predict_probabilities
from ..data.batching import Item, collate, iterate

STEPS: tuple[int | str, ...] = (1, 2, 5, "10%")
RANKINGS = ("attention", "random", "gradient")


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
    spans = [word_spans(item, None if words is None else words[i]) for i, item in enumerate(items)]
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
    rows = removal_rows(lambda reduced: predict_probabilities(network, reduced, device=device), items, spans,
                        rankings, steps, before)
    return {"texts": len(items), "one_word_texts_left_out": dropped,
            "rows": rows, "verdict": verdict(rows)}


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
