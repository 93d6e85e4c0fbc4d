"""The saved-model folder: config.json (recipe, labels, sizes, versions), model.safetensors, tokenizer.json.

The three files are written as one (`io_utils.atomic_write_files`): a reader sees the old model or the new one,
never a mix, even when the writer is killed halfway. Loading reads JSON and safetensors only, nothing is unpickled,
and checks config.json against the tensors' real shapes before allocating anything, so that a damaged or hostile
folder is a one-line error rather than a traceback or a huge allocation.
"""
from __future__ import annotations

import json
import os
import platform
import uuid
from pathlib import Path

import safetensors
import safetensors.torch
import tokenizers
import torch
from tokenizers import Tokenizer

from .version import __version__
from .errors import AttentiveError
from .io_utils import atomic_write_files, atomic_write_json, finish_interrupted_write
from .models.classifier import TextClassifier, build_model

FORMAT_VERSION = 1
CONFIG, WEIGHTS, TOKENIZER = "config.json", "model.safetensors", "tokenizer.json"
MODEL_FILES = (CONFIG, WEIGHTS, TOKENIZER)


def versions() -> dict:
    return {"attentive": __version__, "torch": torch.__version__, "tokenizers": tokenizers.__version__,
            "python": platform.python_version()}


def holds_model(folder: str | Path) -> bool:
    """Whether `folder` holds a saved model (or a committed write of one)."""
    folder = Path(folder)
    return (folder / CONFIG).exists() or (folder / ".written" / CONFIG).exists()


def save_folder(folder: Path, network: TextClassifier, tokenizer: Tokenizer, config: dict) -> str:
    """Write the model's three files as one; returns the new `model_id` (also in config.json), which results
    computed from this model carry so that they can be told apart from results about an older one."""
    state = {name: tensor.detach().cpu().contiguous() for name, tensor in network.state_dict().items()}
    model_id = uuid.uuid4().hex
    full_config = {"format_version": FORMAT_VERSION, **config, "model_id": model_id, "versions": versions()}
    atomic_write_files(folder, {
        WEIGHTS: safetensors.torch.save(state),
        TOKENIZER: tokenizer.to_str().encode("utf-8"),
        CONFIG: (json.dumps(full_config, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
    })
    mark_stale_results(folder)
    return model_id


def mark_stale_results(folder: Path) -> list[Path]:
    """Results in the folder (eval-*.json) computed from another model than the one now saved there get a "stale"
    entry saying so; returns them. Run after every save, and by `evaluate` after it writes (the model may have been
    replaced while it was evaluating)."""
    now = current_model_id(folder)
    marked = []
    for path in sorted(folder.glob("eval-*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(result, dict) and result.get("model_id") != now and "stale" not in result:
            result["stale"] = f"computed from model {result.get('model_id')}, but {folder} now holds model {now}"
            atomic_write_json(path, result)
            marked.append(path)
    return marked


def current_model_id(folder: str | Path) -> str | None:
    """The `model_id` of the model now in `folder` (None for folders saved before ids existed, or no model)."""
    try:
        return json.loads((Path(folder) / CONFIG).read_text(encoding="utf-8")).get("model_id")
    except (OSError, ValueError, AttributeError):
        return None


def load_folder(folder: str | Path) -> tuple[TextClassifier, Tokenizer, dict]:
    """Read a model folder. A write cut off after its commit point is finished first; if another process replaces
    the model while it is being read, it is read again, so the three files always belong together."""
    folder = Path(folder)
    if folder.is_dir() and os.access(folder, os.W_OK):
        finish_interrupted_write(folder)
    for _ in range(3):
        before = _identities(folder)
        loaded = _read(folder)
        if _identities(folder) == before:
            return loaded
    raise AttentiveError(f"{folder}: the model kept changing while it was read (is a training writing to it?)")


def _identities(folder: Path) -> list[tuple[int, int] | None]:
    identities = []
    for name in MODEL_FILES:
        try:
            stat = (folder / name).stat()
            identities.append((stat.st_ino, stat.st_mtime_ns))
        except OSError:
            identities.append(None)
    return identities


def _read(folder: Path) -> tuple[TextClassifier, Tokenizer, dict]:
    for name in MODEL_FILES:
        if not (folder / name).is_file():
            raise AttentiveError(f"{folder}: not a saved attentive model (missing {name})")
    config = read_config(folder / CONFIG)
    shapes = _weight_shapes(folder / WEIGHTS)
    network = _build_checked(config, shapes, folder / CONFIG)
    try:
        network.load_state_dict(safetensors.torch.load_file(str(folder / WEIGHTS)))
    except Exception as exc:  # safetensors' SafetensorError is neither an OSError nor a RuntimeError
        raise AttentiveError(f"{folder / WEIGHTS}: unreadable weights ({_last_line(exc)})") from None
    network.eval()
    try:
        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
    except Exception as exc:  # tokenizers raises a bare Exception for a damaged file
        raise AttentiveError(f"{folder / TOKENIZER}: unreadable tokenizer ({_last_line(exc)})") from None
    if tokenizer.get_vocab_size() > config["vocab_size"]:
        raise AttentiveError(f"{folder / TOKENIZER}: {tokenizer.get_vocab_size()} tokens, but the model has "
                             f"{config['vocab_size']} rows")
    return network, tokenizer, config


def read_config(path: Path) -> dict:
    """config.json, checked for the entries loading needs, with their types."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AttentiveError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise AttentiveError(f"{path}: not UTF-8 text") from None
    if not isinstance(config, dict):
        raise AttentiveError(f"{path}: expected a JSON object")
    checks = {"recipe": lambda v: isinstance(v, dict),
              "labels": lambda v: isinstance(v, list) and len(v) >= 2 and all(isinstance(x, str) for x in v),
              "vocab_size": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
              "aspects": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)}
    meaning = {"recipe": "an object", "labels": "a list of at least two strings", "vocab_size": "a positive integer",
               "aspects": "a list of strings"}
    for key, valid in checks.items():
        if key == "aspects" and key not in config:
            continue
        if key not in config:
            raise AttentiveError(f"{path}: no {key!r} entry")
        if not valid(config[key]):
            raise AttentiveError(f"{path}: {key!r} must be {meaning[key]}")
    return config


def _weight_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """Each tensor's shape, from the safetensors header alone (nothing allocated)."""
    try:
        with safetensors.safe_open(str(path), framework="pt") as handle:
            return {name: tuple(handle.get_slice(name).get_shape()) for name in handle.keys()}
    except Exception as exc:  # a truncated or foreign file
        raise AttentiveError(f"{path}: unreadable weights ({_last_line(exc)})") from None


def _build_checked(config: dict, shapes: dict[str, tuple[int, ...]], path: Path) -> TextClassifier:
    """Build the network on the meta device (no memory), compare every parameter's shape with the file's, and only
    then build it for real: a config.json asking for 10^10 rows fails here, before any allocation."""
    def build() -> TextClassifier:
        return build_model(config["recipe"], config["vocab_size"], len(config["labels"]),
                           aspects=len(config.get("aspects", [])))

    try:
        with torch.device("meta"):
            expected = {name: tuple(t.shape) for name, t in build().state_dict().items()}
    except AttentiveError as exc:
        raise AttentiveError(f"{path}: {exc}") from None
    except Exception as exc:  # a recipe entry of the wrong type or shape
        raise AttentiveError(f"{path}: the recipe cannot be built ({type(exc).__name__}: {_last_line(exc)})") from None
    if expected != shapes:
        different = sorted(set(expected) ^ set(shapes)) or sorted(n for n in expected if expected[n] != shapes[n])
        name = different[0]
        raise AttentiveError(f"{path}: does not match the weights ({name}: config gives "
                             f"{expected.get(name, 'nothing')}, the file holds {shapes.get(name, 'nothing')})")
    return build()


def _last_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[-1].strip() if lines else type(exc).__name__
