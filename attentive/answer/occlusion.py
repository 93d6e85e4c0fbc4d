"""Per-word evidence of an exported model, by occlusion: what each token adds to the margin of the label the model
ranks first over the runner-up, measured by answering the text again without it (the erasure of Li, Monroe and
Jurafsky 2016, "Understanding Neural Networks through Representation Erasure"; the deletion test of
attentive/explain/deletion.py removes words the same way).

The exported graph gives probabilities and attention, not the gradients PyTorch's explanations use
(`TextClassifier.attribution`), so `attentive explain`, the page and `/explain` of an export had attention alone.
Occlusion needs only the graph: a text of n tokens is answered n more times, each copy with one token left out (a
copy left with none reads one unknown token, as an empty text does), all in the batches of one `run`. A token's
evidence is the full text's margin less the margin without it, in logits: the margin is the difference of the two
labels' log-probabilities times the model's temperature, which for a softmax is exactly the difference of their
logits. Positive evidence is for the predicted label. A text of more than `MAX_TOKENS` tokens gets none here (n
copies of n tokens grow with n squared): the runtime gives it the graph's linearised evidence instead, where the
export has it (`linearised`); nor does a multi-label model, whose labels are not one softmax.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..text.encoding import Item
from ..text.tokenizer import UNK_ID

OCCLUSION, LINEARISED = "occlusion", "linearised"
MAX_TOKENS = 512
FLOOR = 1e-30  # log of a probability the graph rounded to 0


def label_margins(probabilities: np.ndarray, temperature: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's margin in logits (the difference of its first and second labels' log-probabilities times the
    temperature), and those two labels' indices (ties in label order)."""
    logs = temperature * np.log(np.maximum(probabilities, FLOOR))
    ranked = np.argsort(-probabilities, axis=1, kind="stable")
    first, second = ranked[:, 0], ranked[:, 1] if probabilities.shape[1] > 1 else ranked[:, 0]
    rows = np.arange(len(probabilities))
    return logs[rows, first] - logs[rows, second], first, second


def linearised(evidence: list[np.ndarray], probabilities: np.ndarray, temperature: float) -> list[dict]:
    """Items' {"evidence", "margin", "method": "linearised"} from the graph's linearised evidence (each item's, per
    token: attentive/models/linearised.py) and their probabilities."""
    margins = label_margins(probabilities, temperature)[0] if len(evidence) else []
    return [{"evidence": np.asarray(values, dtype=np.float64), "margin": float(margin), "method": LINEARISED}
            for values, margin in zip(evidence, margins)]


def occlusion_evidence(run: Callable, items: list[Item], probabilities: np.ndarray, temperature: float,
                       batch_size: int) -> list[dict | None]:
    """Each item's {"evidence": per token, "margin", "method": "occlusion"} (None for an item of more than
    `MAX_TOKENS` tokens), from `probabilities` (the items' own, N x labels) and `run(items, batch_size,
    attention_wanted=False)`, the runtime's answer of further items."""
    copies, owners = [], []
    for index, item in enumerate(items):
        if len(item.ids) > MAX_TOKENS:
            continue
        for position in range(len(item.ids)):
            ids = item.ids[:position] + item.ids[position + 1:]
            copies.append(Item(ids or [UNK_ID], item.pair, item.aspect))
            owners.append((index, position))
    found: list[dict | None] = [None] * len(items)
    if not copies:
        return found
    occluded, _ = run(copies, batch_size, attention_wanted=False)
    margins, first, second = label_margins(probabilities, temperature)
    for index, item in enumerate(items):
        if len(item.ids) <= MAX_TOKENS:
            found[index] = {"evidence": np.zeros(len(item.ids)), "margin": float(margins[index]), "method": OCCLUSION}
    owner_rows = np.array([index for index, _ in owners])
    occluded_logs = temperature * np.log(np.maximum(occluded, FLOOR))
    without = occluded_logs[np.arange(len(owners)), first[owner_rows]] - \
        occluded_logs[np.arange(len(owners)), second[owner_rows]]
    for (index, position), margin in zip(owners, without):
        found[index]["evidence"][position] = margins[index] - margin
    return found
