"""The saved-model folder: config.json (recipe, labels, sizes, versions), model.safetensors, tokenizer.json.

The three files are written as one (`util.atomic.atomic_write_files`): a reader sees the old model or the new one,
never a mix, even when the writer is killed halfway. Loading reads JSON and safetensors only, nothing is unpickled;
it reads regular files inside the folder only, config.json and tokenizer.json up to their caps
(attentive/folders/reading.py), checks config.json's entries (attentive/folders/config.py) and the weights' header
against the file's real size and against the network config.json describes, shapes and dtypes, before allocating
anything (attentive/folders/weights.py); weights must be finite, and match the SHA-256 digests config.json records
for them. The weights' header keeps the label list, in the order of the network's outputs (BOUND_LABELS in its
metadata): a config.json whose labels were reordered since is refused, as it would name every answer wrongly
(folders saved before have none, and load as they are). A damaged or hostile folder is a one-line error rather than
a traceback, an endless read or a huge allocation.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import uuid
from pathlib import Path

import safetensors.torch
import tokenizers
import torch
from pydantic import ValidationError
from tokenizers import Tokenizer

from ..errors import AttentiveError
from ..models.classifier import TextClassifier, build_model
from ..recipes.loader import entry
from ..recipes.retired import drop_retired
from ..recipes.types import Recipe, first_problem
from ..util.atomic import atomic_write_files, atomic_write_json, json_text
from ..version import __version__
from .config import BOUND_LABELS, check_bound_labels, check_digest, check_not_exported, check_saved_config, shown
from .manifest import owner_of, with_manifest
from .reading import (
    CONFIG_CAP,
    TOKENIZER_CAP,
    last_line,
    open_in_folder,
    parse_json_object,
    parse_tokenizer,
    read_consistently,
    read_in_folder,
    read_json_in_folder,
)
from .row_sparse import dense_shapes, packed, unpacked
from .weights import DTYPE_NAMES, WeightsFile

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
    labels = {BOUND_LABELS: json.dumps(config["labels"], ensure_ascii=False)}  # the order the outputs are in
    files = {WEIGHTS: safetensors.torch.save(packed(state), metadata=labels),
             TOKENIZER: tokenizer.to_str().encode("utf-8")}
    checksums = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    full_config = {"format_version": FORMAT_VERSION, **config, "model_id": model_id, "versions": versions(),
                   "checksums": checksums}
    text = json_text(full_config, folder / CONFIG)
    files = {**files, CONFIG: (text + "\n").encode("utf-8")}
    atomic_write_files(folder, with_manifest(folder, files, owner_of(folder, "save")))
    mark_stale_results(folder)
    return model_id


def mark_stale_results(folder: Path) -> list[Path]:
    """Results in the folder (eval-*.json) computed from another model than the one now saved there get a "stale"
    entry saying so; returns them. Run after every save, and by `evaluate` after it writes (the model may have been
    replaced while it was evaluating)."""
    now = current_model_id(folder)
    marked = []
    for path in sorted(folder.glob(RESULTS)):
        result = read_result(path)
        if result is not None and result.get("model_id") != now and "stale" not in result:
            result["stale"] = f"computed from model {result.get('model_id')}, but {folder} now holds model {now}"
            atomic_write_json(path, result)
            marked.append(path)
    return marked


RESULTS = "eval-*.json"  # evaluate's results, written into the model's folder
RESULT_ENTRIES = frozenset({"dataset", "split", "n", "per_class"})  # what every result of evaluate holds


def read_result(path: Path) -> dict | None:
    """The result of `attentive evaluate` that `path` holds (a JSON object with its metrics' entries), or None for
    any other file: a user's file, a damaged one."""
    try:
        result = read_json_in_folder(path.parent, path.name, RESULT_CAP)
    except AttentiveError:
        return None
    return result if RESULT_ENTRIES <= result.keys() else None


def evaluate_writes(target: Path) -> bool:
    """Whether `attentive evaluate` may write `target`, a file in the folder of the model it evaluates: an
    eval-*.json that is not there yet, or an earlier result of evaluate (replaced only with --overwrite)."""
    return target.match(RESULTS) and (not os.path.lexists(target) or read_result(target) is not None)


def current_model_id(folder: str | Path) -> str | None:
    """The `model_id` of the model now in `folder` (None for folders saved before ids existed, or no model)."""
    try:
        return read_json_in_folder(Path(folder), CONFIG).get("model_id")
    except AttentiveError:
        return None


def load_folder(folder: str | Path) -> tuple[TextClassifier, Tokenizer, dict, Recipe]:
    """Network, tokenizer, config.json and typed recipe of a model folder, its three files always from the same save
    (folder_reading.read_consistently)."""
    folder = Path(folder)
    return read_consistently(folder, MODEL_FILES, lambda: _read(folder))


RESULT_CAP = 64 * 2**20  # an eval-*.json (its confusion matrix grows with the square of the labels)


def _read(folder: Path) -> tuple[TextClassifier, Tokenizer, dict, Recipe]:
    def check_present(name: str) -> None:
        if not os.path.lexists(folder / name):
            raise AttentiveError(f"{folder}: not a saved attentive model (missing {name})")

    check_present(CONFIG)
    config_data = read_in_folder(folder, CONFIG, CONFIG_CAP)  # a config.json that is no file says so first
    config = parse_json_object(config_data, folder / CONFIG)
    check_not_exported(folder / CONFIG, config)  # an export (of any format) is not "missing model.safetensors"
    check_present(WEIGHTS)
    check_present(TOKENIZER)
    check_saved_config(folder / CONFIG, config)  # entries loading reads, with their types
    recipe = saved_recipe(config["recipe"], folder / CONFIG)
    tokenizer_data = read_in_folder(folder, TOKENIZER, TOKENIZER_CAP)
    tokenizer = parse_tokenizer(tokenizer_data, folder / TOKENIZER)
    check_digest(config, TOKENIZER, hashlib.sha256(tokenizer_data).hexdigest(), folder / TOKENIZER)
    if tokenizer.get_vocab_size() > config["vocab_size"]:
        raise AttentiveError(f"{folder / TOKENIZER}: {tokenizer.get_vocab_size()} tokens, but the model has "
                             f"{config['vocab_size']} rows")
    with open_in_folder(folder, WEIGHTS) as (handle, size):
        weights = WeightsFile(handle, size, folder / WEIGHTS)
        network, shapes = _build_checked(recipe, config, weights, folder / CONFIG)
        tensors = unpacked(weights.tensors(), shapes, folder / WEIGHTS)
    check_digest(config, WEIGHTS, weights.digest.hexdigest(), folder / WEIGHTS)
    check_bound_labels(folder / CONFIG, config["labels"], weights.metadata.get(BOUND_LABELS), folder / WEIGHTS,
                       "train again")  # folders saved before the labels were bound to the weights have none
    try:
        network.load_state_dict(tensors)
    except Exception as exc:  # shapes and dtypes were compared already; anything else is a damaged file
        raise AttentiveError(f"{folder / WEIGHTS}: unreadable weights ({last_line(exc)})") from None
    network.eval()
    return network, tokenizer, config, recipe


def saved_recipe(recipe: dict, path: Path) -> Recipe:
    """The typed recipe of a saved folder's config.json, checked as training checked it: a value edited since
    (`pooler.score_scale: null`) would otherwise build, and fail at the first prediction. A problem in the train
    section, which a trained model does not use, leaves it at its defaults. Settings this version no longer has are
    dropped (in place) at the value at which they did nothing, and refused at any other (recipe_schema.RETIRED)."""
    retired = drop_retired(recipe, trained=True)
    if retired is not None:
        raise AttentiveError(f"{path}: recipe.{retired}: a setting this version no longer has")
    recipe["tokenizer"].setdefault("max_length", None)  # a folder saved before texts were truncated reads them whole
    try:
        return Recipe.model_validate(recipe)
    except ValidationError as exc:
        key, meaning = first_problem(exc)
    except Exception as exc:  # a value of a shape no check foresaw
        raise AttentiveError(f"{path}: the recipe cannot be checked ({type(exc).__name__}: {last_line(exc)})") \
            from None
    if key.startswith("train."):
        return saved_recipe({section: values for section, values in recipe.items() if section != "train"}, path)
    raise AttentiveError(f"{path}: recipe.{key} must be {meaning}, not {shown(entry(recipe, key))}")


def _build_checked(recipe: Recipe, config: dict, weights: WeightsFile, path: Path) -> tuple[TextClassifier, dict]:
    """Build the network on the meta device (no memory), compare every parameter's shape and dtype with the file's
    (a table stored by its nonzero rows as the dense table it stands for: attentive/folders/row_sparse.py), and only
    then build it for real: a config.json asking for 10^10 rows fails here, before any allocation. Any failure to build
    is one line naming config.json. Returns the network and the tensors' dense shapes."""
    def build() -> TextClassifier:
        return build_model(recipe, config["vocab_size"], len(config["labels"]),
                           aspects=len(config.get("aspects", [])))

    try:
        with torch.device("meta"):
            expected = build().state_dict()
    except AttentiveError as exc:
        raise AttentiveError(f"{path}: {exc}") from None
    except Exception as exc:  # a recipe entry of the wrong type or shape
        raise AttentiveError(f"{path}: the recipe cannot be built ({type(exc).__name__}: {last_line(exc)})") from None
    expected_shapes = {name: tuple(t.shape) for name, t in expected.items()}
    shapes, dtypes = dense_shapes(weights.shapes(), weights.dtypes(), expected_shapes, weights.path)
    if expected_shapes != shapes:
        different = (sorted(set(expected_shapes) ^ set(shapes))
                     or sorted(n for n in expected_shapes if expected_shapes[n] != shapes[n]))
        name = different[0]
        raise AttentiveError(f"{path}: does not match the weights ({name}: config gives "
                             f"{expected_shapes.get(name, 'nothing')}, the file holds {shapes.get(name, 'nothing')})")
    for name, dtype in dtypes.items():
        wanted = DTYPE_NAMES.get(expected[name].dtype)
        if dtype != wanted:
            raise AttentiveError(f"{weights.path}: tensor {name} is {dtype}, but the model keeps it as {wanted}")
    try:
        return build(), shapes
    except Exception as exc:  # built on the meta device, but not for real (a file it reads, memory)
        raise AttentiveError(f"{path}: the recipe cannot be built ({type(exc).__name__}: {last_line(exc)})") from None
