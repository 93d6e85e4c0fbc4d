"""The training loop: mini-batches bucketed by length; Adam, ADADELTA or Adagrad with weight decay, gradient
clipping, dev accuracy after every epoch, early stopping, best dev point kept. The loss is the sum of loss terms
(attentive/training/terms.py: cross-entropy, the attention regulariser) and what follows each step is a step hook's
(attentive/training/hooks.py: the moving average of the weights); each keeps its own checkpoint state.
"""
from __future__ import annotations

import contextlib
import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from sklearn.metrics import f1_score

from ..answer.inference import predict_probabilities
from ..answer.metrics import macro_f1
from ..data.batching import Item, collate, iterate
from ..errors import AttentiveError
from ..folders.metrics_log import append_record
from ..recipes.types import Train
from . import distributed, sampling
from .checkpoint import TrainingState, capture_rng, restore_rng
from .frozen import FrozenPooling
from .hooks import StepHook, hooks_from
from .sparse_wide import PairedOptimizer, clip_gradients, set_sparse
from .terms import UNLABELLED, LossTerm, terms_from
from .windows import windowed


@dataclass
class History:
    epochs: list[dict] = field(default_factory=list)
    best_epoch: int = 0
    best_dev_accuracy: float = -1.0

    @property
    def epoch_times(self) -> list[float]:
        return [e["seconds"] for e in self.epochs]


def parameter_groups(model: torch.nn.Module, cfg: Train) -> list[dict]:
    """The trainable parameters; a wide-and-deep model's n-gram channel in a group of its own at `train.wide_lr`
    (a linear model over sparse n-grams wants a far larger step than the network, as fastText's does)."""
    wide = getattr(model, "wide", None)
    wide_ids = {id(p) for p in wide.parameters()} if wide is not None and cfg.wide_lr else set()
    groups = [{"params": [p for p in model.parameters() if p.requires_grad and id(p) not in wide_ids]}]
    if wide_ids:
        groups.append({"params": [p for p in wide.parameters() if p.requires_grad], "lr": cfg.wide_lr})
    return groups


def _can_fuse(model: torch.nn.Module) -> bool:
    """Whether torch's fused Adam kernel can update these parameters. It computes the same update as the per-tensor
    loop, in one pass over each tensor, which matters for the default recipe's large embedding table, updated
    densely on every step."""
    return all(p.device.type in ("cpu", "cuda") and p.dtype.is_floating_point for p in model.parameters())


Optimizer = torch.optim.Optimizer | PairedOptimizer


def trains_rows_alone(model: torch.nn.Module, cfg: Train) -> bool:
    """Whether the n-gram channel trains by its rows (attentive/training/sparse_wide.py): with Adam at its own
    `wide_lr`, no weight decay (lazy Adam has none), in one process (DDP's NCCL sums no sparse gradients)."""
    return (cfg.optimizer.lower() == "adam" and bool(cfg.wide_lr) and not cfg.weight_decay
            and getattr(model, "wide", None) is not None and distributed.world_size() == 1)


def make_optimizer(model: torch.nn.Module, cfg: Train) -> Optimizer:
    """The optimizer `train.optimizer` names (one of recipe_types.OPTIMIZERS, in any case: the recipe was checked
    when it was loaded): ADADELTA or Adagrad where it says so, else Adam, the default; with Adam, the n-gram channel
    by its rows (`trains_rows_alone`: its tables are made to yield sparse gradients, which `fit` undoes)."""
    params = parameter_groups(model, cfg)
    name = cfg.optimizer.lower()
    if trains_rows_alone(model, cfg):
        network, wide = params
        set_sparse(model.wide, True)
        return PairedOptimizer(torch.optim.Adam([network], lr=cfg.lr, fused=_can_fuse(model)),
                               torch.optim.SparseAdam([wide], lr=cfg.wide_lr))
    if name == "adadelta":
        return torch.optim.Adadelta(params, lr=cfg.lr, rho=cfg.rho, eps=cfg.eps,
                                    weight_decay=cfg.weight_decay)
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    return torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay, fused=_can_fuse(model))


def epoch_count(cfg: Train, train_size: int) -> int:
    """`train.epochs`, cut on large data so that the run makes about `train.max_updates` gradient steps: the number
    of epochs is ceil(max_updates / batches per epoch), at least 1. Patience counts epochs, and one epoch of a
    338,000-headline set is 5,300 steps, more than a whole 10-epoch run on any other visible dataset."""
    if not cfg.max_updates:
        return cfg.epochs
    return max(1, min(cfg.epochs, math.ceil(cfg.max_updates / batches_per_pass(cfg, train_size))))


def batches_per_pass(cfg: Train, train_size: int) -> int:
    """The number of batches an epoch trains on: `batches_per_epoch` where set, else one pass over the data."""
    return cfg.batches_per_epoch or math.ceil(train_size / cfg.batch_size)


def pass_batches(train_ids: Sequence[Item], cfg: Train, rng: np.random.Generator,
                 labels: Sequence[int] | None = None) -> list[np.ndarray]:
    """One epoch's batches, in training order: every text once, shuffled; with `train.sampler: balanced`, as many
    rows drawn class-balanced from the class ids `labels` (attentive/training/sampling.py); with
    `batches_per_epoch`, that many batches drawn at random with replacement (SSAN's training)."""
    if cfg.sampler == sampling.BALANCED:
        batches = sampling.balanced_batches([len(item) for item in train_ids], labels, cfg.batch_size, rng)
    else:
        batches = list(iterate(train_ids, cfg.batch_size, shuffle=True, rng=rng))
    if cfg.batches_per_epoch:
        batches = [batches[i] for i in rng.integers(len(batches), size=cfg.batches_per_epoch)]
    return batches


def unique_names(parts: Sequence[LossTerm | StepHook]) -> dict[str, LossTerm | StepHook]:
    """The terms and hooks by name; the checkpoint keeps each one's state under its name, so names must differ."""
    named: dict[str, LossTerm | StepHook] = {}
    for part in parts:
        if "/" in part.name or part.name in named:
            raise AttentiveError(f"loss term or step hook name {part.name!r} is taken or holds '/'; each needs its own")
        named[part.name] = part
    return named


def part_states(parts: Sequence[LossTerm | StepHook]) -> dict[str, dict]:
    """Each term's and hook's state, by name (those with none left out)."""
    return {part.name: state for part in parts if (state := part.state_dict())}


def restore_part_states(parts: Sequence[LossTerm | StepHook], states: dict[str, dict]) -> None:
    """Give each term and hook its state back; one that has state but finds none in the checkpoint is an error."""
    for part in parts:
        if part.name in states:
            part.load_state_dict(states[part.name])
        elif part.state_dict():
            raise AttentiveError(f"the checkpoint holds no state for {part.name!r}, which this run trains with")


def _progress(show: bool) -> Progress:
    columns = [TextColumn("[bold]epoch {task.fields[epoch]}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("loss {task.fields[loss]:.4f}"), TextColumn("dev acc {task.fields[dev]}"),
               TimeElapsedColumn(), TimeRemainingColumn()]
    return Progress(*columns, disable=not show, transient=False)


def forward_batch(model: torch.nn.Module, batch: np.ndarray, train_ids: Sequence[Item], labels: torch.Tensor,
                  device) -> tuple:
    """The network's output for one training batch, the batch's label ids, and its inputs as the loss terms see them
    (the collated batch plus `rows`, its row numbers in the training set)."""
    inputs = collate([train_ids[i] for i in batch], device)
    target = labels[batch].to(device)
    out = model(**inputs)
    inputs["rows"] = torch.as_tensor(batch)
    return out, target, inputs


def train_epoch(model: torch.nn.Module, batches: list[np.ndarray], train_ids: Sequence[Item], labels: torch.Tensor,
                optimizer: Optimizer, cfg: Train, device, advance: Callable[[float], None],
                terms: Sequence[LossTerm], hooks: Sequence[StepHook] = (), stepped: torch.nn.Module | None = None
                ) -> dict:
    """One pass over `batches`: the sum of the loss `terms`, clipped gradient steps, each followed by every hook's
    `after_step(stepped)` (`stepped`: the model itself where `model` wraps it; default `model`). `penalty` in the
    record is the mean of the terms that count as penalties (all but the data term); `train_accuracy` counts the
    labelled rows alone."""
    stepped = model if stepped is None else stepped
    model.train()
    start, total_loss, total_penalty, seen, correct, counted = time.perf_counter(), 0.0, 0.0, 0, 0, 0
    for batch in batches:
        out, target, inputs = forward_batch(model, batch, train_ids, labels, device)
        loss = None
        for term in terms:
            value = term(out, target, inputs)
            if term.penalty:
                total_penalty += value.item() * len(batch)
            loss = value if loss is None else loss + value
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.clip and isinstance(optimizer, PairedOptimizer):
            clip_gradients(model.parameters(), cfg.clip)
        elif cfg.clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        optimizer.step()
        for hook in hooks:
            hook.after_step(stepped)
        total_loss += loss.item() * len(batch)
        seen += len(batch)
        labelled = target != UNLABELLED
        counted += int(labelled.sum())
        correct += (out.logits.argmax(-1) == target)[labelled].sum().item()
        advance(total_loss / seen)
    return {"train_loss": total_loss / seen, "train_accuracy": correct / max(counted, 1),
            "penalty": total_penalty / seen, "seconds": time.perf_counter() - start}


def _has_unused_parameters(model: torch.nn.Module, train_ids: Sequence[Item], labels: torch.Tensor,
                           terms: Sequence[LossTerm], cfg: Train, device) -> bool:
    """Whether a training step on the first batch leaves some trainable parameter without a gradient (DDP must then
    be told to look for such parameters after every forward). The step's randomness (dropout) is drawn from a
    forked generator, so training afterwards draws what it would have drawn without this probe."""
    batch = np.arange(min(cfg.batch_size, len(train_ids)))
    with torch.random.fork_rng(devices=[device] if str(device).startswith("cuda") else []):
        model.train()
        out, target, inputs = forward_batch(model, batch, train_ids, labels, device)
        sum(term(out, target, inputs) for term in terms).backward()
    unused = any(p.requires_grad and p.grad is None for p in model.parameters())
    model.zero_grad(set_to_none=True)
    return unused


def _distributed_learner(model: torch.nn.Module, train_ids: Sequence[Item], labels: torch.Tensor,
                         terms: Sequence[LossTerm], cfg: Train, device) -> torch.nn.Module:
    """`model` wrapped for data-parallel training (attentive/training/distributed.py)."""
    if getattr(model, "frozen_below_head", False):
        raise AttentiveError("a model that trains only its head (a frozen pretrained encoder) pools each text once "
                             "in one process: train it without torchrun / --nproc")
    return distributed.wrap(model, str(device), _has_unused_parameters(model, train_ids, labels, terms, cfg, device))


def _summed_over_ranks(stats: dict, rows: int) -> dict:
    """An epoch record's training loss, accuracy and penalty averaged over every rank's rows (weighted by the rows
    each trained on); this rank's own without a process group."""
    if distributed.world_size() == 1:
        return stats
    keys = ("train_loss", "train_accuracy", "penalty")
    total = distributed.all_sum([stats[key] * rows for key in keys] + [rows])
    return {**stats, **{key: value / max(total[-1], 1) for key, value in zip(keys, total)}}


def _class_f1(gold: np.ndarray, predicted: np.ndarray, classes: int) -> list[float]:
    """Each class's dev F1, in class-id order (config.json's `labels`): the numbers `dev_macro_f1` averages."""
    if not len(gold):
        return [0.0] * classes
    return [float(f) for f in f1_score(gold, predicted, labels=list(range(classes)), average=None, zero_division=0)]


DevScore = Callable[[torch.nn.Module], tuple[float, dict]]
"""A network's dev score (higher is better: what chooses the epoch and stops training) and the entries it adds to the
epoch's record."""


def accuracy_score(dev_ids: Sequence[Item], dev_gold: np.ndarray, device: str | torch.device) -> DevScore:
    """The single-label dev score: accuracy of the argmax, recorded with macro-F1 and each class's F1
    (`dev_class_f1`, in class-id order; the F1s are reported, never used to choose)."""
    def score(network: torch.nn.Module) -> tuple[float, dict]:
        probabilities = predict_probabilities(network, dev_ids, device=device)
        predicted = probabilities.argmax(1)
        accuracy = float((predicted == dev_gold).mean()) if len(dev_gold) else 0.0
        f1 = macro_f1(dev_gold, predicted, range(probabilities.shape[1])) if len(dev_gold) else 0.0
        return accuracy, {"dev_accuracy": accuracy, "dev_macro_f1": f1,
                          "dev_class_f1": _class_f1(dev_gold, predicted, probabilities.shape[1])}

    return score


@dataclass(frozen=True)
class FitData:
    """What `fit` trains and chooses on: the encoded training texts and their label ids (`UNLABELLED` for a row
    that has none), the encoded dev texts and theirs (not read where `FitConfig.dev_score` measures the dev split)."""

    train_ids: Sequence[Item]
    train_labels: Sequence[int]
    dev_ids: Sequence[Item]
    dev_labels: Sequence[int] = ()


@dataclass
class FitConfig:
    """How `fit` trains: the recipe's `train` section, the seeded generator that draws the batches, the device, the
    metrics log (`log_path`, None: none), the progress bar, the callbacks (`on_improve(network, record)` at each
    better dev epoch, `on_epoch_end(state)` after each epoch), the checkpoint to continue (`resume`), the caller's
    loss `terms` and step `hooks`, the per-class weights of the cross-entropy and the dev score (None: accuracy)."""

    train: Train
    rng: np.random.Generator
    device: str | torch.device = "cpu"
    log_path: Path | None = None
    show_progress: bool = True
    on_improve: Callable[[torch.nn.Module, dict], None] | None = None
    on_epoch_end: Callable[[TrainingState], None] | None = None
    resume: TrainingState | None = None
    terms: Sequence[LossTerm] = ()
    hooks: Sequence[StepHook] = ()
    class_weights: torch.Tensor | None = None
    dev_score: DevScore | None = None


def fit(model: torch.nn.Module, data: FitData, config: FitConfig) -> History:
    """Train `model` in place on `data` as `config` says (`FitData`, `FitConfig`: the settings named below are its
    fields); at the end it holds the weights of the epoch with the best dev score: dev accuracy, or what `dev_score`
    measures (a multi-label run: micro-F1; then `dev_labels` is not read).

    With `batches_per_epoch`, an "epoch" is that many batches drawn at random (with replacement) instead of one pass
    over the data (Ambartsoumian & Popowich 2018 §5: a fixed number of randomly sampled batches, the best dev model
    kept). With `window`, each epoch reads a text longer than it through a random window of that many tokens
    (attentive/training/windows.py). A model whose only trainable part is its head (a frozen pretrained encoder)
    pools each text once (attentive/training/frozen.py). Each epoch's record (epoch; train loss including any
    penalty, train and dev accuracy, dev macro-F1, each class's dev F1 as `dev_class_f1` in class-id order, seconds,
    lr) is appended to `log_path` as a JSON line; training stops after `patience` epochs without a better dev
    accuracy (the F1s are reported, never used to choose). After each epoch `on_epoch_end` gets the whole
    TrainingState (to checkpoint it); a run given such a state as `resume` continues after its epoch exactly as the
    uninterrupted run would have.

    Under torchrun (attentive/training/distributed.py: a process group of several ranks) every rank draws the same
    batches and trains on its shard of them, the network wrapped in DistributedDataParallel; dev accuracy is
    measured on rank 0 and its numbers sent to all, so every rank keeps the same best epoch and stops at the same
    epoch, and ends with the same weights.

    The loss is the sum of the recipe's loss terms (`terms_from`, its cross-entropy weighted by `class_weights`, one
    per class, where given) and the caller's `terms`; after each step every hook of the recipe's (`hooks_from`) and
    the caller's `hooks` runs. Dev accuracy is measured, and the best point kept (and given to `on_improve`), inside
    every hook's `evaluation` context: with `ema_epochs`, on the moving average of the weights. The checkpoint holds
    each term's and hook's state under its name.
    """
    try:
        return _train(model, data, config)
    finally:
        if getattr(model, "wide", None) is not None:
            set_sparse(model.wide, False)  # make_optimizer's sparse gradients are a training matter


def _train(model: torch.nn.Module, data: FitData, config: FitConfig) -> History:
    """`fit`'s loop."""
    cfg, rng, device, resume = config.train, config.rng, config.device, config.resume
    train_ids, train_labels = data.train_ids, data.train_labels
    model.to(device)
    optimizer = make_optimizer(model, cfg)
    labels = torch.as_tensor(np.asarray(train_labels), dtype=torch.long)
    history, best_state, stale, first = History(), None, 0, 1
    terms = [*terms_from(cfg, config.class_weights), *config.terms]
    parallel = distributed.world_size() > 1
    if parallel:  # made before the hooks, which copy the weights: DDP gives every rank rank 0's first
        learner = _distributed_learner(model, train_ids, labels, terms, cfg, device)
    else:
        learner = FrozenPooling(model) if getattr(model, "frozen_below_head", False) else model  # pools each text once
    steps = distributed.shard_size(batches_per_pass(cfg, len(train_ids)))  # a rank's steps in an epoch
    hooks = [*hooks_from(model, cfg, steps), *config.hooks]
    parts = list(unique_names([*terms, *hooks]).values())
    epochs, patience = epoch_count(cfg, len(train_ids)), cfg.patience
    if resume is not None:
        model.load_state_dict(resume.model)
        optimizer.load_state_dict(resume.optimizer)
        restore_rng(resume.rng, rng)
        history = History(list(resume.history), resume.best_epoch, resume.best_dev_accuracy)
        best_state, stale = resume.best, resume.stale
        restore_part_states(parts, resume.states)
        first = resume.epoch + 1 if stale < patience else epochs + 1  # it had stopped early
    scorer = model if parallel else learner  # the dev pass runs on the network itself, on rank 0 alone
    score_dev = config.dev_score or accuracy_score(data.dev_ids, np.asarray(data.dev_labels), device)
    with _progress(config.show_progress) as progress:
        for epoch in range(first, epochs + 1):
            epoch_ids = windowed(train_ids, cfg.window, rng)  # long texts cut to this epoch's windows
            batches = distributed.shard(pass_batches(epoch_ids, cfg, rng, train_labels))  # every rank draws them all
            best = "…" if history.best_dev_accuracy < 0 else f"{history.best_dev_accuracy:.4f}"
            task = progress.add_task("train", total=len(batches), epoch=f"{epoch}/{epochs}", loss=0.0, dev=best)
            stats = train_epoch(learner, batches, epoch_ids, labels, optimizer, cfg, device,
                                lambda loss: progress.update(task, advance=1, loss=loss), terms, hooks, model)
            stats = _summed_over_ranks(stats, sum(len(batch) for batch in batches))
            with contextlib.ExitStack() as evaluation:
                for hook in hooks:
                    evaluation.enter_context(hook.evaluation(model))
                score, measured = distributed.broadcast_object(  # measured on rank 0: one decision for all
                    (score_dev(scorer) if distributed.is_main() else None))
                record = {"epoch": epoch, **stats, **measured, "lr": optimizer.param_groups[0]["lr"]}
                history.epochs.append(record)
                improved = score > history.best_dev_accuracy
                progress.update(task, dev=f"{score:.4f}" + (" ★" if improved else ""))
                if config.log_path is not None:
                    append_record(config.log_path, record)
                if improved:
                    history.best_dev_accuracy, history.best_epoch, stale = score, epoch, 0
                    best_state = copy.deepcopy(model.state_dict())
                    if config.on_improve is not None:
                        config.on_improve(model, record)
                else:
                    stale += 1
            if config.on_epoch_end is not None:
                config.on_epoch_end(TrainingState(epoch, history.epochs, history.best_epoch,
                                                  history.best_dev_accuracy, stale, model.state_dict(), best_state,
                                                  optimizer.state_dict(), capture_rng(rng),
                                                  states=part_states(parts)))
            if stale >= patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    return history
