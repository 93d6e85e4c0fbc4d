"""The Python API, one to one with the CLI: `train(...)`, `load(path)`, `Model.predict(...)`, `Model.evaluate(...)`."""
from __future__ import annotations

from pathlib import Path

from .model import Explanation, Model, Prediction, pick_device, resolve_dataset
from .saved import load_folder
from .train.pipeline import check_aspects, train

__all__ = ["Explanation", "Model", "Prediction", "check_aspects", "load", "pick_device", "resolve_dataset", "train"]


def load(folder: str | Path, device: str | None = None) -> Model:
    """Read a saved model folder (safetensors + JSON; nothing unpickled)."""
    network, tokenizer, config = load_folder(folder)
    model = Model(network, tokenizer, config, device)
    model.folder = Path(folder)
    return model
