"""Helpers several test files share (fixture-free functions and constants); fixtures live in conftest.py."""
from __future__ import annotations

import hashlib
import json
import os
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
from attentive.serving import input_lines, server

from .conftest import tiny_overrides


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
