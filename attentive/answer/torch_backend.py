"""A trained classifier and its answers: `Model` (predict, explain, evaluate, analyze, save), the answer path's
PyTorch backend (predict, predict_proba and explain are `attentive.answer.answerer.Answerer`'s; the network runs in
`attentive.answer.inference.infer`), with the answers' `Prediction` and `Explanation`. `attentive.api` trains and loads
Models."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..data.batching import encode_items
from ..data.example import Dataset
from ..data.source import resolve_dataset
from ..errors import AttentiveError
from ..folders.saved import save_folder
from ..models.classifier import TextClassifier
from ..recipes.types import Recipe
from ..text.encoding import Item
from .abstain import abstain_of
from .answerer import Answerer, Looked, Need
from .config_entries import temperature_of, thresholds_of
from .inference import infer
from .inputs import Inputs
from .metrics import sigmoid
from .types import Explanation, Prediction

__all__ = ["Explanation", "Model", "Prediction", "pick_device"]


def available_devices() -> list[str]:
    """The devices PyTorch can compute on here: auto and cpu; cuda and cuda:0 ... where it sees a CUDA GPU; mps where
    it sees an Apple GPU."""
    found = ["auto", "cpu"]
    if torch.cuda.is_available():
        found += ["cuda", *(f"cuda:{index}" for index in range(torch.cuda.device_count()))]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append("mps")
    return found


def pick_device(device: str | None) -> str:
    """The device to compute on: CUDA where there is one for None or "auto"; a device not available here is an
    AttentiveError naming it and the devices there are."""
    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device != "cpu" and device not in available_devices():
        raise AttentiveError(f"device {device!r}: not a device available here; give one of "
                             f"{', '.join(available_devices())}")
    return device


class Model(Answerer):
    """A trained classifier with its tokenizer, labels, config.json and typed recipe (config["recipe"] is its dump);
    what `train` returns and `load` reads."""

    def __init__(self, network: TextClassifier, tokenizer, config: dict, device: str | None = None, *,
                 recipe: Recipe):
        self.network, self.tokenizer, self.config, self.recipe = network, tokenizer, config, recipe
        self.history = None  # the training History when this model was just trained
        self.folder: Path | None = None  # where it is saved (its metrics.jsonl lives there), if anywhere
        self.labels: list[str] = config["labels"]
        self.device = pick_device(device)
        self.network.to(self.device).eval()
        temperature_of(config)  # a damaged calibration entry fails at load, not at the first answer
        thresholds_of(config, "config.json")  # likewise a multi-label model's thresholds
        abstain_of(config, "config.json")  # and its abstain threshold

    @property
    def thresholds(self) -> dict[str, float] | None:
        """A multi-label model's per-label thresholds, chosen on dev after training (None for single-label)."""
        return thresholds_of(self.config, "config.json")

    def _look(self, items: list[Item], batch_size: int, need: Need) -> tuple[np.ndarray, list[Looked]]:
        """The answer path's PyTorch backend (attentive.answer.answerer.Answerer): the network over `items` in
        `attentive.answer.inference.infer`, computing no more than `need` asks; probabilities softmax(logits / T), or
        for a multi-label model the sigmoid of each label's logit (not temperature-scaled)."""
        inference = infer(self.network, items, batch_size, self.device, need, self.temperature)
        probabilities = sigmoid(inference.logits) if self.multi_label else inference.probabilities
        return probabilities, inference.looked or []

    @property
    def temperature(self) -> float:
        """The temperature of the probabilities (config.json's `calibration`, fitted on dev after training; 1 for a
        model saved without one): softmax(logits / T). It changes no predicted label and no attention."""
        return temperature_of(self.config)

    @property
    def max_length(self) -> int | None:
        return self.recipe.tokenizer.max_length

    @property
    def special_tokens(self) -> bool:
        """A pretrained tokenizer's [CLS] ... [SEP] are part of the input; word-level tokenizers add none."""
        return self.recipe.tokenizer.type == "pretrained"

    def save(self, folder: str | Path) -> str:
        """Write the model folder as one (a reader never sees a mix of two models); returns the new model_id."""
        self.config["model_id"] = save_folder(Path(folder), self.network, self.tokenizer, self.config)
        return self.config["model_id"]

    def export(self, out: str | Path, int8: bool = False, overwrite: bool = False) -> Path:
        """Write the ONNX folder of this model (with its int8 graph too with `int8`) to `out`, as `attentive export`
        does (attentive/onnx_format/write.py); returns the folder. Save the model first (`save`): an export names the
        model it came from."""
        from ..onnx_format.write import export

        return export(self, out, int8=int8, overwrite=overwrite)

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

    @property
    def inputs(self) -> Inputs:
        """How this model's inputs are checked and encoded (shared with the exported-model runtime)."""
        return Inputs(self.tokenizer, self.is_pair, self.uses_aspect, self.aspects,
                      self.recipe.aspect.type, self.max_length, self.special_tokens)

    def explain(self, texts: list[str] | str, pairs: list[str] | str | None = None, top_k: int = 5,
                batch_size: int = 128, aspects: list[str | None] | str | None = None,
                with_polarity: bool = True) -> list[Explanation]:
        """Predictions with each (first) text's words and attention (heads x words). An aspect model takes `aspects`
        (one per text, or one for all); without them it answers for every aspect category it knows, so the result
        then holds len(texts) x len(self.aspects) explanations. A single string is one text. `with_polarity`: also
        each word's polarity and signed evidence (the head once per word, and a backward pass)."""
        return self._explain(texts, pairs, top_k, batch_size, aspects,
                             Need.EVIDENCE if with_polarity else Need.DETAILS)

    def _split_probabilities(self, examples: list) -> np.ndarray:
        """`evaluate`'s probabilities, by the network over the encoded examples: at the model's temperature, or for a
        multi-label model the sigmoid of each label's logit (as `_look` gives them)."""
        inference = infer(self.network, self.encode_examples(examples), device=self.device,
                          temperature=self.temperature)
        return sigmoid(inference.logits) if self.multi_label else inference.probabilities

    def analyze(self, dataset: str | Dataset, out: str | Path, split: str = "test", limit: int | None = 2000,
                words: list[str] = (), min_count: int = 5, compare: list[str | Path] = (), deletion: bool = True,
                data_dir: str | Path | None = None, overwrite: bool = False) -> dict:
        """Corpus analyses and the deletion test over a seeded sample of `limit` texts of a split (None: all), written
        to `out` as PNGs, CSV/JSON and index.html (attentive.explain.report); returns the summary. `overwrite`: write
        into a folder holding other files (only the report's own are replaced)."""
        from ..explain.report import analyze_split

        return analyze_split(self, resolve_dataset(dataset, data_dir), out, split, limit, words, min_count, compare,
                             deletion, overwrite)

    def encode_examples(self, examples) -> list:
        pairs = [ex.text_pair or "" for ex in examples] if self.is_pair else None
        return encode_items(self.tokenizer, [ex.text for ex in examples], pairs, self.max_length,
                            self.special_tokens, self.inputs.aspect_ids([ex.aspect for ex in examples]))
