"""Shared fixtures: small real data (the bundled SST-2 sample) and a tiny, fast recipe."""
from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path

import pytest
import torch

from attentive.data.example import Dataset
from attentive.data.registry import load_dataset

torch.set_num_threads(1)
# The CLI's --threads default in tests: one thread, so no oversubscription warning joins a command's stderr.
os.environ["ATTENTIVE_THREADS"] = "1"

# A fast recipe for tests: small parts, random vectors, two epochs.
TINY = ["embedder.vectors=random", "embedder.dim=24", "tokenizer.min_frequency=2", "train.epochs=2",
        "train.batch_size=32", "train.lr=0.005", "train.batches_per_epoch=0"]
# Small sizes for each part family; `tiny_overrides` keeps those a recipe's parts take.
PART_SIZES = {"encoder": {"bigru": ["hidden=16"], "bilstm": ["hidden=16"], "cnn": ["maps=8"],
                          "transformer": ["d_model=24", "heads=4", "ff=32"], "lstm": ["hidden=16"]},
              "pooler": {"lama": ["heads=3"], "san": ["hops=3", "hidden=12"]},
              "head": {"mlp": ["hidden=16"], "gated_pair": ["factors=6", "hidden=16"],
                       "matching_pair": ["hidden=16"], "pruned": ["p=4", "q=3"]}}


def tiny_overrides(recipe_name: str) -> list[str]:
    """TINY plus the small sizes of the recipe's own parts."""
    from attentive.recipes.loader import load_recipe

    recipe = load_recipe(recipe_name)
    sizes = [f"{section}.{setting}" for section, kinds in PART_SIZES.items()
             for setting in kinds.get(getattr(recipe, section).type, [])]
    return TINY + sizes


class Stop(Exception):
    """Raised after a checkpoint is written, as a killed run would stop there."""


def stopped_then_resumed(data: Dataset, recipe: str, out, overrides: list[str], stop_after: int, monkeypatch,
                         stopped: dict | None = None, resumed: dict | None = None):
    """Train `recipe` into `out`, stopped right after the checkpoint of round `stop_after` is written, then resume it
    to the end; the resumed model. `stopped` and `resumed`: further keywords of `attentive.train` for each half (the
    step hooks a run is given again when it resumes, say)."""
    import attentive
    from attentive.training import pipeline

    write = pipeline.write_checkpoint

    def write_then_stop(run, state, tokenizer_json):
        write(run, state, tokenizer_json)
        if state.epoch == stop_after:
            raise Stop

    monkeypatch.setattr(pipeline, "write_checkpoint", write_then_stop)
    with pytest.raises(Stop):
        attentive.train(data, recipe, out, overrides=overrides, show_progress=False, **(stopped or {}))
    monkeypatch.setattr(pipeline, "write_checkpoint", write)
    return attentive.train(data, out=out, resume=True, show_progress=False, **(resumed or {}))


@pytest.fixture(scope="session")
def tiny_run(sst2_small, tmp_path_factory) -> Path:
    """A tiny lama_ctx model trained one epoch on `sst2_small`, once for the whole session, saved. Never written
    into: a test module takes its own copy (`copy_of_tiny_run`), where its commands may write."""
    import attentive

    folder = tmp_path_factory.mktemp("tiny-run") / "run"
    attentive.train(sst2_small, "lama_ctx", folder, overrides=tiny_overrides("lama_ctx") + ["train.epochs=1"],
                    show_progress=False)
    return folder


def copy_of_tiny_run(tiny_run: Path, folder: Path) -> Path:
    """`folder` holding a copy of the session's tiny model (`tiny_run`), for a module whose commands write there."""
    import shutil

    return Path(shutil.copytree(tiny_run, folder))


@pytest.fixture(scope="session")
def sst2_small() -> Dataset:
    """600 train / 150 dev / 150 test real SST-2 sentences from the bundled sample."""
    data = load_dataset("sst2_sample")
    splits = {"train": data.splits["train"][:600], "dev": data.splits["dev"][:150], "test": data.splits["test"][:150]}
    return Dataset("sst2_small", splits, data.labels)


@contextlib.contextmanager
def memory_bound(extra: int = 768 * 2**20):
    """The process's address space limited to what it holds now plus `extra`: a read or an allocation that ran away
    fails with MemoryError here instead of exhausting the machine (so that a test of a bound fails, not hangs, on
    code without the bound)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    in_use = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (in_use + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
