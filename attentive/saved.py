"""The saved-model folder: config.json (recipe, labels, sizes, versions), model.safetensors, tokenizer.json.

Every file is written atomically; loading reads JSON and safetensors only, nothing is unpickled.
"""
from __future__ import annotations

import json
import platform
from pathlib import Path

import safetensors.torch
import tokenizers
import torch
from tokenizers import Tokenizer

from . import __version__
from .errors import AttentiveError
from .io_utils import atomic_write_bytes, atomic_write_json, atomic_write_text
from .models.classifier import TextClassifier, build_model

FORMAT_VERSION = 1
CONFIG, WEIGHTS, TOKENIZER = "config.json", "model.safetensors", "tokenizer.json"


def versions() -> dict:
    return {"attentive": __version__, "torch": torch.__version__, "tokenizers": tokenizers.__version__,
            "python": platform.python_version()}


def save_folder(folder: Path, network: TextClassifier, tokenizer: Tokenizer, config: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().cpu().contiguous() for name, tensor in network.state_dict().items()}
    atomic_write_bytes(folder / WEIGHTS, safetensors.torch.save(state))
    atomic_write_text(folder / TOKENIZER, tokenizer.to_str())
    atomic_write_json(folder / CONFIG, {"format_version": FORMAT_VERSION, **config, "versions": versions()})


def load_folder(folder: str | Path) -> tuple[TextClassifier, Tokenizer, dict]:
    folder = Path(folder)
    for name in (CONFIG, WEIGHTS, TOKENIZER):
        if not (folder / name).exists():
            raise AttentiveError(f"{folder}: not a saved attentive model (missing {name})")
    try:
        config = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AttentiveError(f"{folder / CONFIG}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    network = build_model(config["recipe"], config["vocab_size"], len(config["labels"]),
                          aspects=len(config.get("aspects", [])))
    try:
        network.load_state_dict(safetensors.torch.load_file(str(folder / WEIGHTS)))
    except (RuntimeError, OSError) as exc:  # safetensors' own errors are OSError/SafetensorError subclasses
        first = str(exc).strip().splitlines()[-1].strip()
        raise AttentiveError(f"{folder / WEIGHTS}: weights do not match {CONFIG} ({first})") from None
    network.eval()
    tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
    return network, tokenizer, config
