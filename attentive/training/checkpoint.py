"""Training checkpoints: everything needed to continue a run exactly where it stopped, in `RUN/checkpoint/`.

Written after every epoch as one atomic set of files with the folder's manifest (`util.atomic.atomic_write_files`,
`folders.manifest.with_manifest`): `state.safetensors` (the model's weights, the best epoch's weights, the
optimizer's tensors, torch's RNG state) and `state.json` (epoch and early-stopping counters, the history, the
optimizer's other settings, numpy's and Python's RNG states, and whatever the caller adds: recipe, labels, data
fingerprint), plus `tokenizer.json`. Each loss term's and step hook's state (attentive/training/terms.py, hooks.py)
is kept under its name: its tensors as `states/NAME/KEY`, its other values in `state.json`. Nothing is pickled.
Resuming from the checkpoint of epoch k and training on gives, on CPU, the same model as an uninterrupted run.
`remove_checkpoint` removes these files alone: a `checkpoint/` folder holding anything else is refused before a run
starts (attentive/folders/output.py, `TRAINING_RUN` in attentive/training/pipeline.py).
"""
from __future__ import annotations

import contextlib
import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import safetensors.torch
import torch

from ..errors import AttentiveError
from ..folders.manifest import MANIFEST, owner_of, with_manifest
from ..util.atomic import COMMITTED, STAGING, atomic_write_files, finish_interrupted_write

FOLDER, TENSORS, STATE, TOKENIZER = "checkpoint", "state.safetensors", "state.json", "tokenizer.json"
FILES = frozenset({TENSORS, STATE, TOKENIZER})  # all a checkpoint folder holds (with atomic_write_files' staging)


@dataclass
class TrainingState:
    """A run after `epoch` completed epochs. `history` is the list of their records; `extra` is the caller's;
    `states` each loss term's and step hook's state by name (e.g. `moving_average`, with `train.ema_epochs`)."""

    epoch: int
    history: list[dict]
    best_epoch: int
    best_dev_accuracy: float
    stale: int
    model: dict[str, torch.Tensor]
    best: dict[str, torch.Tensor] | None
    optimizer: dict
    rng: dict
    extra: dict = field(default_factory=dict)
    states: dict[str, dict] = field(default_factory=dict)


def capture_rng(rng: np.random.Generator) -> dict:
    state = {"numpy": rng.bit_generator.state, "python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict, rng: np.random.Generator) -> None:
    rng.bit_generator.state = state["numpy"]
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _cpu(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().cpu().contiguous().clone()


def write_checkpoint(run: Path, state: TrainingState, tokenizer_json: str) -> None:
    tensors = {f"model/{name}": _cpu(t) for name, t in state.model.items()}
    tensors.update({f"best/{name}": _cpu(t) for name, t in (state.best or {}).items()})
    state_values: dict[str, dict] = {}
    for owner, values in state.states.items():
        for key, value in values.items():
            if isinstance(value, torch.Tensor):
                tensors[f"states/{owner}/{key}"] = _cpu(value)
            else:
                state_values.setdefault(owner, {})[key] = value
    optimizer_values: dict = {}
    for index, values in state.optimizer["state"].items():
        for key, value in values.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optim/{index}/{key}"] = _cpu(value)
            else:
                optimizer_values.setdefault(str(index), {})[key] = value
    tensors["rng/torch"] = state.rng["torch"]
    for device, cuda_state in enumerate(state.rng.get("cuda", [])):
        tensors[f"rng/cuda/{device}"] = cuda_state
    meta = {"epoch": state.epoch, "history": state.history, "best_epoch": state.best_epoch,
            "best_dev_accuracy": state.best_dev_accuracy, "stale": state.stale, "has_best": state.best is not None,
            "optimizer": {"param_groups": state.optimizer["param_groups"], "values": optimizer_values},
            "rng": {"numpy": state.rng["numpy"], "python": state.rng["python"]},
            "extra": state.extra, "states": {owner: state_values.get(owner, {}) for owner in state.states}}
    files = {TENSORS: safetensors.torch.save(tensors), STATE: json.dumps(meta).encode("utf-8"),
             TOKENIZER: tokenizer_json.encode("utf-8")}
    atomic_write_files(run / FOLDER, with_manifest(run / FOLDER, files, owner_of(run, "train")))


def read_checkpoint(run: Path) -> tuple[TrainingState, str]:
    """The last checkpoint of `run` and its tokenizer (JSON text); a clear error if there is none."""
    folder = run / FOLDER
    if folder.is_dir():
        finish_interrupted_write(folder)
    if not (folder / STATE).exists():
        raise AttentiveError(f"{run}: no checkpoint to resume from (training finished, or never completed an epoch)")
    try:
        meta = json.loads((folder / STATE).read_text(encoding="utf-8"))
        tensors = safetensors.torch.load_file(str(folder / TENSORS))
        tokenizer_json = (folder / TOKENIZER).read_text(encoding="utf-8")
    except Exception as exc:
        raise AttentiveError(f"{folder}: unreadable checkpoint ({type(exc).__name__}: {exc})") from None
    optimizer_state: dict = {}
    for name, tensor in tensors.items():
        if name.startswith("optim/"):
            _, index, key = name.split("/", 2)
            optimizer_state.setdefault(int(index), {})[key] = tensor
    for index, values in meta["optimizer"]["values"].items():
        optimizer_state.setdefault(int(index), {}).update(values)
    rng = {**meta["rng"], "torch": tensors["rng/torch"]}
    cuda = sorted((int(name.rsplit("/", 1)[1]), t) for name, t in tensors.items() if name.startswith("rng/cuda/"))
    if cuda:
        rng["cuda"] = [t for _, t in cuda]
    state = TrainingState(
        epoch=meta["epoch"], history=meta["history"], best_epoch=meta["best_epoch"],
        best_dev_accuracy=meta["best_dev_accuracy"], stale=meta["stale"],
        model={n[len("model/"):]: t for n, t in tensors.items() if n.startswith("model/")},
        best={n[len("best/"):]: t for n, t in tensors.items() if n.startswith("best/")} if meta["has_best"] else None,
        optimizer={"state": optimizer_state, "param_groups": meta["optimizer"]["param_groups"]},
        rng=rng, extra=meta["extra"], states=_part_states(meta, tensors))
    return state, tokenizer_json


def _part_states(meta: dict, tensors: dict[str, torch.Tensor]) -> dict[str, dict]:
    """Each term's and hook's state by name; a checkpoint written before states existed kept only the moving
    average, as `average/KEY` tensors with `has_average`."""
    states = {owner: dict(values) for owner, values in meta.get("states", {}).items()}
    for name, tensor in tensors.items():
        if name.startswith("states/"):
            _, owner, key = name.split("/", 2)
            states.setdefault(owner, {})[key] = tensor
    if meta.get("has_average"):
        states["moving_average"] = {n[len("average/"):]: t for n, t in tensors.items() if n.startswith("average/")}
    return states


def remove_checkpoint(run: Path) -> None:
    """Remove the checkpoint's own files (and its half-written sets), then the folder if nothing else is left in it:
    a file that is not the checkpoint's stays where it is."""
    folder = run / FOLDER
    if folder.is_symlink() or not folder.is_dir():
        return
    for name in FILES:
        (folder / name).unlink(missing_ok=True)
    if {entry.name for entry in folder.iterdir()} <= {MANIFEST, STAGING, COMMITTED}:
        (folder / MANIFEST).unlink(missing_ok=True)
    for name in (STAGING, COMMITTED):  # hidden subfolders only atomic_write_files makes
        if not (folder / name).is_symlink():
            shutil.rmtree(folder / name, ignore_errors=True)
    with contextlib.suppress(OSError):
        folder.rmdir()
