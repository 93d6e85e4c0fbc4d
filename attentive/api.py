"""The Python API, one to one with the CLI: `train(...)`, `load(path)`, `Model.predict(...)`, `Model.evaluate(...)`.

    model = attentive.train(texts=reviews, labels=stars, epochs=3)          # texts in memory
    model = attentive.train(train="train.csv", dev="dev.csv", heads=5)      # your files
    model = attentive.train("sst2", recipe="lama_ctx", out="runs/sst2")     # a named dataset
    model.predict("a gorgeous, witty film"); model.predict_proba(texts)      # labels; an array
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .answer.torch_backend import Explanation, Model, Prediction, pick_device
from .data.example import Dataset
from .data.source import DataSource, resolve_dataset
from .folders.saved import load_folder
from .recipes.for_data import recipe_for_data
from .recipes.types import Recipe
from .training.pipeline import check_aspects
from .training.pipeline import train as train_dataset
from .util.checks import check_folder, overrides_argument
from .util.run_settings import RunSettings

__all__ = ["Explanation", "Model", "Prediction", "check_aspects", "encoded_probabilities", "load", "network_for",
           "pick_device", "recipe_for", "resolve_dataset", "train", "untrained"]


def recipe_for(dataset: str | Dataset, recipe: str | dict | Recipe = "default",
               overrides: Sequence[str] = ()) -> Recipe:
    """The recipe `train(dataset, recipe, overrides=overrides)` would train with, checked and typed: `default`
    stands for the recipe of the data's kind (pairs, aspects), and the overrides ("section.key=value") applied."""
    return recipe_for_data(resolve_dataset(dataset), recipe, list(overrides))


def untrained(dataset: str | Dataset, recipe: str | dict | Recipe = "default", overrides: Sequence[str] = (),
              data_dir: str | Path | None = None) -> Model:
    """The model `train(dataset, recipe, overrides=overrides)` starts from, on the CPU: its vocabulary, initial word
    vectors and network built as training builds them, its weights not trained. What a saved folder of that recipe
    and data holds, by shape, before any epoch."""
    from .training.pipeline import new_model
    from .training.seed import seed_everything

    data = resolve_dataset(dataset, data_dir)
    typed = recipe_for_data(data, recipe, list(overrides))
    return new_model(data, typed, data_dir, "cpu", seed_everything(typed.train.seed))


def network_for(recipe: str | dict | Recipe, vocab_size: int, classes: int):
    """The untrained network (a torch module) `recipe` describes for a vocabulary of `vocab_size` words and
    `classes` classes, its word vectors random: the shapes training would build, for counting parameters without
    data."""
    from .recipes.for_data import untrained_network

    return untrained_network(recipe, vocab_size, classes)


def encoded_probabilities(model: Model, items: Sequence, batch_size: int = 128):
    """Class probabilities (texts x classes) of texts `model.encode_examples` encoded, from the network alone: no
    tokenizing and no answers built, as a timing of the network wants."""
    from .answer.inference import predict_probabilities

    return predict_probabilities(model.network, items, batch_size=batch_size, device=model.device)


def linear_part_accuracy(model: Model, data: Dataset, splits: Sequence[str] = ("dev", "test")) -> dict | None:
    """The accuracy of the model's own linear part alone, the logistic regression its `wide.prior` fits over the
    n-gram channel's features (attentive/training/prior.py), refitted on the training split at the C dev chose,
    on each of `splits`; None where the model fitted none."""
    import numpy as np

    from .training.prior import linear_part_answers

    c = (model.config.get("prior") or {}).get("C")
    if c is None:
        return None
    index = {label: i for i, label in enumerate(model.labels)}
    channel, train = model.network.wide, data.splits["train"]
    answers = linear_part_answers(model.encode_examples(train), [index[ex.label] for ex in train],
                                  [model.encode_examples(data.splits[split]) for split in splits],
                                  channel.unigrams.num_embeddings, channel.buckets, c)
    scored = {split: float(np.mean(found == np.array([index.get(ex.label, -1) for ex in data.splits[split]])))
              for split, found in zip(splits, answers)}
    return {"C": c, **scored}


def load(folder: str | Path, device: str | None = None):
    """Read a model folder: a saved one as a `Model` (safetensors + JSON; nothing unpickled), an exported one as
    `attentive.answer.onnx_backend.load` reads it (ONNX Runtime, its int8 graph where it has one). Both answer
    `predict`, `predict_proba`, `explain` and `evaluate` alike."""
    from .onnx_format.read import is_exported

    check_folder(folder)
    if is_exported(folder):
        from .answer.onnx_backend import load as load_exported

        return load_exported(folder)
    network, tokenizer, config, recipe = load_folder(folder)
    model = Model(network, tokenizer, config, device, recipe=recipe)
    model.folder = Path(folder)
    return model


def train(dataset: str | Dataset | DataSource | None = None, recipe: str | dict | Recipe = "default",
          out: str | Path | None = None, overrides: list[str] | str | None = None, *,
          settings: RunSettings | None = None, source: dict | None = None, terms: Sequence = (),
          hooks: Sequence = (), on_epoch: Callable[[dict], None] | None = None, **given) -> Model:
    """Train a model, select its epoch on dev, save it to `out` (if given) and return it.

    The data is one of: a named dataset or a `Dataset` (`dataset`); texts and labels in memory (`texts=`,
    `labels=`, optionally `dev_texts=`, `dev_labels=`; labels of any type become strings); or your files (`train=`,
    `dev=`, `test=`: CSV, TSV or JSONL with `text_column=` and `label_column=`, and `pair_column=`,
    `aspect_column=`, `label_separator=`); or a `DataSource` holding one of them (`dataset`, those keywords then
    refused). Where no dev split is given, a stratified tenth of train is held out.

    How the run goes is `settings`, an `attentive.RunSettings` (out, data_dir, device, threads, overwrite, resume,
    show_progress), each of its fields also a keyword (`device="cpu"`, `overwrite=True`) that wins over it, and
    `out` its `out`; `overwrite` and `resume` as in the CLI's `train`. Every other keyword is a setting of the
    recipe (`epochs=3`, `heads=5`, `lr=1e-3`, or `pooler__heads=5` where several sections hold the key), as are
    `overrides` ("pooler.heads=5", or a list of them), applied to `recipe` (a name, a YAML file or a dict, which is
    not changed); each is checked for type and range, and a name no section holds is one line. A single string
    given for texts or labels, a text that is not valid Unicode, a missing (None, NaN) or infinite label, a label
    set (a list) among single labels and texts and labels of different lengths are refused with one line naming the
    index (an ArgumentError: an AttentiveError and a ValueError).
    `terms` (`attentive.training.terms.LossTerm`) and `hooks` (`attentive.training.hooks.StepHook`) are added to the
    recipe's loss terms and step hooks; a resume must be given them again. `on_epoch(record)` is called after each
    epoch with its record (epoch, train_loss, train and dev accuracy, dev_macro_f1, seconds, lr); an exception it
    raises stops training there. `source` (JSON) is kept in the checkpoint to tell a later resume where the data
    came from."""
    from .data.keywords import split_keywords

    data_source, settings, recipe_settings = split_keywords(dataset, settings, given, out=out)
    data = data_source.load()
    if data_source.dataset is None:  # the data report of texts and files read here, said as the CLI says it
        import warnings

        from .errors import DataWarning

        for line in data.warnings:
            warnings.warn(f"{data.name}/{line}", DataWarning, stacklevel=2)
    if settings.threads is not None:
        from .util.threads import use_threads

        use_threads(settings.threads, torch_needed=True)
    overrides = overrides_argument(overrides)
    # the run's one parse of its recipe, for this data (a resumed run reads its checkpoint's)
    typed = None if settings.resume else recipe_for_data(data, recipe, overrides, recipe_settings)
    return train_dataset(data, typed, settings, source=source, terms=terms, hooks=hooks, on_epoch=on_epoch)
