"""Training the n-gram channel (attentive/models/wide.py) by its rows: sparse gradients and lazy Adam.

The channel is two tables of class scores, one row a word and one a hashed bigram bucket: 2^18 rows times the number
of classes (39M numbers for 150 intents). A batch of 64 short texts touches a few thousand rows, but a dense
gradient writes the whole table on every step, and Adam then reads and writes it three more times (the weights and
both moments): on a CPU that is most of a step's time (benchmarks/DECISIONS.md, "The n-gram channel trained by its
rows"). With `nn.Embedding(sparse=True)` the backward pass
yields only the touched rows, and `torch.optim.SparseAdam` (lazy Adam, as TensorFlow's LazyAdam for wide models)
updates only those rows' weights and moments: a row's moments decay when its n-gram is seen, not on every step.
The rest of the network keeps Adam.

Gradient clipping stays global: `clip_gradients` measures one norm over the dense gradients and the sparse ones'
stored values (the same number as the dense table's norm, its other entries being zero) and scales all of them.
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn


class PairedOptimizer:
    """Adam over the network and SparseAdam over the n-gram channel, stepped together; to the training loop and the
    checkpoint it is one optimizer: its param_groups and its state dict are the two's, the network's first, in
    torch's format (the channel's parameters numbered after the network's)."""

    def __init__(self, dense: torch.optim.Optimizer, sparse: torch.optim.SparseAdam):
        self.dense, self.sparse = dense, sparse

    @property
    def param_groups(self) -> list[dict]:
        return [*self.dense.param_groups, *self.sparse.param_groups]

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.dense.zero_grad(set_to_none=set_to_none)
        self.sparse.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        self.dense.step()
        self.sparse.step()

    def state_dict(self) -> dict:
        dense, sparse = self.dense.state_dict(), self.sparse.state_dict()
        offset = sum(len(group["params"]) for group in dense["param_groups"])
        groups = [*dense["param_groups"],
                  *({**group, "params": [offset + i for i in group["params"]]} for group in sparse["param_groups"])]
        return {"state": {**dense["state"], **{offset + i: value for i, value in sparse["state"].items()}},
                "param_groups": groups}

    def load_state_dict(self, state: dict) -> None:
        cut = len(self.dense.param_groups)
        offset = sum(len(group["params"]) for group in state["param_groups"][:cut])
        self.dense.load_state_dict({"state": {i: v for i, v in state["state"].items() if i < offset},
                                    "param_groups": state["param_groups"][:cut]})
        self.sparse.load_state_dict({
            "state": {i - offset: v for i, v in state["state"].items() if i >= offset},
            "param_groups": [{**group, "params": [i - offset for i in group["params"]]}
                             for group in state["param_groups"][cut:]]})


def channel_tables(wide: nn.Module) -> list[nn.Embedding]:
    """The channel's embedding tables (its unigram and bigram rows)."""
    return [module for module in wide.modules() if isinstance(module, nn.Embedding)]


def set_sparse(wide: nn.Module, sparse: bool) -> None:
    """Make the channel's tables yield sparse gradients (or dense ones again); their forward is unchanged."""
    for table in channel_tables(wide):
        table.sparse = sparse


@torch.no_grad()
def clip_gradients(parameters: Iterable[torch.Tensor], max_norm: float) -> torch.Tensor:
    """Scale every gradient by min(1, max_norm / (total norm + 1e-6)), as torch.nn.utils.clip_grad_norm_ does, where
    some gradients are sparse (coalesced first, so that a row touched twice counts once). Returns the total norm."""
    grads = []
    for parameter in parameters:
        if parameter.grad is None:
            continue
        if parameter.grad.is_sparse:
            parameter.grad = parameter.grad.coalesce()
        grads.append(parameter.grad)
    if not grads:
        return torch.tensor(0.0)
    norms = [(grad.values() if grad.is_sparse else grad).norm() for grad in grads]
    total = torch.linalg.vector_norm(torch.stack([norm.to(norms[0].device) for norm in norms]))
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(factor.to(grad.device))
    return total
