"""The one answer path: `Answerer` owns `predict`, `predict_proba` and `explain` for every backend, without PyTorch.

A call is checked once (`util.checks.check_call`), its texts expanded and checked once (`Inputs.expand`: each text
by `inputs.text_problem`, once) and encoded once (`Inputs.items`); then the backend is asked for no more than the
call `Need`s, and the answers are built here (`outputs.explanation`, `outputs.apply_threshold`). A backend is a
subclass that gives `labels`, `thresholds`, `inputs` and `_look`: `attentive.Model` (attentive/answer/torch_backend.py)
runs the network with PyTorch (attentive/answer/inference.py), `RuntimeModel` (attentive/answer/onnx_backend.py) the
exported graph with ONNX Runtime. So both answer the same texts the same way, and a change to how answers are made is
made once.

A caller that has expanded and checked the texts itself (`Inputs.expand`, told what it had checked before: the server
and `attentive predict` check each text where they read it, to name it in their own words) passes them `Expanded` in
place of `texts`, and they are answered as they are: checked once on the whole way to the network.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..text.encoding import Item
from ..util.checks import ArgumentError, check_call
from .abstain import abstain, abstain_of, check_abstain_below
from .inputs import Expanded, Inputs
from .outputs import apply_threshold, explanation, predictions
from .types import Explanation, Prediction


class Need(IntEnum):
    """How much of what the network saw a call needs; each level holds the ones before it."""

    PROBABILITIES = 0  # predict_proba: the probabilities alone (the runtime does not even fetch the attention)
    ATTENTION = 1  # predict: and each text's attention and linearised evidence (attentive/models/linearised.py),
    #   for its top words
    DETAILS = 2  # explain(with_polarity=False): and the attention scores, and a wide model's channel logits
    EVIDENCE = 3  # explain: and each word's polarity, n-gram scores and signed evidence (the linearised evidence the
    #   top words rank by; a model without it: PyTorch's backward pass, an export's occlusion)


@dataclass
class Looked:
    """One text as the backend saw it, each array cut to the text's own tokens; None where the call did not need it
    or the backend cannot compute it (an export gives the attention, and the evidence by occlusion)."""

    attention: np.ndarray | None = None  # heads x tokens, each row sums to 1
    scores: np.ndarray | None = None  # heads x tokens, before the softmax
    polarity: np.ndarray | None = None  # tokens x classes
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits (classes)
    ngram_words: np.ndarray | None = None  # tokens x classes: each token's share of the wide channel's logits
    attribution: dict | None = None  # the attention channel's evidence per token, margin and method
    #   (TextClassifier.attribution; an export's attentive/answer/occlusion.py)
    linear_evidence: np.ndarray | None = None  # tokens: each one's linearised evidence for the label ranked first
    #   (attentive/models/linearised.py), what the top words rank by where the model has it


AUTO, EVIDENCE_WORDS, ATTENTION = "auto", "evidence", "attention"  # what `predict`'s top words rank by
TOP_WORDS_BY = (AUTO, EVIDENCE_WORDS, ATTENTION)
NO_EVIDENCE_WORDS = ("top_words_by='evidence': this model gives no linearised evidence (it needs attention over its "
                     "states, an MLP head, single texts without aspects and one label per text): rank by attention")


def check_top_words_by(value) -> None:
    """ArgumentError unless `value` is "auto", "evidence" or "attention"."""
    if value not in TOP_WORDS_BY:
        raise ArgumentError(f"top_words_by={value!r}: must be {AUTO!r}, {EVIDENCE_WORDS!r} or {ATTENTION!r}")


def top_word_weights(seen: Looked, by: str, multi_label: bool) -> np.ndarray | None:
    """What a text's top words rank by (`by`, checked): its linearised evidence (tokens) where the backend gave it
    and the model answers one label, unless `by` is "attention"; else its attention (heads x tokens; None where it has
    none). "evidence" from a model without it is an ArgumentError."""
    if by != ATTENTION and seen.linear_evidence is not None and not multi_label:
        return seen.linear_evidence
    if by == EVIDENCE_WORDS:
        raise ArgumentError(NO_EVIDENCE_WORDS)
    return seen.attention


class Answerer(ABC):
    """What a trained model answers, over a backend that gives its probabilities and what it saw (`_look`)."""

    labels: list[str]  # the classes, in the order of the probabilities' columns
    thresholds: dict[str, float] | None  # a multi-label model's per-label thresholds; None for single-label
    temperature: float  # the calibration temperature its probabilities are computed at

    @property
    @abstractmethod
    def inputs(self) -> Inputs:
        """How this model's inputs are checked and encoded."""

    @abstractmethod
    def _look(self, items: list[Item], batch_size: int, need: Need) -> tuple[np.ndarray, list[Looked]]:
        """The backend: what the model answers for `items` (N x labels, in input order: softmax(logits / T) at its
        temperature, or a multi-label model's sigmoid per label) and, unless `need` is PROBABILITIES, what it saw of
        each item, as far as `need` asks. `items` is never empty."""

    @property
    def abstain_below(self) -> float | None:
        """The abstain threshold config.json keeps (attentive/answer/abstain.py; `attentive abstain` chooses it on
        dev), which `predict` applies when the call gives none; None where it keeps none."""
        return abstain_of(self.config, "config.json")

    @property
    def multi_label(self) -> bool:
        """Whether the model answers label sets: one independent sigmoid per label, each label given where its
        probability reaches its threshold (config.json's `multi_label` and `thresholds`)."""
        return self.thresholds is not None

    def explain(self, texts: list[str] | str | Expanded, pairs: list[str] | str | None = None, top_k: int = 5,
                batch_size: int = 128, aspects: list[str | None] | str | None = None) -> list[Explanation]:
        """Predictions with each (first) text's words and attention (heads x words), and what else the backend sees
        (`attentive.Model.explain`: per-word polarity and signed evidence; an export: evidence by occlusion)."""
        return self._explain(texts, pairs, top_k, batch_size, aspects, Need.EVIDENCE)

    def predict(self, texts: list[str] | str | Expanded, pairs: list[str] | str | None = None, top_k: int = 5,
                aspects: list[str | None] | str | None = None, threshold: float | None = None,
                batch_size: int = 128, top_words_by: str = AUTO,
                abstain_below: float | None = None) -> list[Prediction]:
        """Label, class probabilities and the `top_k` top words of each text (of each pair's first): those of most
        linearised evidence for its label, each with its evidence in logits (attentive/models/linearised.py:
        removed, they change about half again as many answers as the most attended), where the model gives it; the
        most attended, each with its share of the attention, where it does not (pairs, aspects, label sets, no
        attention over its states, another head than the MLP, an export whose config.json lacks `has_evidence`) or with
        `top_words_by="attention"`; `top_words_by="evidence"` refuses a model without it. `aspects` as in
        `explain`. With `threshold`, a text whose most probable label has a lower probability gets the label None:
        the model abstains rather than guess. A multi-label model answers `labels`, each label at or above its
        threshold chosen on dev (with `threshold`: at or above that, for every label). `abstain_below` (single-label
        models; default: the model's own, `abstain_below`, if it keeps one; 0: never): an answer whose most probable
        label's probability is below it says "none of these", label None and `abstained` true, its probabilities
        still given (attentive/answer/abstain.py); a single-label model's `threshold` is the same rule."""
        check_call(batch_size=batch_size, top_k=top_k, threshold=threshold)
        below = self._abstaining(abstain_below, threshold)
        check_top_words_by(top_words_by)
        texts, pairs, aspects = self._expanded(texts, pairs, aspects)
        items, encodings = self.inputs.items(texts, pairs, aspects, offsets=bool(top_k), words=bool(top_k))
        if not items:
            return []
        if top_k:
            probabilities, attention = self._top_word_weights(items, batch_size, top_words_by)
        else:
            probabilities, attention = self._look(items, batch_size, Need.PROBABILITIES)[0], [None] * len(items)
        return abstain(apply_threshold(predictions(texts, encodings, [len(item.ids) for item in items], self.labels,
                                                   probabilities, attention, aspects, top_k, self.thresholds),
                                       threshold), below)

    def _abstaining(self, abstain_below, threshold) -> float | None:
        """The abstain threshold of a `predict` call: `abstain_below`, else a single-label model's `threshold`, else
        the model's own; None for a multi-label model (given `abstain_below`, an ArgumentError)."""
        check_abstain_below(abstain_below)
        if self.multi_label:
            if abstain_below is not None:
                raise ArgumentError("abstain_below is for models that answer one label per text; this one is "
                                    "multi-label (its answers may hold no label already: threshold=)")
            return None
        if abstain_below is not None and threshold is not None:
            raise ArgumentError("give abstain_below or threshold, not both: for a single-label model they are one "
                                "rule")
        return next((value for value in (abstain_below, threshold) if value is not None), self.abstain_below)

    def predict_proba(self, texts: list[str] | str | Expanded, pairs: list[str] | str | None = None,
                      aspects: list[str | None] | str | None = None, batch_size: int = 128) -> np.ndarray:
        """Class probabilities as an array, texts x labels, columns in the order of `self.labels` (for an aspect
        model without `aspects`: one row per text and aspect, as in `explain`; a multi-label model's independent
        sigmoids do not sum to 1). Attention is not computed. No texts give an array of 0 rows and one column per
        label."""
        check_call(batch_size=batch_size)
        items, _ = self.inputs.items(*self._expanded(texts, pairs, aspects), offsets=False)
        if not items:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        return self._look(items, batch_size, Need.PROBABILITIES)[0]

    def faithfulness(self, texts: list[str] | str | Expanded, pairs: list[str] | str | None = None,
                     aspects: list[str | None] | str | None = None, fraction: float = 0.05, seed: int = 0,
                     batch_size: int = 128) -> dict:
        """The deletion test on this backend (attentive/answer/deletion.py faithfulness): the share of answers that
        change when the `fraction` of each text's words with the most attention, chosen at random (seeded), or with
        the most signed evidence for the predicted label is removed. The evidence is this backend's own (`explain`:
        the linearised evidence the top words rank by, where the model has it) and the reduced texts are answered by
        it (an export's graph in ONNX Runtime, the int8 one where that is what runs). {"texts", "fraction",
        "flipped"}."""
        from .deletion import faithfulness

        check_call(batch_size=batch_size)
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
            raise ArgumentError(f"fraction={fraction!r}: must be a number between 0 and 1")
        texts, pairs, aspects = self._expanded(texts, pairs, aspects)
        items, _ = self.inputs.items(texts, pairs, aspects, offsets=False)
        if not items:
            return {"texts": 0, "fraction": fraction, "flipped": {}}
        explanations = self.explain(Expanded(texts, pairs, aspects), top_k=0, batch_size=batch_size)
        return faithfulness(lambda reduced: self._look(reduced, batch_size, Need.PROBABILITIES)[0], items,
                            explanations, fraction, seed)

    def evaluate(self, dataset, split: str = "test", data_dir=None, labels=None, **columns) -> dict:
        """Accuracy, macro-F1, per-class precision/recall/F1, the confusion matrix, the expected calibration error
        (`ece`, of the probabilities at the model's `temperature`, also given) and the accuracy by length on one
        split of `dataset` (a name or a Dataset), or of your labelled file (CSV, TSV or JSONL, read with the columns
        the model was trained with, unless `columns` say otherwise: text_column=, label_column=, ...), or of texts
        and their `labels` (`evaluate(texts, labels)`); label sets go to `_evaluate_sets`. A label the model does not
        know is one line."""
        from ..data.source import scored_dataset
        from ..errors import AttentiveError
        from .metrics import compute_metrics

        if labels is None and not isinstance(split, str):  # evaluate(texts, labels)
            split, labels = "test", split
        data, forced = scored_dataset(self.config, dataset, labels, data_dir, **columns)
        split = forced or split
        examples = data.splits.get(split) or []
        if not examples:
            raise AttentiveError(f"dataset {data.name!r} has no {split!r} examples")
        if self.multi_label or data.multi_label:
            return self._evaluate_sets(data, split)
        unknown = sorted({ex.label for ex in examples} - set(self.labels))
        if unknown:
            raise AttentiveError(f"{data.name}/{split}: label(s) {', '.join(map(repr, unknown))} unknown to this model "
                                 f"(it knows {', '.join(self.labels)})")
        probabilities = self._split_probabilities(examples)
        predicted = [self.labels[i] for i in probabilities.argmax(1)]
        metrics = compute_metrics([ex.label for ex in examples], predicted, self.labels, probabilities,
                                  [ex.text for ex in examples])
        metrics.update(dataset=data.name, split=split, temperature=self.temperature)
        return metrics

    def _split_probabilities(self, examples: list) -> np.ndarray:
        """The probabilities `evaluate` scores: `predict_proba` of the examples' texts, pairs and aspects."""
        return self.predict_proba([ex.text for ex in examples],
                                  [ex.text_pair or "" for ex in examples] if self.is_pair else None,
                                  [ex.aspect for ex in examples] if self.uses_aspect else None)

    def _evaluate_sets(self, data, split: str) -> dict:
        """`evaluate` of label sets (metrics.multilabel_metrics): micro- and macro-F1, per-label F1, subset accuracy
        and Hamming loss at the model's thresholds, of the probabilities this backend answers (an export's: the
        graph that runs). A single-label model given label sets, a multi-label one given one label per text, or a
        label the model does not know is one line."""
        from ..data.label_sets import multi_hot
        from ..errors import AttentiveError
        from .metrics import multilabel_metrics, predicted_sets

        examples = data.splits[split]
        if not self.multi_label or not data.multi_label:
            which = "a single-label model" if not self.multi_label else "a multi-label model"
            given = "label sets" if data.multi_label else "one label per text"
            raise AttentiveError(f"{data.name}/{split} gives {given}, and this is {which}")
        unknown = sorted({label for ex in examples for label in ex.labels} - set(self.labels))
        if unknown:
            raise AttentiveError(f"{data.name}/{split}: label(s) {', '.join(map(repr, unknown))} unknown to this model "
                                 f"(it knows {', '.join(self.labels)})")
        predicted = predicted_sets(self._split_probabilities(examples), self.thresholds, self.labels)
        metrics = multilabel_metrics(multi_hot(examples, self.labels), predicted, self.labels)
        metrics.update(dataset=data.name, split=split, multi_label=True, thresholds=self.thresholds)
        return metrics

    def _top_word_weights(self, items: list[Item], batch_size: int,
                          by: str) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """What `predict` needs of `items`: their probabilities and what each one's top words rank by
        (`top_word_weights`), as `_look` gives them at Need.ATTENTION (a backend that has them without a `Looked`
        per item gives them directly)."""
        probabilities, looked = self._look(items, batch_size, Need.ATTENTION)
        return probabilities, [top_word_weights(seen, by, self.multi_label) for seen in looked]

    def _explain(self, texts, pairs, top_k: int, batch_size: int, aspects, need: Need) -> list[Explanation]:
        """`explain`, its call checked, seeing as far as `need` (a backend's explain that takes more options picks
        it)."""
        check_call(batch_size=batch_size, top_k=top_k)
        return self._answers(texts, pairs, top_k, batch_size, aspects, need)

    def _answers(self, texts, pairs, top_k: int, batch_size: int, aspects, need: Need) -> list[Explanation]:
        """The explanations of a checked call: texts expanded, checked and encoded once, the backend asked once."""
        texts, pairs, aspects = self._expanded(texts, pairs, aspects)
        items, encodings = self.inputs.items(texts, pairs, aspects)
        if not items:
            return []
        probabilities, looked = self._look(items, batch_size, need)
        thresholds = self.thresholds
        return [explanation(text, encoding, item, self.labels, probs, seen.attention, aspect, top_k,
                            thresholds=thresholds, scores=seen.scores, polarity=seen.polarity,
                            channels=seen.channels, ngram_words=seen.ngram_words, attribution=seen.attribution,
                            linear_evidence=None if thresholds is not None else seen.linear_evidence)
                for text, encoding, item, probs, seen, aspect in
                zip(texts, encodings, items, probabilities, looked, aspects)]

    def _expanded(self, texts, pairs, aspects) -> tuple[list[str], list[str] | None, list]:
        """The call's texts, second texts and aspects, one of each per answer: expanded and checked (`Inputs.expand`),
        or as they are where the texts are `Expanded` already (holding their own pairs and aspects)."""
        if not isinstance(texts, Expanded):
            return self.inputs.expand(texts, pairs, aspects)
        if pairs is not None or aspects is not None:
            raise ArgumentError("texts are Expanded: their pairs and aspects are in them, give none beside them")
        return list(texts), texts.pairs, texts.aspects
