"""Issue 32, one typed recipe: a choice outside its list (an optimizer, a regulariser, a part's type, a word-vector
source) and an option no part takes are refused when the recipe is loaded, in one line naming the key and the
choices (by `attentive train`, once the data it is resolved for is read, before anything is written); every shipped
and benchmark recipe still loads."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import attentive
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.models.aspects import ASPECT_TYPES
from attentive.models.registry import PARTS, register
from attentive.models.wide import WIDE_TYPES
from attentive.recipes.loader import available_recipes, load_recipe
from attentive.recipes.types import OPTIMIZERS, REGULARISERS, SAMPLERS
from attentive.text.sources import SOURCES
from attentive.training import regularisers

FORMAT_1 = Path(__file__).parents[1] / "fixtures" / "model-format-1"  # a folder saved by an earlier version


def listed(choices) -> str:
    return ", ".join(repr(choice) for choice in choices)


@pytest.mark.parametrize("override,key,choices", [
    ("train.optimizer=foo", "train.optimizer", OPTIMIZERS),
    ("train.regulariser.type=foo", "train.regulariser.type", REGULARISERS),
    ("aspect.type=foo", "aspect.type", ASPECT_TYPES),
    ("encoder.type=foo", "encoder.type", PARTS["encoder"]),
    ("pooler.type=foo", "pooler.type", PARTS["pooler"]),
    ("head.type=foo", "head.type", PARTS["head"]),
])
def test_a_choice_outside_its_list_is_refused_at_load_naming_the_key_and_the_choices(override, key, choices):
    with pytest.raises(AttentiveError) as caught:
        load_recipe("default", [override])
    assert str(caught.value) == f"--set {override}: {key} must be one of {listed(choices)}, not 'foo'"


@pytest.mark.parametrize("override,message", [
    ("wide.type=foo", f"wide.type must be {' or '.join(repr(kind) for kind in WIDE_TYPES)}, not 'foo'"),
    ("train.sampler=foo", f"train.sampler must be {' or '.join(repr(kind) for kind in SAMPLERS)}, not 'foo'"),
    ("tokenizer.type=foo", "tokenizer.type must be 'pretrained' or left out, not 'foo'"),
    ("embedder.type=foo", "embedder.type must be 'none' or left out, not 'foo'"),
    ("embedder.vectors=glove+foo", f"embedder.vectors must be one of {listed(SOURCES)}, or several joined by +, "
                                   "not 'glove+foo'"),
    ("train.regulariser.foo=1", "train.regulariser.foo must be left out (train.regulariser takes type, weight)"),
    ("train.regulariser.weight=-1", "train.regulariser.weight must be a number ≥ 0, not -1"),
    ("train.regulariser.weight=1", f"train.regulariser.type must be one of {listed(REGULARISERS)}, not None"),
    ("train.regulariser=3", "train.regulariser must be a mapping {type: ..., weight: ...} or null, not 3"),
    ("pooler.type=[lama]", "pooler.type must be one of 'lama', "),
])
def test_the_other_choices_and_the_regulariser_s_keys_are_refused_at_load(override, message):
    with pytest.raises(AttentiveError, match="^--set " + re.escape(override)) as caught:
        load_recipe("default", [override])
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("recipe,overrides,key,takes", [
    ("default", ["pooler.foo=1"], "pooler.foo", "pooler type 'lama' takes heads, context, score_scale"),
    ("opinion", ["encoder.foo=1"], "encoder.foo", "encoder type 'bigru' takes hidden, cell, layers, dropout"),
    ("default", ["head.foo=1"], "head.foo", "head type 'mlp' takes hidden, dropout, bias, sigmoid"),
    ("default", ["wide.foo=1"], "wide.foo", "wide type 'ngrams' takes buckets"),
    ("ae_lstm", ["aspect.foo=1"], "aspect.foo", "aspect type 'learned' takes dim, append_to_words"),
    ("default", ["aspect.foo=1"], "aspect.foo", "the aspect section takes dim, append_to_words"),  # type none
    ("default", ["pooler.input_dim=1"], "pooler.input_dim", "pooler type 'lama' takes heads"),  # the model's own
])
def test_an_option_no_part_takes_is_refused_at_load_listing_the_ones_it_takes(recipe, overrides, key, takes):
    with pytest.raises(AttentiveError) as caught:
        load_recipe(recipe, overrides)
    assert str(caught.value).startswith(f"--set {overrides[-1]}: {key} must be left out ({takes}")


def test_a_type_switched_by_set_is_blamed_for_the_options_the_new_part_does_not_take():
    with pytest.raises(AttentiveError, match=r"^--set pooler.type=mean: pooler.heads must be left out \(pooler type "
                                             r"'mean' takes no options\), not 10$"):
        load_recipe("default", ["pooler.type=mean"])
    # a type that builds nothing reads no option, and leaves those of the section's other types alone
    assert load_recipe("ae_lstm", ["aspect.type=none"]).as_dict()["aspect"] == {"type": "none", "dim": 50,
                                                                                "append_to_words": True}
    assert load_recipe("default", ["wide.type=none"]).wide.buckets == 262144


def test_choices_within_their_lists_load():
    recipe = load_recipe("san", ["train.optimizer=Adagrad", "train.regulariser.type=neg_entropy",
                                 "embedder.vectors=distilled + glove", "train.sampler=balanced"])
    assert recipe.as_dict()["train"]["regulariser"] == {"type": "neg_entropy", "weight": 1.0}
    assert load_recipe("san", ["train.regulariser=null"]).train.regulariser is None
    assert load_recipe("lama", ["train.regulariser.weight=0"]).as_dict()["train"]["regulariser"] == {"weight": 0}
    assert load_recipe("ssan").head.hidden == "d_model"  # a width given in terms of d_model
    assert load_recipe("lama_pair", ["head.type=gated_pair", "head.offset=1"]).head.offset == 1


def test_a_registered_part_is_a_choice_and_its_constructor_gives_its_options():
    class FirstWordPooler(PARTS["pooler"]["max"]):
        def __init__(self, input_dim: int, position: int = 0):
            super().__init__(input_dim)

    register("pooler", "first_word")(FirstWordPooler)
    base = load_recipe("lama_ctx").as_dict()
    try:
        assert load_recipe({**base, "pooler": {"type": "first_word", "position": 2}}).pooler.position == 2
        with pytest.raises(AttentiveError, match="pooler.heads must be left out .pooler type 'first_word' takes "
                                                 "position., not 10"):
            load_recipe("lama_ctx", ["pooler.type=first_word"])
    finally:
        PARTS["pooler"].pop("first_word")
    with pytest.raises(AttentiveError, match="pooler.type must be one of .*, not 'first_word'"):
        load_recipe({**base, "pooler": {"type": "first_word"}})


@pytest.mark.parametrize("section,entry,message", [
    ("pooler", {"type": "lamma"}, "recipe.pooler.type must be one of 'lama', "),
    ("pooler", {"foo": 1}, "recipe.pooler.foo must be left out (pooler type 'lama' takes heads, context, score_scale)"),
    ("wide", {"type": "pair_words"}, "recipe.wide.type must be 'none' or 'ngrams', not 'pair_words'"),
])
def test_a_saved_folder_s_recipe_goes_through_the_same_checks(tmp_path, section, entry, message):
    folder = shutil.copytree(FORMAT_1, tmp_path / "model")
    config = json.loads((folder / "config.json").read_text())
    config["recipe"][section].update(entry)
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(AttentiveError) as caught:
        attentive.load(folder)
    assert str(caught.value).startswith(f"{folder / 'config.json'}: {message}")


def test_a_saved_folder_of_an_earlier_version_still_loads():
    assert attentive.load(FORMAT_1).labels


def test_the_regularisers_penalties_are_the_ones_their_names_say():
    assert regularisers.PENALTIES == {"frobenius": regularisers.frobenius_penalty,
                                      "frobenius_norm": regularisers.frobenius_norm_penalty,
                                      "std": regularisers.attention_std, "neg_entropy": regularisers.negative_entropy}


@pytest.mark.parametrize("name", available_recipes())
def test_every_shipped_recipe_loads(name):
    assert load_recipe(name).name


def test_the_cli_refuses_a_bad_choice_before_writing_anything(tmp_path, capsys):
    """The recipe is resolved once, for the data read (`attentive train` reads the data first: the data decides
    between `default` and its pair and aspect variants); a bad choice is then one line, before the folder is made."""
    data = tmp_path / "train.jsonl"
    data.write_text("".join(f'{{"text": "text {i}", "label": "{"ab"[i % 2]}"}}\n' for i in range(40)))
    assert main(["train", "--train", str(data), "--out", str(tmp_path / "model"),
                 "--set", "train.optimizer=foo"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--set train.optimizer=foo: train.optimizer must be one of 'adam', 'adadelta', 'adagrad', not 'foo'" in err
    assert not (tmp_path / "model").exists()
    missing = tmp_path / "DOES_NOT_EXIST.jsonl"
    assert main(["train", "--train", str(missing), "--out", str(tmp_path / "model"),
                 "--set", "train.optimizer=foo"]) == 2  # the data is read first: the file's own error
    assert "DOES_NOT_EXIST" in capsys.readouterr().err


def test_a_part_option_of_a_huge_negative_integer_is_one_line():
    with pytest.raises(AttentiveError, match=r"pooler.score_scale must be at least -16,777,216, "
                                             r"not -9223372036854775809"):
        load_recipe("default", ["pooler.score_scale=-9223372036854775809"])
