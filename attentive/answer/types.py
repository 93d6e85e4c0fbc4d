"""What a model answers, as plain data (numpy, no PyTorch): a `Prediction` per text, an `Explanation` with its words
and attention. Shared by both backends, `attentive.Model` and the torch-free `attentive.answer.onnx_backend`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

EVIDENCE_MEANING = ("evidence: how much each word adds to the answered label's lead over the runner-up, in logits "
                    "(the difference of their logits, split over the words with the attention held fixed); positive "
                    "for the answered label, negative against it")
# What `predict`'s top words, /predict, /explain, `explain`, its HTML and PNG, and the page all rank and colour words
# by, for PyTorch models and exports alike (attentive/models/linearised.py; `Explanation.evidence`); the top words are
# the words of most evidence above 0 (attentive/answer/top_words.py for_the_label). A model without it (no attention
# over its states, another head than the MLP, pairs, aspects, label sets) ranks its top words by attention.


@dataclass
class Prediction:
    label: str | None  # None: no label reached `predict`'s threshold
    probabilities: dict[str, float]
    top_words: list[tuple[str, float]] = field(default_factory=list)  # the words of most evidence for the label
    #   (EVIDENCE_MEANING, in logits; those above 0 alone); where the model has none (or with
    #   top_words_by="attention"), the most attended, heads summed, each with its share of the attention
    aspect: str | None = None  # the aspect this answer is about (aspect models)
    labels: list[str] | None = None  # multi-label models: every label at or above its threshold, most probable
    #   first (maybe none; `label` is then the first, or None); None for single-label models
    abstained: bool | None = None  # under an abstain threshold (attentive/answer/abstain.py): true where the most
    #   probable label's probability is below it (`label` None: "none of these"); None where no threshold applies

    @property
    def headline(self) -> str:
        """"positive (0.93)", with "for aspect service" when the answer is about an aspect; a multi-label answer
        names each of its labels: "food (0.93), service (0.71)"."""
        about = f" for aspect {self.aspect}" if self.aspect is not None else ""
        if self.labels:
            return ", ".join(f"{label} ({self.probabilities[label]:.2f})" for label in self.labels) + about
        if self.label is None:
            best = max(self.probabilities, key=self.probabilities.get)
            if self.abstained:
                return f"none of these (best {best}, {self.probabilities[best]:.2f}, is below the threshold){about}"
            return f"no label (best {best}, {self.probabilities[best]:.2f}, is below the threshold){about}"
        if self.labels is not None:
            return f"no label (best {best}, {self.probabilities[best]:.2f}, is below its threshold){about}"
        return f"{self.label} ({self.probabilities[self.label]:.2f}){about}"

    def as_dict(self) -> dict:
        """label, probabilities and top words (and the aspect); a multi-label answer also `labels`, its label set; an
        answer under an abstain threshold also `abstained` (true: "none of these", its label null). The JSON every
        answer is written as (predict's lines and tables, /predict, /explain): probabilities to 6 significant digits
        (`answer_probability`), top words' weights to 4 decimals; `self.probabilities` keeps them whole."""
        aspect = {"aspect": self.aspect} if self.aspect is not None else {}
        labels = {"labels": self.labels} if self.labels is not None else {}
        labels.update({"abstained": self.abstained} if self.abstained is not None else {})
        return {**aspect, "label": self.label, **labels,
                "probabilities": {label: answer_probability(p) for label, p in self.probabilities.items()},
                "top_words": [[word, round(weight, 4)] for word, weight in self.top_words]}


@dataclass
class Explanation:
    """One text's words and its attention: heads x words, plus the summed-and-renormalised view (Lin et al. §2.3).

    The words are whole words: a word the tokenizer split into WordPiece pieces ("yucks" as `yu` `##cks`) is one
    word, its attention, polarity and n-gram scores summed over its pieces and its score their log-sum-exp
    (attentive.answer.words.whole_words, merge_pieces); `token_spans` says which tokens each word was read as.

    `scores` are the attention scores before the softmax (heads x words); `polarity` (words x classes) is each
    word's own push towards each class (Sun & Lu 2020's s_j; see TextClassifier.word_polarity), None where the
    model's pooler does not allow it.

    Signed evidence (`evidence`, `channel_evidence`): per word, how much it moved the margin of the predicted label
    over the runner-up, from each channel (EVIDENCE_MEANING). The n-gram channel's is exact (its word scores sum to
    its logits); the attention channel's (`attribution`) is its share of the linearised evidence (`linearised`,
    what the top words rank by) where the model gives it, else exact for a model whose logits split over the words
    (identity encoder, linear head: Sun & Lu's weight × polarity), else gradient × input, named in its `method`; an
    exported model gives the whole model's linearised evidence, or for an export made before it existed its
    evidence by occlusion."""

    words: list[str]
    attention: np.ndarray | None
    prediction: Prediction
    scores: np.ndarray | None = None
    polarity: np.ndarray | None = None
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits over the classes
    ngram_words: np.ndarray | None = None  # words x classes: each word's share of the wide channel's logits
    #   (n-grams; for a pair model, the first text's words' share of the pair-word channel's)
    token_spans: list[tuple[int, int]] | None = None  # per word, the tokens it was read as: positions [start, end)
    #   (a word split into WordPiece pieces spans several; the per-word arrays above are summed over them)
    attribution: dict | None = None  # the attention channel's {"evidence": per word, "margin", "method"}
    #   (TextClassifier.attribution; an export's by occlusion, attentive/answer/occlusion.py), None where not computed
    linear_evidence: np.ndarray | None = None  # per word, its linearised evidence for the label ranked first, both
    #   channels (attentive/models/linearised.py): what the top words rank by; None where the model has none

    def label_words(self, top_k: int = 5) -> dict[str, list[tuple[str, float]]] | None:
        """A multi-label answer's explanation per label: for each label it gives, the `top_k` words of most evidence
        for that label, each word's summed attention times its polarity towards the label (its own logit for it,
        Sun & Lu 2020's a_j * s_j; exact for a linear head over an identity encoder, else an approximation). The
        attention is shared by the labels (one pooling per text); the polarity tells them apart. None for a
        single-label answer, or where the polarity was not computed (predict, an exported model)."""
        if self.prediction.labels is None or self.polarity is None or self.attention is None:
            return None
        names = list(self.prediction.probabilities)
        weighted = self.summed[:, None] * np.asarray(self.polarity, dtype=float)
        result = {}
        for label in self.prediction.labels:
            column = weighted[:, names.index(label)]
            order = np.argsort(-column, kind="stable")[:top_k]
            result[label] = [(self.words[i], float(column[i])) for i in order]
        return result

    def ranked(self) -> tuple[int, int]:
        """The indices of the label the model ranks first and of the runner-up (the second)."""
        values = sum(self.channels.values()) if self.channels is not None \
            else np.array(list(self.prediction.probabilities.values()))
        order = np.argsort(-values, kind="stable")
        return int(order[0]), int(order[1] if len(order) > 1 else order[0])

    def channel_evidence(self) -> dict[str, dict]:
        """Per channel: its margin (logit of the predicted label minus the runner-up's), each word's signed part of
        it (`evidence`, None where it cannot be computed) and how that was computed (`method`: "exact",
        "gradient_x_input", or why it is missing). The attention channel comes first; a wide-and-deep model's n-gram
        channel next, its evidence exact (attentive/models/wide.py word_scores)."""
        first, second = self.ranked()
        margins = self.channel_margins() or {}
        if self.attribution is not None:
            attention = {"margin": float(self.attribution["margin"]),
                         "evidence": np.asarray(self.attribution["evidence"], dtype=float),
                         "method": self.attribution["method"]}
        else:
            attention = {"margin": margins.get("attention"), "evidence": None,
                         "method": "missing: not computed (an exported model's occlusion reads texts of up to "
                                   "512 tokens and single-label models; predict computes none)"}
        result = {"attention": attention}
        for name in (self.channels or {}):
            if name == "attention":
                continue
            evidence = None if self.ngram_words is None else \
                np.asarray(self.ngram_words[:, first] - self.ngram_words[:, second], dtype=float)
            result[name] = {"margin": margins[name], "evidence": evidence,
                            "method": "exact" if evidence is not None else "missing: not computed"}
        return result

    @property
    def evidence(self) -> np.ndarray | None:
        """Per word, its signed evidence for the predicted label over the runner-up (EVIDENCE_MEANING): the linearised
        evidence the top words rank by where the model gives it (its channels' shares add up to it), else the
        channels' summed (those that have one); None where no channel has any."""
        if self.linear_evidence is not None:
            return np.asarray(self.linear_evidence, dtype=float)
        parts = [c["evidence"] for c in self.channel_evidence().values() if c["evidence"] is not None]
        return sum(parts) if parts else None

    def as_dict(self, top_k: int | None = None) -> dict:
        """The JSON of one explanation (the server's /explain answer): the prediction's (label, probabilities,
        `top_k` top words), the words, each head's attention and the summed view, `evidence` per word and
        `channels` ({name: {"margin", "evidence", "method"}})."""
        prediction = self.prediction.as_dict()
        if top_k is not None:
            prediction["top_words"] = prediction["top_words"][:top_k]
        attention, evidence = self.attention, self.evidence
        channels = {name: {"margin": _rounded(c["margin"]), "method": c["method"],
                           "evidence": None if c["evidence"] is None else [_rounded(v) for v in c["evidence"]]}
                    for name, c in self.channel_evidence().items()}
        per_label = self.label_words(top_k if top_k is not None else 5)
        label_words = {} if per_label is None else {"label_words": {
            label: [[word, _rounded(value)] for word, value in words] for label, words in per_label.items()}}
        return {**prediction, "words": self.words,
                "attention": None if attention is None else [[round(float(w), 5) for w in head] for head in attention],
                "summed": None if attention is None else [round(float(w), 5) for w in self.summed],
                "evidence": None if evidence is None else [_rounded(v) for v in evidence], "channels": channels,
                **label_words}

    def channel_margins(self) -> dict[str, float] | None:
        """Each channel's part of the decision: its logit of the predicted label minus its logit of the runner-up
        (the label the model ranked second). The parts add up to the whole model's margin, so a channel's share of
        the decision can be read off without approximation; None for models with one channel."""
        if self.channels is None:
            return None
        total = sum(self.channels.values())
        first, second = np.argsort(-total, kind="stable")[:2] if len(total) > 1 else (0, 0)
        return {name: float(logits[first] - logits[second]) for name, logits in self.channels.items()}

    @property
    def summed(self) -> np.ndarray | None:
        if self.attention is None:
            return None
        total = self.attention.sum(0)
        return total / total.sum()


def answer_probability(p: float) -> float:
    """A probability as answers give it: to 6 significant digits (0.987654321 is 0.987654, 3.14159e-07 is
    3.14159e-07): a small probability keeps its size rather than becoming 0, the order of two answers' probabilities
    holds wherever they differ in those digits, and an answer's probabilities still sum to 1 within 1e-5 (each is off
    by at most 5e-7 of itself)."""
    return float(f"{float(p):.6g}")


def _rounded(value) -> float | None:
    """An evidence value or margin as answers give it: 5 decimals (a value that rounds to 0 is 0, not -0)."""
    return None if value is None else round(float(value), 5) + 0.0


# `measured_on` of the training record an export keeps (attentive/onnx_format/write.py)
BEFORE_EXPORT = "pytorch before export"


def faithfulness_line(config: dict) -> str | None:
    """config.json's `faithfulness` (the deletion test run at the end of training, or `attentive evaluate`'s) as one
    line: "on dev, removing the 5% most attended words changed 31% of answers; 5% random words, 4%; 5% words of most
    evidence, 40%", ending with the model it was measured on where the record names one (`measured_on`: an export's
    copy of the training record, "pytorch before export", says it is not the export's; evaluate's names the PyTorch
    model, or the export's graph in ONNX Runtime). "on dev" is the record's `split` where it has one. None where the
    model has none (a folder saved before it existed) or it is not as training or evaluate writes it."""
    record = config.get("faithfulness") if isinstance(config, dict) else None
    if not isinstance(record, dict) or not isinstance(record.get("flipped"), dict):
        return None
    fraction, flipped = record.get("fraction"), record["flipped"]
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
        return None

    def share(name: str) -> str | None:
        value = flipped.get(name)
        return None if isinstance(value, bool) or not isinstance(value, (int, float)) else f"{100 * value:.0f}%"

    size = f"{100 * fraction:g}%"
    parts = []
    if share("attention") is not None:
        parts.append(f"removing the {size} most attended words changed {share('attention')} of answers")
    if share("random") is not None:
        parts.append(f"{size} random words, {share('random')}" if parts
                     else f"removing {size} random words changed {share('random')} of answers")
    if share("evidence") is not None:
        parts.append(f"{size} words of most evidence, {share('evidence')}")
    split = record.get("split", "dev")
    if not parts or not isinstance(split, str):
        return None
    return f"on {split}, " + "; ".join(parts) + _measured_on(record)


def _measured_on(record: dict) -> str:
    """The line's ending naming the model the record was measured on; "" where it names none (a saved model's own
    training record)."""
    where, graph = record.get("measured_on"), record.get("graph")
    if where == BEFORE_EXPORT:
        return (" (measured on the PyTorch model before export, not on this export: attentive evaluate measures the "
                "export's own)")
    if where == "pytorch":
        return " (measured on the PyTorch model)"
    if where == "onnx":
        return f" (measured on the export's {graph} in ONNX Runtime)" if isinstance(graph, str) \
            else " (measured on the export in ONNX Runtime)"
    return ""
