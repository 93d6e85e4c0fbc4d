"""The entries of a model folder's config.json, checked for presence and type before anything is built from them:
the same checks for a saved (PyTorch) folder and an exported (ONNX) one, so that a damaged or hand-edited config.json
is one line naming the file and the entry, never a KeyError or a model that answers with duplicate labels.
Standard library only (the torch-free runtime uses it)."""
from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Callable
from pathlib import Path

from ..errors import AttentiveError

Check = tuple[Callable[[object], bool], str]  # a test of an entry's value, and what the value must be


def _strings(value, at_least: int = 0) -> bool:
    return (isinstance(value, list) and len(value) >= at_least and all(isinstance(v, str) for v in value)
            and len(set(value)) == len(value))


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


OBJECT: Check = (lambda v: isinstance(v, dict), "an object")
FLAG: Check = (lambda v: isinstance(v, bool), "true or false")
TEXT: Check = (lambda v: isinstance(v, str), "a string")
LABELS: Check = (lambda v: _strings(v, 2), "a list of at least two different strings")
NAMES: Check = (_strings, "a list of different strings")
POSITIVE_INT: Check = (lambda v: _is_int(v) and v >= 1, "a positive integer")
MAX_LENGTH: Check = (lambda v: v is None or (_is_int(v) and v >= 1), "an integer ≥ 1 or null")  # tokenizer.max_length
# calibration.temperature: ten times beyond the temperatures calibration searches (0.01 to 100,
# attentive/training/calibration.py) either way, so that every fitted one is read and none divides the logits, or
# multiplies the log-probabilities into an evidence, out of the floating-point range
TEMPERATURES = (0.001, 1000.0)
TEMPERATURE: Check = (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
                      and TEMPERATURES[0] <= v <= TEMPERATURES[1],
                      f"a number from {TEMPERATURES[0]:g} to {TEMPERATURES[1]:g}")
SHA256 = re.compile(r"[0-9a-f]{64}")
CHECKSUMS: Check = (lambda v: isinstance(v, dict) and all(isinstance(h, str) and SHA256.fullmatch(h)
                                                          for h in v.values()),
                    "an object of SHA-256 digests (64 hex digits)")

SAVED_ENTRIES: dict[str, Check] = {"recipe": OBJECT, "labels": LABELS, "vocab_size": POSITIVE_INT, "aspects": NAMES,
                                   "checksums": CHECKSUMS, "model_id": TEXT, "dataset": TEXT}
SAVED_OPTIONAL = {"aspects", "checksums", "model_id", "dataset"}  # folders saved by older versions lack them
# The recipe's sections a saved model is built from, and those older recipes may lack (attentive/recipes/loader.py)
RECIPE_SECTIONS, RECIPE_OPTIONAL_SECTIONS = ("tokenizer", "embedder", "aspect", "encoder", "pooler", "head"), (
    "wide", "train")

EXPORT_FORMAT = "attentive-onnx-1"  # an exported folder's config.json "format" (a saved folder's has none)
BOUND_LABELS = "attentive.labels"  # the labels, as a JSON list, in the weights' or the graph's own metadata
BOUND_MODEL_ID = "attentive.model_id"  # the model id config.json gives, in an exported graph's own metadata
EXPORTED_INPUTS = ("ids", "mask", "pair_ids", "pair_mask", "aspect_ids", "aspect_mask")
EXPORTED_ENTRIES: dict[str, Check] = {
    "labels": LABELS, "inputs": (lambda v: _strings(v) and set(v) <= set(EXPORTED_INPUTS) and "ids" in v,
                                 f"a list of input names ({', '.join(EXPORTED_INPUTS)})"),
    "graphs": (lambda v: _strings(v, 1), "a list of graph file names"), "max_length": MAX_LENGTH,
    "has_attention": FLAG, "has_evidence": FLAG, "special_tokens": FLAG, "is_pair": FLAG, "uses_aspect": FLAG,
    "aspects": NAMES,
    "aspect_type": TEXT, "recipe": OBJECT, "model_id": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "checksums": CHECKSUMS}
EXPORTED_OPTIONAL = {"model_id", "checksums", "has_evidence"}  # not in an older attentive's exports


def check_entries(path: Path, config: dict, entries: dict[str, Check], optional: set[str] = frozenset(),
                  prefix: str = "") -> None:
    """Each of `entries` present in `config` (unless `optional`) and of its type; else an AttentiveError naming
    `path` and the entry (`prefix` + its key)."""
    for key, (valid, meaning) in entries.items():
        name = repr(f"{prefix}{key}")
        if key not in config:
            if key in optional:
                continue
            raise AttentiveError(f"{path}: no {name} entry")
        if not valid(config[key]):
            raise AttentiveError(f"{path}: {name} must be {meaning}, not {shown(config[key])}")


def check_saved_config(path: Path, config: dict) -> None:
    """The entries loading a saved model reads: labels, sizes, the recipe's sections (objects), its aspect type and
    truncation length, and its calibration's temperature (bounded)."""
    check_entries(path, config, SAVED_ENTRIES, SAVED_OPTIONAL)
    recipe = config["recipe"]
    sections = {name: OBJECT for name in RECIPE_SECTIONS + RECIPE_OPTIONAL_SECTIONS}
    check_entries(path, recipe, sections, set(RECIPE_OPTIONAL_SECTIONS), prefix="recipe.")
    check_entries(path, recipe["tokenizer"], {"max_length": MAX_LENGTH, "type": TEXT}, {"max_length", "type"},
                  prefix="recipe.tokenizer.")
    check_entries(path, recipe["aspect"], {"type": TEXT}, prefix="recipe.aspect.")
    check_calibration(path, config)


def check_exported_config(path: Path, config: dict) -> None:
    """The entries the runtime reads from an exported model's config.json, its calibration's temperature bounded."""
    check_entries(path, config, EXPORTED_ENTRIES, EXPORTED_OPTIONAL)
    check_calibration(path, config)


def check_calibration(path: Path, config: dict) -> None:
    """config.json's `calibration`, where it has one (folders saved before calibration have none): an object whose
    `temperature` is a number within TEMPERATURES."""
    if config.get("calibration") is None:
        return
    check_entries(path, config, {"calibration": OBJECT})
    check_entries(path, config["calibration"], {"temperature": TEMPERATURE}, prefix="calibration.")


def check_digest(config: dict, name: str, hexdigest: str, path: Path, changed: str | None = None) -> None:
    """The SHA-256 of the file `name` (at `path`) is the one config.json records for it under "checksums", if it
    records one (folders written before digests were kept have none); else an AttentiveError saying so, or
    `changed` where given."""
    expected = config.get("checksums", {}).get(name)
    if expected is not None and hexdigest != expected:
        raise AttentiveError(changed or f"{path}: its bytes are not the ones saved with config.json (SHA-256 differs: "
                                        "damaged or replaced since)")


def check_bound_labels(path: Path, labels: list[str], bound: str | None, source: Path, remedy: str) -> None:
    """config.json's `labels` (at `path`) are the labels, in their order, that the file at `source` (the weights or
    a graph) was written with: `bound`, the JSON list its metadata keeps under BOUND_LABELS (None for files written
    before it was kept, which are taken as they are). A reordered label list would otherwise name every answer
    wrongly without a word; `remedy` says what to do (train again, export again)."""
    if bound is None:
        return
    try:
        written = json.loads(bound)
    except (TypeError, ValueError, RecursionError):
        written = None
    if not _strings(written):
        raise AttentiveError(f"{source}: its metadata's {BOUND_LABELS} must be a JSON list of different label names, "
                             f"not {shown(bound)}")
    if written != labels:
        raise AttentiveError(f"{path}: 'labels' {shown(labels)} are not the labels {source.name} was written with, in "
                             f"their order ({shown(written)}): config.json was changed since; restore its labels or "
                             f"{remedy}")


def check_bound_model_id(path: Path, model_id, bound: str | None, source: Path) -> None:
    """config.json's `model_id` (at `path`) is the one the graph at `source` was exported with: `bound`, what its
    metadata keeps under BOUND_MODEL_ID (None for graphs exported before it was kept, which are taken as they are).
    Where config.json records no digests, another model's graph with the same labels would otherwise answer in its
    place without a word."""
    if bound is None or bound == model_id:
        return
    raise AttentiveError(f"{path}: 'model_id' {shown(model_id)} is not the model {source.name} was exported from "
                         f"({shown(bound)}): the graph or config.json was replaced since; export again")


def check_not_exported(path: Path, config: dict) -> None:
    """A saved folder's config.json has no "format": one that has is an export's (which answers, through
    attentive.load or attentive.answer.onnx_backend.load, but holds no PyTorch weights to train or explain with), or
    of a format this version does not read."""
    if "format" not in config:
        return
    if config["format"] == EXPORT_FORMAT:
        raise AttentiveError(f"{path}: an exported model: it answers (attentive.load, predict, serve) but this "
                             "needs the saved model folder it was exported from")
    raise AttentiveError(format_problem(path, config["format"]))


def format_problem(path: Path, name) -> str:
    """What is wrong with a config.json whose "format" is `name`, one this version does not read."""
    return f"{path}: format {shown(name)} is not one this version reads ({EXPORT_FORMAT})"


def shown(value) -> str:
    """A short repr of a value from a file (which may be a huge list or a deeply nested object)."""
    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 2, 40, 40
    return short.repr(value)
