"""From a dataset and a recipe to a saved Model: vocabulary and initial vectors, the network, training with a
checkpoint after every epoch, the best dev epoch saved. A model folder is never replaced unless asked
(`overwrite`), nothing training did not write is ever removed (attentive/folders/output.py), and a killed run
continues from its last checkpoint (`resume`)."""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

from ..answer.inference import infer
from ..answer.metrics import DEFAULT_THRESHOLD
from ..answer.torch_backend import Model, pick_device
from ..data.batching import collate
from ..data.checks import check_training_labels, given_labels
from ..data.example import Dataset
from ..data.label_sets import multi_hot
from ..data.source import resolve_dataset
from ..errors import AttentiveError
from ..folders.manifest import owner_of, record
from ..folders.metrics_log import LOG, start_run
from ..folders.output import OutputKind, claim
from ..folders.saved import MODEL_FILES, holds_model
from ..models.classifier import build_model
from ..models.pretrained import pretrained_config, pretrained_tokenizer
from ..onnx_format.read import is_exported
from ..recipes.for_data import unseen_dev_aspects
from ..recipes.loader import recipe_from_config
from ..recipes.types import Recipe, Train
from ..text.embeddings import WordVectors
from ..text.progress import vectors_progress
from ..text.sources import build_vocabulary, initial_vectors, vocabulary_report
from ..util.run_settings import RunSettings
from ..util.spelling import listed
from . import distributed
from .calibration import fit_temperature, warn_small_dev
from .checkpoint import FILES as CHECKPOINT_FILES
from .checkpoint import FOLDER as CHECKPOINT
from .checkpoint import TrainingState, read_checkpoint, remove_checkpoint, write_checkpoint
from .hooks import StepHook
from .loop import FitConfig, FitData, fit
from .multilabel import MicroF1, dev_scores
from .prior import add_prior
from .seed import seed_everything
from .size import check_size
from .terms import UNLABELLED, BinaryCrossEntropy, LossTerm

FIRST_BATCH = 64  # training texts whose token vectors give the parts their starting values


def _export_in(folder: Path) -> str | None:
    return "an exported model (attentive export's)" if is_exported(folder) else None


TRAINING_RUN = OutputKind(command="train", output="a model", files=frozenset({*MODEL_FILES, LOG}),
                          holds_output=holds_model, folders={CHECKPOINT: CHECKPOINT_FILES},
                          alternatives=", --resume to continue its training", clash=_export_in)


def check_aspects(data: Dataset, recipe: Recipe) -> list[str]:
    """The aspect categories a learned-aspect recipe will embed ([] otherwise), after checking that the recipe and
    the data agree on whether texts come with aspects."""
    kind = recipe.aspect.type
    has_aspects = any(ex.aspect is not None for ex in data.splits["train"])
    if has_aspects and kind == "none":
        raise AttentiveError(f"dataset {data.name!r} gives an aspect with each text and recipe {recipe.name!r} "
                             "would ignore it: use an aspect recipe (ae_lstm, at_lstm, atae_lstm, lama_aspect) or "
                             "--set aspect.type=ignore to classify the text alone")
    if not has_aspects and kind in ("learned", "words"):
        raise AttentiveError(f"recipe {recipe.name!r} classifies texts with respect to an aspect, but dataset "
                             f"{data.name!r} has none")
    if kind != "learned":
        return []
    if unseen := unseen_dev_aspects(data):
        raise AttentiveError(f"dev aspect(s) {listed(unseen)} never occur in training, and recipe "
                             f"{recipe.name!r} learns one vector per known aspect: for open-ended aspect terms use "
                             "--set aspect.type=words (or no --recipe: the default then does)")
    return sorted({ex.aspect for ex in data.splits["train"] if ex.aspect is not None})


def data_fingerprint(data: Dataset) -> str:
    """A hash of the train and dev examples: a resumed run must see the data its checkpoint was trained on."""
    digest = hashlib.sha256()
    for split in ("train", "dev"):
        for ex in data.splits[split]:
            row = [split, ex.text, ex.label, ex.aspect, ex.text_pair] + ([list(ex.labels)] if ex.labels is not None
                                                                        else [])  # single-label rows hash as before
            digest.update(json.dumps(row).encode("utf-8"))
    return digest.hexdigest()[:32]


def new_model(data: Dataset, recipe: Recipe, data_dir, device: str, rng) -> Model:
    """Vocabulary, initial vectors and the untrained network the recipe describes; the model's recipe holds the
    values found here (`Recipe.resolved`: the vectors' width, numbers for d_model, the pretrained encoder's config)."""
    aspect_names = check_aspects(data, recipe)
    train_examples = data.splits["train"]
    texts_and_pairs = [ex.text for ex in train_examples] + [ex.text_pair for ex in train_examples
                                                            if ex.text_pair is not None]
    started = time.perf_counter()
    pretrained = recipe.tokenizer.type == "pretrained"
    if pretrained:
        tokenizer = pretrained_tokenizer(recipe.tokenizer.max_length)
        recipe = recipe.resolved(encoder_config=pretrained_config())  # saved with the model: loading needs no package
    else:
        tokenizer = build_vocabulary(recipe, texts_and_pairs)
    check_size(recipe, tokenizer.get_vocab_size(), len(data.labels), len(aspect_names), device)  # before any vector
    vectors = WordVectors(None, 1.0, "pretrained") if pretrained else initial_vectors(
        recipe, tokenizer, texts_and_pairs, data.name,
        lambda extra: [ex.text for ex in resolve_dataset(extra, data_dir).splits["train"]], rng)
    vector_seconds = time.perf_counter() - started
    if vectors.matrix is not None:
        recipe = recipe.resolved(dim=int(vectors.matrix.shape[1]))  # GloVe 6B is 50-d whatever the recipe said
    network = build_model(recipe, tokenizer.get_vocab_size(), len(data.labels), vectors.matrix, len(aspect_names))
    network.encoder.load_pretrained()  # a no-op for encoders without pretrained weights (models/parts.py)
    has_pairs = any(ex.text_pair is not None for ex in train_examples)
    if network.is_pair != has_pairs:
        raise AttentiveError(f"dataset {data.name!r} holds {'text pairs' if has_pairs else 'single texts'} but "
                             f"recipe {recipe.name!r} classifies {'pairs' if network.is_pair else 'single texts'}")
    multi_label = {"multi_label": True, "thresholds": dict.fromkeys(data.labels, DEFAULT_THRESHOLD)} \
        if data.multi_label else {}  # the thresholds are chosen on dev once training ends
    config = {**multi_label,
              "recipe": recipe.as_dict(), "labels": data.labels, "vocab_size": tokenizer.get_vocab_size(),
              "aspects": aspect_names, "dataset": data.name, **({"reading": data.reading} if data.reading else {}),
              "vectors": {"source": vectors.source, "coverage": round(vectors.coverage, 4),
                          "seconds": round(vector_seconds, 1)},
              "vocabulary": vocabulary_report(tokenizer, texts_and_pairs, [ex.text for ex in data.splits["dev"]],
                                              recipe.tokenizer.lowercase)}
    model = Model(network, tokenizer, config, device, recipe=recipe)
    first = model.encode_examples(train_examples[:FIRST_BATCH])  # in data order: every process starts the same
    network.initialise(**collate(first, model.device))  # data-dependent starting values (LAMA's global context)
    return model


def _resumed_model(data: Dataset, out: Path, device: str) -> tuple[Model, TrainingState]:
    """The model of a checkpoint, after checking that it was trained on the same data."""
    state, tokenizer_json = read_checkpoint(out)
    config = state.extra["config"]
    if state.extra.get("data") != data_fingerprint(data):
        raise AttentiveError(f"{out}: the checkpoint was trained on other data than {data.name!r} (its train/dev "
                             "examples differ): resume with the data it started with")
    recipe = recipe_from_config(config["recipe"])
    network = build_model(recipe, config["vocab_size"], len(config["labels"]), aspects=len(config["aspects"]))
    return Model(network, Tokenizer.from_str(tokenizer_json), config, device, recipe=recipe), state


def resume_source(out: str | Path) -> dict:
    """Where the data of the run being resumed came from (what `train(..., source=)` recorded), {} if unknown."""
    state, _ = read_checkpoint(Path(out))
    return state.extra.get("source") or {}


def class_weights(setting, labels: Sequence[str], targets: Sequence[int]) -> torch.Tensor | None:
    """The per-class weights of `train.class_weight` (in the order of `labels`), or None for `none`: `balanced` gives
    class c the weight n / (k * n_c) over the labelled training `targets` (ids; `UNLABELLED` rows left out), k the
    number of classes that occur there (scikit-learn's `compute_class_weight("balanced")`; a class with no training
    row keeps 1, as no row's loss reads it); a mapping {label: weight} gives the labels it names their weight and the
    others 1. A label the data does not have is one line naming it."""
    if setting in (None, "none"):
        return None
    check_class_weight(setting, labels)
    weights = np.ones(len(labels))
    if setting == "balanced":
        ids = np.asarray([t for t in targets if t != UNLABELLED], dtype=np.int64)
        counts = np.bincount(ids, minlength=len(labels))
        present = counts > 0
        weights[present] = len(ids) / (int(present.sum()) * counts[present])
        return torch.as_tensor(weights, dtype=torch.float32)
    index = {label: i for i, label in enumerate(labels)}
    for label, weight in setting.items():
        weights[index[str(label)]] = float(weight)
    return torch.as_tensor(weights, dtype=torch.float32)


def check_class_weight(setting, labels: Sequence[str]) -> None:
    """Each label a `train.class_weight` mapping names is one of the data's (a YAML key read as a number, `1: 2.0`,
    stands for the label "1"); else one line naming it. Its form and weights were checked with the recipe
    (recipe_types.Train)."""
    if isinstance(setting, dict):
        for label in setting:
            if str(label) not in labels:
                raise AttentiveError(f"train.class_weight: {str(label)[:60]!r} is not a label of the data (its labels: "
                                     f"{listed(list(labels))})")


def calibrate(model: Model, dev_items: Sequence, dev_targets: Sequence[int]) -> dict | None:
    """Temperature scaling of `model` on the dev split's encoded items and label ids
    (attentive/training/calibration.py): the `calibration` entry of its config.json, set there; None (and no entry)
    when dev is empty."""
    model.config.pop("calibration", None)
    if not len(dev_items):
        return None
    logits = infer(model.network, dev_items, device=model.device).logits  # before any temperature
    model.config["calibration"] = fit_temperature(logits, dev_targets)
    return model.config["calibration"]


def fold_prior(model: Model, train_items: Sequence, train_targets: Sequence[int], dev_items: Sequence,
               dev_targets: Sequence[int]) -> dict | None:
    """The recipe's linear model fitted after training (`wide.prior`; attentive/training/prior.py), weighed on dev
    and folded into the n-gram channel at the temperature just fitted; the temperature is then fitted again on the
    sum. Returns config.json's `prior` entry, set there; None (and no entry) without a prior or a dev split. Training
    texts shorter on average than `wide.prior_min_tokens` fit none: the entry says so."""
    model.config.pop("prior", None)
    channel = model.network.wide
    if channel is None or not channel.prior or not len(dev_items):
        return None
    tokens = sum(len(item.ids) for item in train_items) / max(len(train_items), 1)
    if tokens < channel.prior_min_tokens:
        model.config["prior"] = {"skipped": f"the training texts average {tokens:.1f} tokens, fewer than "
                                            f"wide.prior_min_tokens ({channel.prior_min_tokens})"}
        return model.config["prior"]
    logits = infer(model.network, dev_items, device=model.device).logits  # before any temperature
    model.config["prior"] = add_prior(channel, model.network.head, train_items, train_targets, dev_items,
                                      dev_targets, logits, model.temperature)
    calibrate(model, dev_items, dev_targets)
    return model.config["prior"]


def measure_faithfulness(model: Model, dev_examples: Sequence, seed: int = 0) -> dict | None:
    """A cheap deletion test on at most 300 dev texts (a seeded sample): the share of answers that change when the
    5% most attended words, 5% random words or the 5% words of most positive evidence are removed, measured by the
    answer path (`Answerer.faithfulness`, attentive/answer/deletion.py), as an export's is by `attentive evaluate`;
    set as config.json's `faithfulness` ({"dev_texts", "fraction", "flipped"}) and returned. None (and no entry)
    when no dev text can be explained (none of at least two words)."""
    from ..answer.deletion import measure

    model.config.pop("faithfulness", None)
    result = measure(model, dev_examples, seed)
    if result is None:
        return None
    model.config["faithfulness"] = {"dev_texts": result["texts"], "fraction": result["fraction"],
                                    "flipped": result["flipped"]}
    return model.config["faithfulness"]


@dataclass(frozen=True)
class TrainingRun:
    """What one `train` call trains, and how: its arguments, passed as one through the stages of the pipeline."""

    data: Dataset
    recipe: Recipe | None  # None when resuming: the checkpoint's
    settings: RunSettings
    source: dict | None = None
    terms: Sequence[LossTerm] = ()
    hooks: Sequence[StepHook] = ()
    described: dict | None = None
    reads: Sequence[Path] = ()
    on_epoch: Callable[[dict], None] | None = None
    kind: OutputKind = TRAINING_RUN

    @property
    def out(self) -> Path | None:
        return self.settings.out_path


def train(data: Dataset, recipe: Recipe | None, settings: RunSettings | None = None, *, source: dict | None = None,
          terms: Sequence[LossTerm] = (), hooks: Sequence[StepHook] = (), described: dict | None = None,
          reads: Sequence[Path] = (), on_epoch: Callable[[dict], None] | None = None,
          kind: OutputKind = TRAINING_RUN) -> Model:
    """Train `recipe` (typed, resolved for this data once by the caller: `recipes.for_data.recipe_for_data`) on the
    data's train split, select the epoch on dev, save to `settings.out` (if given), as `settings` says
    (attentive/util/run_settings.py: the folder, `data_dir`, the device, `overwrite`, `resume`, the progress bar;
    its `threads` are the caller's to set).

    A folder that holds a model is refused unless `overwrite` (the old model stays until the new one's first epoch
    replaces it as a whole) or `resume` (continue from the folder's last checkpoint, with the recipe and vocabulary
    it was started with, read from the checkpoint; `recipe` is then None). A folder holding files training does not
    write is refused unless `overwrite`, and even then only the model's files, metrics.jsonl and checkpoint/ are
    written there (`TRAINING_RUN`); one run at a time writes to a folder. `source` (JSON) is kept in the checkpoint
    to tell a later resume where the data came from. `terms` and `hooks` (attentive/training/terms.py, hooks.py)
    are added to the recipe's loss terms and step hooks; they are code, not recipe, so a resume must be given them
    again. Training rows without a label are taken only with a term that `uses_unlabelled` (distillation's transfer
    texts). `described` (JSON) joins the model's config.json, e.g. what a student was distilled from. `reads` are
    model folders the run reads (a student's teachers): `out` is never one of them or a folder holding one.
    `on_epoch` gets each epoch's record (as metrics.jsonl logs it) once the epoch's checkpoint is written; an
    exception it raises stops the run there (attentive tune prunes a trial so), the folder holding the best epoch so
    far and its checkpoint. `kind` is the output `out` is claimed as (a command that trains, as distill does, names
    itself and the ways out it offers).

    Under torchrun (`torchrun --nproc-per-node N -m attentive train ...`, or a script calling `train` in each
    process it starts) the ranks train one model together (attentive/training/distributed.py): rank 0 builds the
    vocabulary and vectors first and the others build theirs from the same data once it is done (reading what it
    cached); only rank 0 claims `out` and writes the model, metrics.jsonl and checkpoints, the others write nothing;
    every rank returns the same weights."""
    settings = settings or RunSettings()
    run = TrainingRun(data, recipe, settings, source, tuple(terms), tuple(hooks), described, tuple(reads), on_epoch,
                      kind)
    with distributed.session(distributed.local_device(pick_device(settings.device))):
        return _train_claimed(run)


def _train_claimed(run: TrainingRun) -> Model:
    """`train` inside its process group, if any."""
    data = run.data
    check_training_labels(data)  # one class is an error; labels only dev/test has are in data.warnings
    unlabelled = sum(not ex.is_labelled for ex in data.splits["train"])
    if unlabelled and not any(term.uses_unlabelled for term in run.terms):
        raise AttentiveError(f"{data.name}: {unlabelled} training rows have no label, and only a distillation term "
                             "learns from unlabelled texts (attentive distill)")
    settings = run.settings
    if not settings.resume and data.multi_label:  # refused before the folder is claimed (a resumed run was checked)
        refuse_one_label_settings(run.recipe.train)
    if settings.resume and run.out is None:
        raise AttentiveError("resume needs the folder of the run to continue (--out / --resume RUN)")
    if run.out is None or not distributed.is_main():  # another rank than 0 reads a resumed run's checkpoint only
        shown = settings.progress() and distributed.is_main()
        return _train(replace(run, settings=replace(settings, show_progress=shown)), writes=False)
    # one writer, nothing of others replaced
    with claim(run.out, run.kind, overwrite=settings.overwrite, continuing=settings.resume, inputs=run.reads):
        return _train(run)


def _train(run: TrainingRun, writes: bool = True) -> Model:
    """`train` once its output folder, if any, is claimed; with `writes` false (a rank other than 0 under
    torchrun), `run.out` is only read (a resumed run's checkpoint), never written."""
    data, terms = run.data, run.terms
    device = distributed.local_device(pick_device(run.settings.device))
    with distributed.main_first():  # the other ranks read the vectors rank 0 cached
        if run.settings.resume:
            model, state = _resumed_model(data, run.out, device)
            rng = seed_everything(model.recipe.train.seed)
        else:
            rng = seed_everything(run.recipe.train.seed)
            if not data.splits["train"] or not data.splits["dev"]:
                raise AttentiveError(f"dataset {data.name!r} needs non-empty train and dev splits")
            check_class_weight(run.recipe.train.class_weight, data.labels)  # before the vocabulary and vectors
            with vectors_progress(run.settings.progress()):  # a line while the vectors are built, before epoch 1
                model, state = new_model(data, run.recipe, run.settings.data_dir, device, rng), None
            model.config.update(run.described or {})
        recipe = model.recipe  # as config.json holds it: its derived values resolved
    distributed.check_same(model.tokenizer.to_str(), "vocabulary")
    out, on_epoch = run.out if writes else None, run.on_epoch
    config = model.config
    label_index = {label: i for i, label in enumerate(config["labels"])}
    unknown = sorted({label for split in ("train", "dev") for ex in data.splits[split] for label in given_labels(ex)}
                     - {*label_index})
    if unknown:
        raise AttentiveError(f"{data.name}: label(s) {', '.join(map(repr, unknown))} unknown to the checkpoint")
    log_path = None
    if out is not None:
        model.folder = out
        out.mkdir(parents=True, exist_ok=True)
        log_path = out / LOG
        start_run(log_path, state.epoch if state is not None else None)
        record(out, owner_of(out, "train"), growing=[LOG])  # appended to from here on; what it holds now is ours
        if state is None:
            remove_checkpoint(out)  # an overwritten run's checkpoint must not be resumed into this one

    def save_best(_network, record):
        config["training"] = {"best_epoch": record["epoch"], "dev_accuracy": record["dev_accuracy"],
                              "dev_macro_f1": record["dev_macro_f1"]}
        if selection is not None:  # a multi-label model answers with the thresholds of its epoch
            config["thresholds"] = selection.thresholds
            config["training"]["dev_micro_f1"] = record["dev_micro_f1"]
        if out is not None:
            model.save(out)

    def checkpoint(training_state: TrainingState):
        training_state.extra = {"config": config, "data": data_fingerprint(data), "source": run.source}
        write_checkpoint(out, training_state, model.tokenizer.to_str())

    def epoch_end(training_state: TrainingState):
        if out is not None:
            checkpoint(training_state)
        if on_epoch is not None:
            on_epoch(dict(training_state.history[-1]))

    train_examples, dev_examples = data.splits["train"], data.splits["dev"]
    if distributed.is_main():  # a dev split too small to choose on: a SmallDevWarning, once the folder is claimed
        warn_small_dev(data, "an epoch or thresholds" if config.get("multi_label") else "an epoch or a temperature")
    dev_items = model.encode_examples(dev_examples)
    selection = None
    if config.get("multi_label"):
        train_targets, terms, selection = _multi_label_parts(model, recipe.train, train_examples, dev_examples,
                                                             dev_items, terms)
        dev_targets = []  # the dev score reads the label sets
    else:
        train_targets = [UNLABELLED if ex.label is None else label_index[ex.label] for ex in train_examples]
        dev_targets = [label_index[ex.label] for ex in dev_examples]
    weights = class_weights(recipe.train.class_weight, config["labels"], train_targets)
    for key in ("calibration", "prior", "faithfulness"):  # a resumed run's: fitted or measured again once it ends
        config.pop(key, None)
    train_items = model.encode_examples(train_examples)
    history = fit(model.network, FitData(train_items, train_targets, dev_items, dev_targets),
                  FitConfig(recipe.train, rng, device, log_path, run.settings.progress(), on_improve=save_best,
                            on_epoch_end=epoch_end if out is not None or on_epoch is not None else None,
                            resume=state, terms=terms, hooks=run.hooks, class_weights=weights, dev_score=selection))
    best = next((r for r in history.epochs if r["epoch"] == history.best_epoch), {})
    config["training"] = {"best_epoch": history.best_epoch, "dev_accuracy": history.best_dev_accuracy,
                          "dev_macro_f1": best.get("dev_macro_f1"),
                          "epochs_run": history.epochs[-1]["epoch"] if history.epochs else 0,
                          "epoch_seconds": history.epoch_times}
    if selection is not None:
        _finish_multi_label(model, selection, dev_items)
    elif distributed.is_main():
        calibrate(model, dev_items, dev_targets)  # on the best epoch's weights, which fit left in the network
        fold_prior(model, train_items, train_targets, dev_items, dev_targets)  # likewise
    if distributed.is_main():
        measure_faithfulness(model, dev_examples, recipe.train.seed)  # likewise
    keys = ("calibration", "prior", "faithfulness")
    for key, value in zip(keys, distributed.broadcast_object(tuple(config.get(key) for key in keys))):
        if value is not None:  # the other ranks' models answer as rank 0's
            config[key] = value
    if distributed.active() and "weight" in (config.get("prior") or {}):  # and with its fitted rows
        main_state = {name: tensor.cpu() for name, tensor in model.network.state_dict().items()}
        model.network.load_state_dict(distributed.broadcast_object(main_state if distributed.is_main() else None))
    model.history = history
    if out is not None:
        model.save(out)
        remove_checkpoint(out)  # finished: nothing to resume, and the folder stays the model's size
    return model


def refuse_one_label_settings(train: Train) -> None:
    """Settings that read one label per text are one line for a multi-label model (label sets)."""
    if train.class_weight != "none":
        raise AttentiveError("train.class_weight weighs one label per text; a multi-label model (label sets) "
                             "trains with 'none'")
    if train.sampler != "shuffle":
        raise AttentiveError("train.sampler=balanced draws texts by their one label; a multi-label model (label "
                             "sets) trains with 'shuffle'")


def _multi_label_parts(model: Model, train: Train, train_examples, dev_examples, dev_items, terms):
    """What a multi-label run gives the loop (attentive/training/multilabel.py): every training row `UNLABELLED`,
    the binary cross-entropy over the label sets added to `terms`, and the dev score, micro-F1 (which keeps the dev
    label sets, rows x labels)."""
    labels = model.config["labels"]
    refuse_one_label_settings(train)
    dev_gold = multi_hot(dev_examples, labels)
    if not dev_gold.any():
        raise AttentiveError("dev holds no label: a multi-label model chooses its epoch and thresholds on dev "
                             "texts that have labels")
    selection = MicroF1(dev_items, dev_gold, labels, model.device)
    data_term = BinaryCrossEntropy(multi_hot(train_examples, labels))
    return [UNLABELLED] * len(train_examples), [data_term, *terms], selection


def _finish_multi_label(model: Model, selection: MicroF1, dev_items) -> None:
    """After `fit` (which left the weights of the epoch of best dev micro-F1 in the network): the per-label
    thresholds chosen on dev with them (evaluate.choose_thresholds), and the dev scores in config.json. No
    temperature is fitted: temperature scaling calibrates a softmax, and each label's threshold is chosen on its own
    probability."""
    config = model.config
    metrics, thresholds, _ = dev_scores(model.network, dev_items, selection.gold, config["labels"], model.device)
    config["thresholds"] = thresholds
    config["training"].update(dev_accuracy=metrics["subset_accuracy"], dev_micro_f1=metrics["micro_f1"],
                              dev_macro_f1=metrics["macro_f1"],
                              dev_per_label_f1={label: m["f1"] for label, m in metrics["per_class"].items()},
                              selection="dev micro-F1 at per-label thresholds chosen on dev",
                              calibration="skipped: a multi-label model's sigmoids are not temperature-scaled")
    if model.network.wide is not None and model.network.wide.prior:  # wide.prior combines two softmaxes
        config["prior"] = {"skipped": "a multi-label model's sigmoids are no softmax to combine with"}
