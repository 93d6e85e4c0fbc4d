"""Loss terms and step hooks (attentive/training/terms.py, hooks.py): the loop names no loss of its own; a term and
a hook written here train through `attentive.train`, the term changes the weights the way it pushes, and the hook's
state survives a stop and resume, as the moving average's does in a checkpoint written before states existed."""
from __future__ import annotations

import json

import pytest
import safetensors.torch
import torch

import attentive
from attentive.data.batching import collate
from attentive.folders.metrics_log import read_metrics_log
from attentive.recipes.loader import load_recipe
from attentive.training import pipeline
from attentive.training.checkpoint import FOLDER, STATE, TENSORS
from attentive.training.hooks import MovingAverage, StepHook, hooks_from
from attentive.training.terms import AttentionPenalty, CrossEntropy, LossTerm, terms_from

from ..helpers import Stop, stopped_then_resumed, tiny_overrides

TINY = tiny_overrides("lama_ctx") + ["train.epochs=3", "train.patience=5"]


class LogitNorm(LossTerm):
    """λ · mean(logits²): pushes the logits towards zero."""

    name = "logit_norm"

    def __init__(self, weight: float):
        self.weight = weight

    def __call__(self, out, target, inputs):
        return self.weight * (out.logits ** 2).mean()


class StepCounter(StepHook):
    """Counts optimiser steps; the count is its checkpoint state."""

    name = "step_counter"

    def __init__(self):
        self.steps = 0

    def after_step(self, model):
        self.steps += 1

    def state_dict(self):
        return {"steps": self.steps}

    def load_state_dict(self, state):
        self.steps = state["steps"]


def mean_squared_dev_logit(model, data) -> float:
    model.network.eval()
    with torch.no_grad():
        out = model.network(**collate(model.encode_examples(data.splits["dev"]), "cpu"))
    return float((out.logits ** 2).mean())


def test_the_recipe_gives_cross_entropy_and_its_regulariser_as_terms_and_its_average_as_a_hook():
    plain = load_recipe("lama_ctx").train
    assert [type(term) for term in terms_from(plain)] == [CrossEntropy]
    regularised = load_recipe("san").train
    assert [type(term) for term in terms_from(regularised)] == [CrossEntropy, AttentionPenalty]
    layer = torch.nn.Linear(2, 2)
    assert hooks_from(layer, plain, 10) == []
    assert ([type(hook) for hook in hooks_from(layer, plain.model_copy(update={"ema_epochs": 1.0}), 10)]
            == [MovingAverage])


@pytest.mark.slow  # trains two models
def test_a_term_from_outside_the_package_changes_training_the_way_it_pushes(sst2_small):
    plain = attentive.train(sst2_small, "lama_ctx", overrides=TINY, show_progress=False)
    pushed = attentive.train(sst2_small, "lama_ctx", overrides=TINY, show_progress=False, terms=[LogitNorm(1.0)])
    squared = [mean_squared_dev_logit(model, sst2_small) for model in (plain, pushed)]
    assert squared[1] < 0.5 * squared[0]
    assert all(record["penalty"] == 0.0 for record in plain.history.epochs)
    assert all(record["penalty"] > 0.0 for record in pushed.history.epochs)  # the term's mean, as a penalty


@pytest.mark.slow  # trains a model whole and again stopped then resumed
def test_a_hook_from_outside_the_package_runs_after_each_step_and_its_state_survives_a_resume(
        sst2_small, tmp_path, monkeypatch):
    whole = StepCounter()
    attentive.train(sst2_small, "lama_ctx", tmp_path / "whole", overrides=TINY, show_progress=False, hooks=[whole])
    steps_per_epoch = -(-len(sst2_small.splits["train"]) // 32)
    assert whole.steps == 3 * steps_per_epoch
    stopped, resumed = StepCounter(), StepCounter()
    stopped_then_resumed(sst2_small, "lama_ctx", tmp_path / "stopped", TINY, 1, monkeypatch, {"hooks": [stopped]},
                         {"hooks": [resumed]})
    assert stopped.steps == steps_per_epoch
    assert resumed.steps == whole.steps  # it went on from the checkpoint's count, not from zero
    first, second = read_metrics_log(tmp_path / "whole"), read_metrics_log(tmp_path / "stopped")
    assert [row["train_loss"] for row in second] == [row["train_loss"] for row in first]


def test_a_hook_with_state_refuses_a_checkpoint_that_lacks_it(sst2_small, tmp_path, monkeypatch):
    with pytest.raises(attentive.errors.AttentiveError, match="no state for 'step_counter'"):
        stopped_then_resumed(sst2_small, "lama_ctx", tmp_path, TINY, 1, monkeypatch, resumed={"hooks": [StepCounter()]})


def test_two_terms_of_one_name_are_refused(sst2_small):
    with pytest.raises(attentive.errors.AttentiveError, match="'logit_norm'"):
        attentive.train(sst2_small, "lama_ctx", overrides=TINY, show_progress=False,
                        terms=[LogitNorm(1.0), LogitNorm(2.0)])


def as_written_before_states(run) -> None:
    """Rewrite `run`'s checkpoint as the code before loss-term and hook states wrote it: the moving average as
    `average/KEY` tensors and `has_average`, no `states`."""
    folder = run / FOLDER
    tensors = safetensors.torch.load_file(str(folder / TENSORS))
    prefix = "states/moving_average/"
    tensors = {("average/" + name[len(prefix):] if name.startswith(prefix) else name): tensor
               for name, tensor in tensors.items()}
    assert not any(name.startswith("states/") for name in tensors)
    meta = json.loads((folder / STATE).read_text())
    del meta["states"]
    meta["has_average"] = True
    (folder / TENSORS).write_bytes(safetensors.torch.save(tensors))
    (folder / STATE).write_text(json.dumps(meta))


@pytest.mark.slow  # trains a model whole and again stopped then resumed
def test_a_checkpoint_written_before_states_resumes_its_moving_average(sst2_small, tmp_path, monkeypatch):
    averaged = TINY + ["train.ema_epochs=0.5"]
    attentive.train(sst2_small, "lama_ctx", tmp_path / "whole", overrides=averaged, show_progress=False)
    write = pipeline.write_checkpoint

    def write_old_then_stop(run, state, tokenizer_json):
        write(run, state, tokenizer_json)
        as_written_before_states(run)
        raise Stop

    monkeypatch.setattr(pipeline, "write_checkpoint", write_old_then_stop)
    with pytest.raises(Stop):
        attentive.train(sst2_small, "lama_ctx", tmp_path / "old", overrides=averaged, show_progress=False)
    monkeypatch.setattr(pipeline, "write_checkpoint", write)
    attentive.train(sst2_small, out=tmp_path / "old", resume=True, show_progress=False)
    first, second = read_metrics_log(tmp_path / "whole"), read_metrics_log(tmp_path / "old")
    assert [row["dev_accuracy"] for row in second] == [row["dev_accuracy"] for row in first]
    assert [row["train_loss"] for row in second] == [row["train_loss"] for row in first]
