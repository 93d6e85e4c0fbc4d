"""A trained classifier and its answers: `Model` (predict, explain, evaluate, analyze, save), `Prediction` and
`Explanation`. `attentive.api` trains and loads Models."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from .data.batching import encode_items
from .data.example import Dataset
from .errors import AttentiveError
from .evaluate import compute_metrics
from .models.classifier import TextClassifier
from .saved import save_folder
from .text.tokenizer import UNK_ID
from .inference import infer, predict_probabilities


@dataclass
class Prediction:
    label: str | None  # None: no label reached `predict`'s threshold
    probabilities: dict[str, float]
    top_words: list[tuple[str, float]] = field(default_factory=list)  # most attended words, heads summed
    aspect: str | None = None  # the aspect this answer is about (aspect models)

    @property
    def headline(self) -> str:
        """"positive (0.93)", with "for aspect service" when the answer is about an aspect."""
        about = f" for aspect {self.aspect}" if self.aspect is not None else ""
        if self.label is None:
            best = max(self.probabilities, key=self.probabilities.get)
            return f"no label (best {best}, {self.probabilities[best]:.2f}, is below the threshold){about}"
        return f"{self.label} ({self.probabilities[self.label]:.2f}){about}"

    def as_dict(self) -> dict:
        aspect = {"aspect": self.aspect} if self.aspect is not None else {}
        return {**aspect, "label": self.label, "probabilities": self.probabilities,
                "top_words": [[word, round(weight, 4)] for word, weight in self.top_words]}


@dataclass
class Explanation:
    """One text's words and its attention: heads x words, plus the summed-and-renormalised view (Lin et al. §2.3).

    `scores` are the attention scores before the softmax (heads x words); `polarity` (words x classes) is each
    word's own push towards each class (Sun & Lu 2020's s_j; see TextClassifier.word_polarity), None where the
    model's pooler does not allow it."""

    words: list[str]
    attention: np.ndarray | None
    prediction: Prediction
    scores: np.ndarray | None = None
    polarity: np.ndarray | None = None
    channels: dict[str, np.ndarray] | None = None  # wide-and-deep models: each channel's logits over the classes
    ngram_words: np.ndarray | None = None  # words x classes: each word's share of the n-gram channel's logits

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


def pick_device(device: str | None) -> str:
    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def resolve_dataset(dataset: str | Dataset, data_dir: str | Path | None = None) -> Dataset:
    if isinstance(dataset, Dataset):
        return dataset
    from .data.registry import load_dataset

    return load_dataset(dataset, data_dir=data_dir)


class Model:
    """A trained classifier with its tokenizer, labels and recipe; what `train` returns and `load` reads."""

    def __init__(self, network: TextClassifier, tokenizer, config: dict, device: str | None = None):
        self.network, self.tokenizer, self.config = network, tokenizer, config
        self.history = None  # the training History when this model was just trained
        self.folder: Path | None = None  # where it is saved (its metrics.jsonl lives there), if anywhere
        self.labels: list[str] = config["labels"]
        self.device = pick_device(device)
        self.network.to(self.device).eval()

    @property
    def max_length(self) -> int | None:
        return self.config["recipe"]["tokenizer"].get("max_length")

    @property
    def special_tokens(self) -> bool:
        """A pretrained tokenizer's [CLS] ... [SEP] are part of the input; word-level tokenizers add none."""
        return self.config["recipe"]["tokenizer"].get("type") == "pretrained"

    def save(self, folder: str | Path) -> str:
        """Write the model folder as one (a reader never sees a mix of two models); returns the new model_id."""
        self.config["model_id"] = save_folder(Path(folder), self.network, self.tokenizer, self.config)
        return self.config["model_id"]

    @property
    def is_pair(self) -> bool:
        return self.network.is_pair

    @property
    def uses_aspect(self) -> bool:
        return self.network.uses_aspect

    @property
    def aspects(self) -> list[str]:
        """The aspect categories a learned-aspect model knows ([] for open-ended aspect terms and other models)."""
        return self.config.get("aspects", [])

    def aspect_ids(self, aspects: list[str | None]) -> list[list[int]] | None:
        """Each aspect as ids: its index in the model's categories (from 1), or its word ids for open-ended aspects."""
        if not self.uses_aspect:
            return None
        if any(not isinstance(a, str) or not a.strip() for a in aspects):
            raise AttentiveError("this model classifies a text with respect to an aspect: give one for every text")
        if self.config["recipe"]["aspect"]["type"] == "words":
            return [enc.ids or [UNK_ID] for enc in self.tokenizer.encode_batch(list(aspects))]
        index = {name: i for i, name in enumerate(self.aspects, start=1)}
        unknown = sorted({a for a in aspects if a not in index})
        if unknown:
            raise AttentiveError(f"unknown aspect(s) {', '.join(map(repr, unknown))}; this model knows "
                                 f"{', '.join(self.aspects)}")
        return [[index[a]] for a in aspects]

    def expand_aspects(self, texts: list[str], aspects: list[str | None] | str | None) -> tuple[list[str], list]:
        """(texts, aspects) with one aspect per text: a single aspect applies to every text; an aspect model given
        none answers for each category it knows (text-major order)."""
        if isinstance(aspects, str):
            aspects = [aspects] * len(texts)
        if not self.uses_aspect or aspects is not None:
            if aspects is not None and len(aspects) != len(texts):
                raise AttentiveError(f"{len(aspects)} aspects for {len(texts)} texts: give one per text")
            return texts, aspects or [None] * len(texts)
        if not self.aspects:
            raise AttentiveError("this model takes open-ended aspects: give the aspect of each text (--aspect)")
        return [t for t in texts for _ in self.aspects], [a for _ in texts for a in self.aspects]

    def _ids(self, texts: list[str], pairs: list[str] | None = None, aspects: list[str | None] | None = None):
        """The items to feed the network, and the first texts' encodings (for their words' character offsets)."""
        if self.is_pair and (pairs is None or len(pairs) != len(texts)):
            raise AttentiveError("this model classifies text pairs: give a second text (--pair) for every text")
        if not self.is_pair and pairs is not None:
            raise AttentiveError("this model classifies single texts: it takes no second text")
        for number, text in enumerate(list(texts) + list(pairs or []), 1):
            if not isinstance(text, str) or not text.strip():
                raise AttentiveError(f"text {number} is empty: nothing to classify")
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=self.special_tokens)
        return encode_items(self.tokenizer, texts, pairs, self.max_length, self.special_tokens,
                            self.aspect_ids(aspects or [None] * len(texts)), encodings), encodings

    def explain(self, texts: list[str] | str, pairs: list[str] | str | None = None, top_k: int = 5,
                batch_size: int = 128, aspects: list[str | None] | str | None = None,
                with_polarity: bool = True) -> list[Explanation]:
        """Predictions with each (first) text's words and attention (heads x words). An aspect model takes `aspects`
        (one per text, or one for all); without them it answers for every aspect category it knows, so the result
        then holds len(texts) x len(self.aspects) explanations. A single string is one text."""
        texts = [texts] if isinstance(texts, str) else texts
        pairs = [pairs] if isinstance(pairs, str) else pairs
        texts, aspects = self.expand_aspects(list(texts), aspects)
        if pairs is not None and len(pairs) != len(texts):
            raise AttentiveError(f"{len(pairs)} second texts for {len(texts)} texts: give one per text")
        ids, encodings = self._ids(texts, None if pairs is None else list(pairs), aspects)
        looked = infer(self.network, ids, batch_size, self.device, details=True, polarity=with_polarity).looked
        results = []
        for text, enc, item, seen, aspect in zip(texts, encodings, ids, looked, aspects):
            # a text with no known token was fed as one unknown token: show the whole text as that one "word"
            words = [text[start:end] for start, end in enc.offsets[: len(item.ids)]] or [text]
            row = seen.probabilities
            prediction = Prediction(self.labels[int(row.argmax())],
                                    {label: float(p) for label, p in zip(self.labels, row)}, aspect=aspect)
            explanation = Explanation(words, seen.attention, prediction, seen.scores, seen.polarity, seen.channels,
                                      seen.ngram_words)
            if seen.attention is not None and top_k:
                summed = explanation.summed
                order = np.argsort(-summed, kind="stable")[:top_k]
                prediction.top_words = [(words[i], float(summed[i])) for i in order]
            results.append(explanation)
        return results

    def predict(self, texts: list[str] | str, pairs: list[str] | str | None = None, top_k: int = 5,
                aspects: list[str | None] | str | None = None, threshold: float | None = None,
                batch_size: int = 128) -> list[Prediction]:
        """Label, class probabilities and the `top_k` most attended words of each text (of each pair's first);
        `aspects` as in `explain`. With `threshold`, a text whose most probable label has a lower probability gets
        the label None: the model abstains rather than guess."""
        texts = [texts] if isinstance(texts, str) else texts
        pairs = [pairs] if isinstance(pairs, str) else pairs
        explanations = self.explain(texts, pairs, top_k=top_k, batch_size=batch_size, aspects=aspects,
                                    with_polarity=False)
        predictions = [explanation.prediction for explanation in explanations]
        if threshold is not None:
            for prediction in predictions:
                if prediction.probabilities[prediction.label] < threshold:
                    prediction.label = None
        return predictions

    def predict_proba(self, texts: list[str] | str, pairs: list[str] | str | None = None,
                      aspects: list[str | None] | str | None = None, batch_size: int = 128) -> np.ndarray:
        """Class probabilities as an array, texts x labels, columns in the order of `self.labels` (for an aspect
        model without `aspects`: one row per text and aspect, as in `explain`). Attention is not computed."""
        texts = [texts] if isinstance(texts, str) else list(texts)
        pairs = [pairs] if isinstance(pairs, str) else pairs
        texts, aspects = self.expand_aspects(texts, aspects)
        if pairs is not None and len(pairs) != len(texts):
            raise AttentiveError(f"{len(pairs)} second texts for {len(texts)} texts: give one per text")
        ids, _ = self._ids(texts, None if pairs is None else list(pairs), aspects)
        return predict_probabilities(self.network, ids, batch_size, self.device)

    def evaluate(self, dataset: str | Dataset, split: str = "test", data_dir: str | Path | None = None) -> dict:
        """Accuracy, macro-F1, per-class precision/recall/F1 and the confusion matrix on one split."""
        data = resolve_dataset(dataset, data_dir)
        if split not in data.splits or not data.splits[split]:
            raise AttentiveError(f"dataset {data.name!r} has no {split!r} examples")
        examples = data.splits[split]
        unknown = sorted({ex.label for ex in examples} - set(self.labels))
        if unknown:
            raise AttentiveError(f"{data.name}/{split}: label(s) {', '.join(map(repr, unknown))} unknown to this model "
                                 f"(it knows {', '.join(self.labels)})")
        probs = predict_probabilities(self.network, self.encode_examples(examples), device=self.device)
        predicted = [self.labels[i] for i in probs.argmax(1)]
        metrics = compute_metrics([ex.label for ex in examples], predicted, self.labels)
        metrics.update(dataset=data.name, split=split)
        return metrics

    def analyze(self, dataset: str | Dataset, out: str | Path, split: str = "test", limit: int | None = 2000,
                words: list[str] = (), min_count: int = 5, compare: list[str | Path] = (), deletion: bool = True,
                data_dir: str | Path | None = None) -> dict:
        """Corpus analyses and the deletion test over a seeded sample of `limit` texts of a split (None: all), written
        to `out` as PNGs, CSV/JSON and index.html (attentive.explain.report); returns the summary."""
        from .explain.report import analyze, sample

        data = resolve_dataset(dataset, data_dir)
        examples = data.splits.get(split) or []
        if not examples:
            raise AttentiveError(f"dataset {data.name!r} has no {split!r} examples")
        chosen = sample(examples, limit)
        return analyze(self, self.folder, chosen, Path(out), list(words), min_count, [Path(c) for c in compare],
                       deletion, title=f"{self.folder.name if self.folder else 'model'} on {data.name}/{split}, "
                                        f"{len(chosen)} of {len(examples)} texts")

    def encode_examples(self, examples) -> list:
        pairs = [ex.text_pair or "" for ex in examples] if self.is_pair else None
        return encode_items(self.tokenizer, [ex.text for ex in examples], pairs, self.max_length,
                            self.special_tokens, self.aspect_ids([ex.aspect for ex in examples]))
