"""The recipe a run trains with, resolved once where the user's recipe enters (the Python API and the CLI): the name,
file, dict or Recipe the user gave, the literal `default` standing for the default of the data's kind, with the
overrides and keyword settings applied. Train, cv, tune and distill take the `Recipe` it returns and parse nothing."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .loader import load_recipe
from .types import Recipe

if TYPE_CHECKING:
    from ..data.example import Dataset


def unseen_dev_aspects(data: Dataset) -> list[str]:
    """The dev split's aspects that no training text has (sorted): open-ended aspect terms, which no table of the
    known aspects can answer for."""
    known = {ex.aspect for ex in data.splits["train"]}
    return sorted({ex.aspect for ex in data.splits["dev"] if ex.aspect is not None} - known)


def default_recipe_for(data: Dataset) -> str:
    """The recipe `default` stands for on this data: `default_aspect` when its texts come with aspect categories,
    `default_aspect_terms` when the aspects are open-ended (some dev aspect never occurs in training, so a table of
    the known ones could not answer for it), `default_pair` when they are pairs, else `default` itself (each chosen
    on dev: benchmarks/DECISIONS.md)."""
    train = data.splits["train"]
    if any(ex.aspect is not None for ex in train):
        return "default_aspect_terms" if unseen_dev_aspects(data) else "default_aspect"
    if any(ex.text_pair is not None for ex in train):
        return "default_pair"
    return "default"


def recipe_for_data(data: Dataset, recipe: str | dict | Recipe = "default", overrides: list[str] | None = None,
                    settings: dict | None = None) -> Recipe:
    """The typed recipe a run on `data` trains with: `recipe` (a shipped name, a YAML file, a dict or a Recipe; the
    literal "default" the default for this kind of data, `default_recipe_for`) with `overrides` ("section.key=value")
    and keyword `settings` applied and checked (`load_recipe`); a Recipe given without either is returned as it is."""
    return load_recipe(default_recipe_for(data) if recipe == "default" else recipe, overrides, settings)


def untrained_network(recipe: str | dict | Recipe, vocab_size: int, classes: int):
    """The untrained network (a torch module) `recipe` describes for a vocabulary of `vocab_size` words and `classes`
    classes, its word vectors random: the shapes training would build, without data."""
    from ..models.classifier import build_model

    return build_model(load_recipe(recipe), vocab_size, classes)
