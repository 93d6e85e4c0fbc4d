"""From the backend's numbers to answers, without PyTorch: `explanation` makes one text's `Explanation` and its
`Prediction`; `predictions` the Predictions of a whole call of `predict` at once (its top words by
attentive/answer/top_words.py); `apply_threshold` and `label_set` choose a multi-label answer's labels. Shared by both
backends through `Answerer`, so that they answer the same numbers the same way."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tokenizers import Encoding

from ..text.encoding import IdsAndWords, Item
from .top_words import for_the_label, top_words
from .types import Explanation, Prediction
from .words import merge_pieces, whole_words


def explanation(text: str, encoding: Encoding, item: Item, labels: list[str], probabilities: np.ndarray,
                attention: np.ndarray | None, aspect: str | None = None, top_k: int = 5,
                thresholds: dict[str, float] | None = None, **details) -> Explanation:
    """One text's Explanation and Prediction: its whole words (`whole_words`: a word the tokenizer split into pieces,
    "yucks" as `yu` `##cks`, is one word again, its attention and every per-word score merged over its pieces by
    `merge_pieces`; a text with no known token was fed as one unknown token, and is shown whole as that one word),
    the most probable label, the `top_k` top words (of most linearised evidence, `linear_evidence`, where the backend
    gave it, those for the label alone: `for_the_label`; else the most attended). With `thresholds` (a multi-label
    model: one per label) the prediction's `labels` are those at or above their threshold (`label_set`)."""
    words, spans = whole_words(text, encoding, len(item.ids))
    if attention is not None:
        attention = merge_pieces("attention", attention, spans)
    details = {name: merge_pieces(name, value, spans) for name, value in details.items()}
    if details.get("attribution") is not None:  # the attention channel's evidence, summed over each word's pieces
        attribution = details["attribution"]
        details["attribution"] = {**attribution, "evidence": merge_pieces("evidence", attribution["evidence"], spans)}
    prediction = Prediction(labels[int(probabilities.argmax())],
                            {label: float(p) for label, p in zip(labels, probabilities)}, aspect=aspect)
    if thresholds is not None:
        prediction.labels = label_set(prediction.probabilities, thresholds)
        prediction.label = prediction.labels[0] if prediction.labels else None
    result = Explanation(words, attention, prediction, token_spans=spans, **details)
    weights = result.linear_evidence if result.linear_evidence is not None else result.summed
    if weights is not None and top_k:
        order = np.argsort(-weights, kind="stable")[:top_k]
        prediction.top_words = [(words[i], float(weights[i])) for i in order]
        if result.linear_evidence is not None:
            prediction.top_words = for_the_label(prediction.top_words)
    return result


def predictions(texts: Sequence[str], encodings: Sequence[Encoding | IdsAndWords], lengths: Sequence[int],
                labels: list[str], probabilities: np.ndarray, attention: Sequence[np.ndarray | None],
                aspects: Sequence[str | None], top_k: int = 5,
                thresholds: dict[str, float] | None = None) -> list[Prediction]:
    """The Predictions `explanation` would give for the same texts (`lengths`: each one's tokens read, probabilities
    and attention one per text), made for the whole call at once and without the Explanations: `predict` answers
    only the label, the probabilities and the `top_k` most attended whole words (`top_words`), whose numbers are
    the same bit for bit (tests/answer/test_predictions.py, tests/answer/test_answer_path.py)."""
    best, rows = probabilities.argmax(1).tolist(), probabilities.tolist()
    if top_k:
        answers = [Prediction(labels[index], dict(zip(labels, row)), words, aspect) for index, row, words, aspect
                   in zip(best, rows, top_words(texts, encodings, lengths, attention, top_k), aspects)]
    else:
        answers = [Prediction(labels[index], dict(zip(labels, row)), aspect=aspect)
                   for index, row, aspect in zip(best, rows, aspects)]
    if thresholds is not None:
        for answer in answers:
            answer.labels = label_set(answer.probabilities, thresholds)
            answer.label = answer.labels[0] if answer.labels else None
    return answers


def apply_threshold(predictions: list[Prediction], threshold: float | None) -> list[Prediction]:
    """Label None where the most probable label's probability is below `threshold` (the model abstains). A
    multi-label answer's labels are chosen again with `threshold` in place of every label's own."""
    if threshold is not None:
        for prediction in predictions:
            if prediction.labels is not None:
                prediction.labels = label_set(prediction.probabilities, dict.fromkeys(prediction.probabilities,
                                                                                     threshold))
                prediction.label = prediction.labels[0] if prediction.labels else None
            elif prediction.probabilities[prediction.label] < threshold:
                prediction.label = None
    return predictions


def label_set(probabilities: dict[str, float], thresholds: dict[str, float]) -> list[str]:
    """A multi-label answer: every label whose probability is at least its threshold, the most probable first
    (ties in the model's label order)."""
    chosen = [label for label, p in probabilities.items() if p >= thresholds[label]]
    return sorted(chosen, key=lambda label: -probabilities[label])
