"""Shared fixtures: small real data (the bundled SST-2 sample), two tiny models trained once (lama_ctx and the
default recipe), the MiniLM vocabulary table computed once; the functions and constants tests share live in
tests/helpers.py."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from attentive.data.example import Dataset
from attentive.data.registry import load_dataset

from .helpers import TINY_DEFAULT, tiny_overrides

torch.set_num_threads(1)
# The CLI's --threads default in tests: one thread, so no oversubscription warning joins a command's stderr.
os.environ["ATTENTIVE_THREADS"] = "1"


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the order of the tests that run
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (files spread over workers, `--dist loadfile --no-loadscope-reorder`), the files that hold a
    slow test go out first, so that no worker is handed a long file at the end while the others stand idle; each
    file's tests keep their order. A run in one process keeps pytest's order; so does the quick loop (`pytest` alone,
    which leaves the slow tests out)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable


@pytest.fixture(scope="session")
def tiny_run(sst2_small, tmp_path_factory) -> Path:
    """A tiny lama_ctx model trained one epoch on `sst2_small`, once for the whole session, saved. Never written
    into: a test module takes its own copy (`copy_of_tiny_run`), where its commands may write."""
    import attentive

    folder = tmp_path_factory.mktemp("tiny-run") / "run"
    attentive.train(sst2_small, "lama_ctx", folder, overrides=tiny_overrides("lama_ctx") + ["train.epochs=1"],
                    show_progress=False)
    return folder


@pytest.fixture(scope="session")
def tiny_default_run(sst2_small, tmp_path_factory) -> Path:
    """A tiny model of the default recipe (attention over the words and their pieces, an n-gram channel of 4,096
    rows) trained two epochs on `sst2_small`, once for the whole session, saved. Never written into, as `tiny_run`
    (a module writing there takes its own copy, `copy_of_tiny_run`)."""
    import attentive

    folder = tmp_path_factory.mktemp("tiny-default-run") / "run"
    attentive.train(sst2_small, "default", folder, overrides=TINY_DEFAULT, show_progress=False)
    return folder


@pytest.fixture(scope="session", autouse=True)
def run_cache(pytestconfig) -> Path:
    """One ATTENTIVE_CACHE for the suite, shared by the pytest-xdist workers and kept from one run to the next in
    pytest's own cache folder (.pytest_cache, which `make clean` removes; a clean clone, as CI runs, starts empty):
    the word vectors, the MiniLM vocabulary table and the model2vec static model a test computes are there for the
    next, as they would be on a user's machine, and never in the user's own ~/.cache/attentive. Every entry is keyed by
    what it was computed from (attentive/text/distilled.py, embeddings.py). A test that needs an empty cache sets its
    own."""
    folder = Path(pytestconfig.cache.mkdir("attentive-cache"))
    os.environ["ATTENTIVE_CACHE"] = str(folder)
    return folder


@pytest.fixture(scope="session")
def minilm_vocabulary(run_cache) -> Path:
    """The table of MiniLM's whole vocabulary (`attentive.text.distilled.encoder_vocabulary_table`: the encoder run over
    30,000 word pieces, about 25 seconds, the same every time) in the run's cache, computed once for the whole run:
    processes asking for it at once wait for the one computing it (`attentive.util.atomic.computed_once`). A test
    links it into its own empty ATTENTIVE_CACHE (`cache_with_minilm_vocabulary`)."""
    from attentive.text.distilled import encoder_vocabulary_table

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTIVE_CACHE", str(run_cache))
        encoder_vocabulary_table()  # computed and saved there, or read from there
    [table] = run_cache.glob("minilm-vocabulary-*.npz")
    return table


@pytest.fixture(scope="session")
def sst2_small() -> Dataset:
    """600 train / 150 dev / 150 test real SST-2 sentences from the bundled sample."""
    data = load_dataset("sst2_sample")
    splits = {"train": data.splits["train"][:600], "dev": data.splits["dev"][:150], "test": data.splits["test"][:150]}
    return Dataset("sst2_small", splits, data.labels)


