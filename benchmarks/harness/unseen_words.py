"""Accuracy by the share of a text's words (lowercased `\\w+` runs) that no training text holds, in fixed buckets."""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

WORD = re.compile(r"\w+")
BUCKETS = (("none unseen", 0.0, 0.0), ("<= 10% unseen", 0.0, 0.10), ("10-20% unseen", 0.10, 0.20),
           ("> 20% unseen", 0.20, 1.0))  # (name, above, up to): a share s falls where above < s <= up to


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def unseen_shares(train_texts: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Per text, the share of its words that no training text holds (0 for a text of no word)."""
    seen = {word for text in train_texts for word in words(text)}
    shares = []
    for text in texts:
        found = words(text)
        shares.append(sum(word not in seen for word in found) / len(found) if found else 0.0)
    return np.asarray(shares)


def accuracy_by_unseen(shares: np.ndarray, correct: Sequence[bool]) -> list[dict]:
    """Accuracy per bucket of `BUCKETS` (empty buckets left out): `bucket`, `texts`, `accuracy`."""
    correct = np.asarray(correct, dtype=bool)
    if shares.shape != correct.shape:
        raise ValueError(f"{len(shares)} shares for {len(correct)} answers")
    found = []
    for name, above, up_to in BUCKETS:
        chosen = shares == 0.0 if up_to == 0.0 else (shares > above) & (shares <= up_to)
        if chosen.any():
            found.append({"bucket": name, "texts": int(chosen.sum()), "accuracy": round(float(correct[chosen].mean()),
                                                                                       4)})
    return found
