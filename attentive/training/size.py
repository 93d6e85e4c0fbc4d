"""How large the network a recipe describes would be, known before a weight (or a word vector) is made, so that a
recipe too large for the machine is one line naming the setting instead of an allocation that fails, or exhausts the
machine, minutes later.

The typed recipe bounds each width (attentive/recipes/types.py MAX_WIDTH, attentive/models/option_types.py
MAX_SIZE); widths within those bounds can still multiply into more parameters than memory holds (a 65,536-wide
GRU, 65,536-dimensional vectors of a 100,000-word vocabulary). `check_size` builds the network on PyTorch's `meta`
device, where tensors have shapes and no storage, counts its parameters and compares what training holds of them
(`BYTES_TRAINED` a trained parameter: float32 weights, gradients and Adam's two moments; `BYTES_FROZEN` a frozen one)
with the memory of the device that trains: the GPU's, or the machine's.
"""
from __future__ import annotations

import os

import torch

from ..errors import AttentiveError
from ..models.classifier import build_model
from ..text.sources import source_names

BYTES_TRAINED = 16  # float32 weight, gradient and the optimiser's two moments (Adam)
BYTES_FROZEN = 4  # float32 weight alone
SECTIONS = ("embedder", "aspect", "encoder", "pooler", "head", "wide")  # TextClassifier's parts: the recipe's sections
GiB = 2**30


def vector_width(embedder) -> int:
    """The width the recipe's word vectors will have: `dim` for each source but the distilled one
    (`distilled_dim`), summed over sources joined by + (GloVe's own width is known once its file is read: `dim`
    stands for it)."""
    return sum(embedder.distilled_dim if name == "distilled" else embedder.dim
               for name in source_names(embedder.vectors))


def device_memory(device: str) -> int | None:
    """Bytes of memory of the device that trains: a GPU's own, else the machine's physical memory (None where the
    system does not say)."""
    if str(device).startswith("cuda"):
        return torch.cuda.get_device_properties(torch.device(device)).total_memory
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_size(recipe, vocab_size: int, classes: int, aspects: int, device: str) -> int:
    """The number of parameters of the network `recipe` describes for this vocabulary, labels and aspects; an
    AttentiveError naming the setting behind the largest part when training them would take more than the device's
    memory (`device_memory`)."""
    resolved = recipe.resolved(dim=vector_width(recipe.embedder)) if recipe.embedder.type != "none" else recipe
    with torch.device("meta"):
        network = build_model(resolved, vocab_size, classes, aspects=aspects)
    parts = {section: list(getattr(network, section).parameters()) if getattr(network, section) is not None else []
             for section in SECTIONS}
    count = sum(p.numel() for ps in parts.values() for p in ps)
    needed = sum(p.numel() * (BYTES_TRAINED if p.requires_grad else BYTES_FROZEN) for ps in parts.values()
                 for p in ps)
    memory = device_memory(device)
    if memory is None or needed <= memory:
        return count
    largest = max(parts, key=lambda section: sum(p.numel() for p in parts[section]))
    share = sum(p.numel() for p in parts[largest])
    raise AttentiveError(f"{_setting(recipe, resolved, largest, vocab_size)}: the network would hold "
                         f"{count:,} parameters, "
                         f"{share:,} of them in the {largest}; training them takes at least {needed / GiB:,.1f} GiB "
                         f"(weights, gradients, optimizer state), more than the {memory / GiB:,.1f} GiB of "
                         f"{'the GPU' if str(device).startswith('cuda') else 'this machine'}: make it smaller")


def _setting(recipe, resolved, section: str, vocab_size: int) -> str:
    """The setting that sizes a section most, as "section.key=value": the embedder's width as the recipe gives it
    (times the vocabulary), else the section's largest integer option (`d_model` widths as numbers: `resolved`),
    else the section itself."""
    if section == "embedder":
        width = "distilled_dim" if recipe.embedder.vectors == "distilled" else "dim"
        return f"embedder.{width}={getattr(recipe.embedder, width)} (x {vocab_size:,} words)"
    options = {key: value for key, value in getattr(resolved, section).options.items()
               if isinstance(value, int) and not isinstance(value, bool)}
    if not options:
        return f"the recipe's {section} section"
    key = max(options, key=options.get)
    return f"{section}.{key}={options[key]}"
