"""`train.ema_epochs`: an exponential moving average of the weights, which dev accuracy measures and the saved model
keeps (Polyak & Juditsky 1992 average the iterates of stochastic approximation; the exponential form, with a decay
that starts low while there is little to average, is TensorFlow's `ExponentialMovingAverage` with `num_updates`).

After step t the average moves towards the weights by 1 - d_t, with

    d_t = min(1 - 1 / (k · batches per epoch), (1 + t) / (10 + t))

so that, once warmed up, its memory is about k epochs whatever the size of the data. Until then the second term rules
and the memory is about a ninth of the steps made so far: (10 + t) / 9. Dev accuracy swings from one epoch to the next
by more than the settings the defaults were chosen among differ; the average is a model between the last weights and the
ones before them. PyTorch's `AveragedModel` holds the average, here with the warm-up above as its averaging function.
"""
from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch.optim.swa_utils import AveragedModel

WARMUP = 10  # steps over which the decay climbs from 1/10 towards its final value, as TensorFlow's does


def ema_decay(ema_epochs: float, batches_per_epoch: int) -> float:
    """The final decay per step for a memory of `ema_epochs` epochs of `batches_per_epoch` steps."""
    return 1.0 - 1.0 / max(1.0, ema_epochs * batches_per_epoch)


def weight_average(model: torch.nn.Module, decay: float) -> AveragedModel:
    """A moving average of `model`'s parameters and buffers; call `update_parameters(model)` after each step."""

    @torch.no_grad()
    def move(averaged: list[torch.Tensor], current: list[torch.Tensor], count: torch.Tensor) -> None:
        steps = float(count)
        weight = 1.0 - min(decay, (1.0 + steps) / (WARMUP + steps))
        for average, value in zip(averaged, current):
            if average.is_floating_point():
                average.lerp_(value, weight)
            else:
                average.copy_(value)

    return AveragedModel(model, multi_avg_fn=move, use_buffers=True)


@contextmanager
def averaged_weights(model: torch.nn.Module, average: AveragedModel | None) -> Iterator[None]:
    """Inside, `model` holds the averaged weights (to measure dev accuracy and to save); after, its own again."""
    if average is None:
        yield
        return
    training = copy.deepcopy(model.state_dict())
    model.load_state_dict(average.module.state_dict())
    try:
        yield
    finally:
        model.load_state_dict(training)
