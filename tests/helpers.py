"""Helpers several test files share (fixture-free functions and constants: the tiny recipe, a stopped-then-resumed
run, a memory bound, ...); fixtures live in conftest.py."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
import pytest
import safetensors.torch
import torch

import attentive
from attentive.answer import inputs as inputs_module
from attentive.data.example import Dataset
from attentive.models.classifier import build_model
from attentive.recipes.loader import load_recipe
from attentive.scoring import input_lines
from attentive.serving import server


def counted(monkeypatch, name: str) -> list:
    """The argument of every call of attentive.answer.inputs' `name` (text_problem or unicode_problem) from now on, in
    the modules that import it too (the CLI's reading, the server's validation)."""
    calls, original = [], getattr(inputs_module, name)

    def spy(value):
        calls.append(value)
        return original(value)

    for module in (inputs_module, input_lines, server):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, spy)
    return calls


CHROMIUM = "/usr/bin/chromium"


def start(run, *options: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", "from attentive.cli import run; run()", "serve", str(run),
                                "--port", str(port), *options], env={**os.environ, "OMP_NUM_THREADS": "1"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/health", timeout=1, headers={"X-API-Key": "secret"}).status_code in (200, 401):
                return process, url
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read().decode()[-800:]
            time.sleep(0.1)
    process.kill()
    pytest.fail("the server did not start")


def write_tsv(path, examples):
    path.write_text("text\tlabel\n" + "".join(f"{ex.text}\t{ex.label}\n" for ex in examples))
    return path


# one long, one short, one with no known word
ANSWERED_TEXTS = ["a gorgeous , witty film", "dull",
                  "the plot is a mess but the actors shine , and the music soars high", "zzzz qqqq"]


def assert_same_answers(model, exported, texts, **inputs):
    torch_probabilities = model.predict_proba(texts, **inputs)
    onnx_probabilities = exported.predict_proba(texts, **inputs)
    assert np.abs(torch_probabilities - onnx_probabilities).max() < 1e-5
    assert (torch_probabilities.argmax(1) == onnx_probabilities.argmax(1)).all()
    for ours, theirs in zip(model.explain(texts, **inputs), exported.explain(texts, **inputs)):
        assert ours.words == theirs.words and ours.prediction.label == theirs.prediction.label
        if ours.attention is None:
            assert theirs.attention is None
        else:
            assert np.abs(ours.attention - theirs.attention).max() < 1e-5


def tiny_model(out: Path, **options) -> None:
    """A one-epoch lama_ctx of tiny sizes on 200 SST-2 sentences, in `out` (about two seconds)."""
    data = attentive.load_dataset("sst2_sample")
    small = Dataset("sst2_tiny", {"train": data.splits["train"][:200], "dev": data.splits["dev"][:50],
                                  "test": data.splits["test"][:50]}, data.labels)
    attentive.train(small, "lama_ctx", out, show_progress=False,
                    overrides=tiny_overrides("lama_ctx") + ["train.epochs=1"], **options)


def rewrite_weights(folder, change) -> None:
    """Change the tensors of model.safetensors and record the new file's digest in config.json, as a hand-made (or
    hostile) folder would be consistent."""
    tensors = safetensors.torch.load_file(str(folder / "model.safetensors"))
    change(tensors)
    safetensors.torch.save_file(tensors, str(folder / "model.safetensors"))
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    edit_config(folder, lambda c: c["checksums"].update({"model.safetensors": digest}))


KEY = 5  # the one word the hand-built model's decision rests on


def hand_built_model():
    """Sun & Lu's model with 2-d word vectors: only word KEY has a vector (1, 0); the context vector V = (10, 0)
    puts the attention on it and the bias-free head maps dimension 0 to class 1. Without KEY, both logits are 0."""
    recipe = load_recipe("sunlu", ["embedder.vectors=random", "pooler.scale=1"])
    vectors = np.zeros((10, 2), dtype=np.float32)
    vectors[KEY] = (1.0, 0.0)
    model = build_model(recipe, vocab_size=10, classes=2, vectors=vectors).eval()
    with torch.no_grad():
        model.pooler.V.copy_(torch.tensor([10.0, 0.0]))
        model.head.net[-1].weight.copy_(torch.tensor([[-1.0, 0.0], [1.0, 0.0]]))
    return model


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def edit_config(folder, change) -> None:
    config = json.loads((folder / "config.json").read_text())
    change(config)
    (folder / "config.json").write_text(json.dumps(config))


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


# The session's tiny default-recipe model (conftest.py's `tiny_default_run`): word pieces, a small n-gram channel.
TINY_DEFAULT = [*tiny_overrides("default"), "tokenizer.pieces=true", "wide.buckets=4096"]


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


def copy_of_tiny_run(tiny_run: Path, folder: Path) -> Path:
    """`folder` holding a copy of the session's tiny model (`tiny_run`, or `tiny_default_run`), for a module whose
    commands write there."""
    import shutil

    return Path(shutil.copytree(tiny_run, folder))


def cache_with_minilm_vocabulary(folder: Path, table: Path, monkeypatch) -> Path:
    """`folder`, empty but for a link to the session's MiniLM vocabulary table (`minilm_vocabulary`), as
    ATTENTIVE_CACHE: what a test computes and caches lands in its own folder."""
    folder.mkdir(parents=True, exist_ok=True)
    os.link(table, folder / table.name)  # a cache write replaces a file (attentive.util.atomic), never writes into it
    monkeypatch.setenv("ATTENTIVE_CACHE", str(folder))
    return folder


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
