"""The deletion test's core, without PyTorch: remove each text's top-ranked words, answer again, count what changed.

A text's words are spans of its token positions (an Explanation's `token_spans`: a word split into WordPiece pieces
is one word, removed whole). A ranking orders a text's words; removing its k first words (`removal_count`: a number,
or a percentage of the text, never the whole text) and answering the reduced texts again shows how much the answers
rested on them. The answers come from `probabilities(items) -> N x labels`, any backend's: the PyTorch network
(attentive/explain/deletion.py `deletion_test`, which adds gradient × input) or `Answerer.faithfulness`, which asks
the model's own backend (PyTorch, or an export's graph in ONNX Runtime) and ranks by that backend's own evidence.

`faithfulness` is the cheap test a model's `faithfulness` record holds (attentive.answer.types.faithfulness_line):
the share of answers that change when the 5% most attended words, 5% random words or the 5% words of most positive
signed evidence for the predicted label are removed; `sample` picks the (at most 300, seeded) texts it reads.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..text.encoding import Item
from .inputs import text_problem

TEXTS, FRACTION = 300, 0.05  # the texts of a split the faithfulness record reads at most, and the share removed

Probabilities = Callable[[list[Item]], np.ndarray]  # items -> N x labels, in input order


def removal_count(step: int | str, length: int) -> int:
    """Words to remove for a step: a number, or a percentage of the text (at least 1); never the whole text."""
    k = max(1, math.ceil(length * float(step[:-1]) / 100)) if isinstance(step, str) else step
    return min(k, length - 1)


def without(item: Item, positions: Sequence[int]) -> Item:
    gone = set(positions)
    return Item([t for i, t in enumerate(item.ids) if i not in gone], item.pair, item.aspect)


def word_spans(item: Item, spans: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """A text's words as token spans: those given, or one per token."""
    return list(spans) if spans is not None else [(p, p + 1) for p in range(len(item.ids))]


def removal_rows(probabilities: Probabilities, items: Sequence[Item], spans: list, rankings: dict, steps,
                 before: np.ndarray) -> list[dict]:
    """Per ranking and step: remove each text's k top-ranked words (whole words, `spans`), answer again, and measure
    the flip rate and the mean drop of the originally predicted class's probability (`before`)."""
    predicted = before.argmax(1)
    index = np.arange(len(items))
    rows = []
    for ranking, orders in rankings.items():
        for step in steps:
            counts = [removal_count(step, len(text_spans)) for text_spans in spans]
            reduced = [without(item, [p for w in order[:k] for p in range(*text_spans[w])])
                       for item, order, k, text_spans in zip(items, orders, counts, spans)]
            after = probabilities(reduced)
            rows.append({"ranking": ranking, "step": str(step), "k_mean": round(float(np.mean(counts)), 3),
                         "flip_rate": round(float((after.argmax(1) != predicted).mean()), 6),
                         "probability_drop": round(float((before[index, predicted]
                                                          - after[index, predicted]).mean()), 6)})
    return rows


def faithfulness(probabilities: Probabilities, items: Sequence[Item], explanations: Sequence,
                 fraction: float = FRACTION, seed: int = 0) -> dict:
    """The share of answers that change when the `fraction` of each text's words (at least one, never all) with the
    most attention (heads summed), chosen at random, or with the most positive signed evidence for the predicted label
    (Explanation.evidence) is removed. `explanations` are the items' (whole words: `token_spans`), made by the backend
    `probabilities` asks; texts of one word are left out. Returns {"texts": n, "fraction": f, "flipped":
    {"attention": .., "random": .., "evidence": ..}} (a ranking the model cannot give, attention without attention
    or evidence without evidence, is left out)."""
    spans = [word_spans(item, e.token_spans) for item, e in zip(items, explanations)]
    keep = [i for i, text_spans in enumerate(spans) if len(text_spans) >= 2]  # one word cannot lose a word
    items, spans = [items[i] for i in keep], [spans[i] for i in keep]
    explanations = [explanations[i] for i in keep]
    if not items:
        return {"texts": 0, "fraction": fraction, "flipped": {}}
    rng = np.random.default_rng(seed)
    rankings = {}
    if all(e.attention is not None for e in explanations):
        rankings["attention"] = [np.argsort(-e.summed, kind="stable") for e in explanations]
    rankings["random"] = [rng.permutation(len(text_spans)) for text_spans in spans]
    evidence = [e.evidence for e in explanations]
    if all(v is not None for v in evidence):
        rankings["evidence"] = [np.argsort(-v, kind="stable") for v in evidence]
    rows = removal_rows(probabilities, items, spans, rankings, (f"{100 * fraction:g}%",), probabilities(items))
    return {"texts": len(items), "fraction": fraction,
            "flipped": {row["ranking"]: round(row["flip_rate"], 4) for row in rows}}


def sample(examples: Sequence, is_pair: bool, uses_aspect: bool, seed: int = 0, limit: int = TEXTS) -> list:
    """At most `limit` of `examples` (a seeded sample, in their order) that a model can answer: a text (and a pair
    model's second text) that is no problem (inputs.text_problem), an aspect where the model needs one."""
    usable = [ex for ex in examples if text_problem(ex.text) is None
              and (not is_pair or text_problem(ex.text_pair or "") is None)
              and (not uses_aspect or ex.aspect is not None)]
    if not usable:
        return []
    chosen = sorted(np.random.default_rng(seed).choice(len(usable), min(limit, len(usable)), replace=False))
    return [usable[i] for i in chosen]


def measure(answerer, examples: Sequence, seed: int = 0, fraction: float = FRACTION, limit: int = TEXTS) -> dict | None:
    """`answerer.faithfulness` (attentive.answer.answerer.Answerer) on `sample(examples)`; None where no text can be
    tested (none usable, none of at least two words)."""
    chosen = sample(examples, answerer.is_pair, answerer.uses_aspect, seed, limit)
    if not chosen:
        return None
    result = answerer.faithfulness([ex.text for ex in chosen],
                                   [ex.text_pair for ex in chosen] if answerer.is_pair else None,
                                   [ex.aspect for ex in chosen] if answerer.uses_aspect else None, fraction, seed)
    return result if result["texts"] else None
