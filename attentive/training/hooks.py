"""Step hooks: what runs after every optimiser step, and what dev evaluation sees.

A hook is an object with a `name`, `after_step(model)` (called after each step) and `evaluation(model)`, a context
inside which dev accuracy is measured and the best point is kept (by default it changes nothing). A hook that keeps
state returns it from `state_dict()` and takes it back in `load_state_dict()`; the checkpoint stores it under the
hook's name, so a resumed run continues it. The recipe's hooks come from `hooks_from`; a caller's are added to them.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from ..recipes.types import Train
from .averaging import averaged_weights, ema_decay, weight_average


class StepHook:
    """Something done after every optimiser step. Subclasses set `name` and override what they need."""

    name: str = "hook"

    def after_step(self, model: torch.nn.Module) -> None:
        """Called after each optimiser step, with the model just updated."""

    @contextlib.contextmanager
    def evaluation(self, model: torch.nn.Module) -> Iterator[None]:
        """Inside, dev accuracy is measured and the best point copied; nothing changes by default."""
        yield

    def state_dict(self) -> dict:
        """What a resumed run needs to continue the hook (tensors or JSON values); none by default."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Take back what `state_dict` gave."""


class MovingAverage(StepHook):
    """`train.ema_epochs`: a moving average of the weights (attentive/training/averaging.py), updated after every
    step and swapped in for dev evaluation, so the best point kept is the average."""

    name = "moving_average"

    def __init__(self, model: torch.nn.Module, decay: float):
        self.average = weight_average(model, decay)

    def after_step(self, model):
        self.average.update_parameters(model)

    def evaluation(self, model):
        return averaged_weights(model, self.average)

    def state_dict(self):
        return self.average.state_dict()

    def load_state_dict(self, state):
        self.average.load_state_dict(state)


def hooks_from(model: torch.nn.Module, cfg: Train, batches_per_epoch: int) -> list[StepHook]:
    """The step hooks a recipe's `train` section asks for: the moving average with `ema_epochs`. `model` must already
    be on its training device."""
    if not cfg.ema_epochs:
        return []
    return [MovingAverage(model, ema_decay(cfg.ema_epochs, batches_per_epoch))]
