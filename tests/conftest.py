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


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (files spread over workers, `--dist loadfile --no-loadscope-reorder`), the files that hold a
    slow test go out first, so that no worker is handed a long file at the end while the others stand idle; each
    file's tests keep their order. A run in one process keeps pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable


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
def minilm_vocabulary(tmp_path_factory) -> Path:
    """The table of MiniLM's whole vocabulary (`attentive.text.distilled.encoder_vocabulary_table`: the encoder run over
    30,000 word pieces, about 25 seconds, the same every time), computed once for the whole run, in a folder of its
    own; a test links it into its own empty ATTENTIVE_CACHE (`cache_with_minilm_vocabulary`). With pytest-xdist the
    workers share it: the first computes it, under a lock, and the others read it."""
    import fcntl

    from attentive.text.distilled import encoder_vocabulary_table

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this run's folder, above each worker's own
    folder = root / "minilm-vocabulary"
    with open(root / "minilm-vocabulary.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder.mkdir(exist_ok=True)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ATTENTIVE_CACHE", str(folder))
            encoder_vocabulary_table()  # computed and saved there, or read from there
    [table] = folder.glob("minilm-vocabulary-*.npz")
    return table


def cache_with_minilm_vocabulary(folder: Path, table: Path, monkeypatch) -> Path:
    """`folder`, empty but for a link to the session's MiniLM vocabulary table (`minilm_vocabulary`), as
    ATTENTIVE_CACHE: what a test computes and caches lands in its own folder."""
    folder.mkdir(parents=True, exist_ok=True)
    os.link(table, folder / table.name)  # a cache write replaces a file (attentive.util.atomic), never writes into it
    monkeypatch.setenv("ATTENTIVE_CACHE", str(folder))
    return folder


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
