from __future__ import annotations

import time

import pytest

from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.recipes.loader import available_recipes, load_recipe


def test_shipped_recipes_load_with_defaults():
    assert {"lama", "lama_ctx"} <= set(available_recipes())
    recipe = load_recipe("lama_ctx")
    assert recipe.as_dict()["pooler"] == {"type": "lama", "heads": 10, "context": "document", "score_scale": 5}
    assert recipe.tokenizer.min_frequency == 5  # LAMA paper §4.3


def test_overrides_parse_yaml_values():
    recipe = load_recipe("lama", ["pooler.heads=5", "train.optimizer=adagrad", "embedder.word2vec_extra=null"])
    assert recipe.pooler.heads == 5 and recipe.train.optimizer == "adagrad"
    assert recipe.embedder.word2vec_extra is None


def test_overrides_read_exponent_numbers_without_a_dot_as_floats():
    recipe = load_recipe("ssan", ["train.eps=1e-8", "train.lr=2E-3", "tokenizer.lowercase=false",
                                  "embedder.word2vec_extra=nan"])
    assert recipe.train.eps == 1e-8 and recipe.train.lr == 2e-3
    assert recipe.embedder.word2vec_extra == "nan"  # text stays text
    assert recipe.tokenizer.lowercase is False


def test_nested_override_reaches_into_a_group():
    recipe = load_recipe("san", ["train.regulariser.weight=0"])
    assert recipe.train.regulariser.type == "frobenius" and recipe.train.regulariser.weight == 0


@pytest.mark.parametrize("bad", ["heads=5", "nosuch.heads=5", "pooler.heads"])
def test_malformed_override_is_a_clear_error(bad):
    with pytest.raises(AttentiveError, match="section.key=value"):
        load_recipe("lama", [bad])


def test_unknown_recipe_lists_the_known_ones():
    with pytest.raises(AttentiveError, match="lama_ctx"):
        load_recipe("nosuch")


@pytest.mark.parametrize("d_model,rate", [(50, 0.15), (100, 0.125), (300, 0.1), (600, 0.05), (65, 0.15), (250, 0.1)])
def test_ssan_widths_and_learning_rate_follow_d_model_as_the_paper_sets_them(d_model, rate):
    """SSAN paper §4: lr 0.15/0.125/0.1/0.1/0.05 for d_model 50/100/200/300/600 (nearest listed size otherwise); the
    sentence vector is d_model wide, the Transformer's feed-forward 4 d_model."""
    from attentive.models.classifier import build_model

    recipe = load_recipe("transformer_rpr", [f"embedder.dim={d_model}", "embedder.vectors=random"]).resolved()
    build_model(recipe, vocab_size=20, classes=2)  # as training does, with the recipe resolved for its width
    assert recipe.train.lr == rate
    assert recipe.head.hidden == d_model and recipe.encoder.ff == 4 * d_model


def test_an_explicit_learning_rate_or_width_wins_over_the_d_model_table():
    recipe = load_recipe("ssan", ["train.lr=0.3", "head.hidden=7"]).resolved(dim=300)
    assert recipe.train.lr == 0.3 and recipe.head.hidden == 7 and recipe.embedder.dim == 300


# Recipe files a user (or an attacker) wrote: one line naming the file and the key, exit 2, before anything expands.

def alias_bomb(levels: int = 9) -> str:
    """"Billion laughs": each level lists the one before nine times, so the last stands for 9^levels strings."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines)


def train_with(recipe_path, tmp_path, capsys) -> str:
    """`attentive train` with the recipe file: exit 2 with one line, which is returned."""
    status = main(["train", "--recipe", str(recipe_path), "--dataset", "sst2_sample", "--out", str(tmp_path / "m")])
    err = " ".join(capsys.readouterr().err.split())
    assert status == 2 and "internal error" not in err, err
    assert not (tmp_path / "m").exists()
    return err


def test_an_alias_bomb_under_an_unknown_key_is_refused_before_it_expands(tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text("encoder: {type: bigru}\npooler: {type: lama}\nhead: {type: mlp}\n"
                    "extra:\n" + "\n".join("  " + line for line in alias_bomb().splitlines()) + "\n")
    started = time.perf_counter()
    err = train_with(path, tmp_path, capsys)
    assert time.perf_counter() - started < 10
    assert f"{path}:" in err and "an alias (*a0): recipes take no aliases" in err


def test_unknown_top_level_keys_are_refused_naming_them(tmp_path):
    path = tmp_path / "extra.yaml"
    path.write_text("encoder: {type: bigru}\npooler: {type: lama}\nhead: {type: mlp}\nextra: 1\n")
    with pytest.raises(AttentiveError, match=r"extra.yaml: unknown top-level key 'extra' \(a recipe holds tokenizer"):
        load_recipe(str(path))
    with pytest.raises(AttentiveError, match="recipe: unknown top-level key 'extra'"):
        load_recipe({**load_recipe("lama_ctx").as_dict(), "extra": [1]})


def test_a_key_with_a_line_break_is_named_on_one_line():
    """A damaged saved recipe can hold any key (tests/folders/test_fuzz_folders.py found "\\n" in a section)."""
    recipe = load_recipe("default").as_dict()
    recipe["tokenizer"]["\n"] = None
    with pytest.raises(AttentiveError) as refused:
        load_recipe(recipe)
    assert "tokenizer.'\\n'" in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("text, message", [
    ("- encoder\n- pooler\n", "a recipe is a mapping of sections (tokenizer, embedder, aspect, encoder, pooler, "
                              "head, wide, train), not a list"),
    ("encoder: [1, 2]\npooler: {type: lama}\nhead: {type: mlp}\n", "encoder must be a mapping of settings, not a list"),
    ("encoder: {type: bigru}\npooler: {type: lama}\nhead: {type: mlp}\ndescription: [1]\n",
     "description must be text, not a list"),
    ("encoder: {type: bigru\n", "not valid YAML"),
    ("encoder: " + "[" * 5000 + "]" * 5000 + "\n", "YAML nested too deep for a recipe"),
])
def test_a_recipe_of_the_wrong_shape_is_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    err = train_with(path, tmp_path, capsys)
    assert f"{path}" in err and message in err


def test_an_alias_in_a_set_value_is_refused(tmp_path):
    with pytest.raises(AttentiveError, match="--set value .*: not valid YAML .*recipes take no aliases"):
        load_recipe("lama_ctx", ["train.regulariser={a: &x [1, 1], b: *x}"])


@pytest.mark.parametrize("recipe", ["default", "opinion", "ssan"])
def test_a_recipe_loads_equal_twice_and_building_and_training_leave_it_unchanged(recipe, sst2_small):
    """The recipe is the configuration, never a scratch pad: derived values (d_model, the vector width, the encoder's
    settings) are resolved on copies, so what a caller loaded is what it still holds after the model is built and
    trained (ssan: widths given as d_model multiples, resolved to numbers only in the saved config.json)."""
    import copy

    import attentive
    from attentive.models.classifier import build_model

    from ..helpers import tiny_overrides

    overrides = [*tiny_overrides(recipe), "embedder.vectors=random", "tokenizer.pieces=false",
                 "tokenizer.prune_pieces=false", "tokenizer.keep_known=false"]
    loaded = load_recipe(recipe, overrides)
    assert loaded == load_recipe(recipe, overrides)
    kept, dump = copy.deepcopy(loaded), copy.deepcopy(loaded.as_dict())  # its nested tables (lr by d_model) too
    build_model(loaded, vocab_size=50, classes=2)
    assert loaded == kept and loaded.as_dict() == dump
    model = attentive.train(sst2_small, loaded, show_progress=False)
    assert loaded == kept and loaded.as_dict() == dump and model.config["recipe"]["name"] == kept.name
    saved = model.config["recipe"]  # config.json's: the derived values resolved, on a new recipe
    assert isinstance(saved["head"].get("hidden", 0), int) and isinstance(saved["train"]["lr"], float)
    assert load_recipe(saved) == loaded.resolved()


def test_a_loaded_recipe_is_frozen_typed_and_its_dump_loads_back_equal():
    import pydantic

    from attentive.recipes.types import Recipe

    recipe = load_recipe("lama_ctx", ["pooler.heads=4"])
    assert isinstance(recipe, Recipe) and recipe.pooler.heads == 4 and recipe.train.lr == 0.001
    for section, key in [(recipe, "name"), (recipe.train, "lr"), (recipe.pooler, "heads")]:
        with pytest.raises(pydantic.ValidationError, match="frozen"):
            setattr(section, key, 1)
    assert load_recipe(recipe.as_dict()) == recipe == load_recipe(recipe)
    assert load_recipe("lama_ctx") != recipe and hash(recipe) == hash(load_recipe("lama_ctx", ["pooler.heads=4"]))
    assert recipe.resolved(dim=7) != recipe and recipe.resolved(dim=7).embedder.dim == 7 and recipe.embedder.dim == 100


@pytest.mark.parametrize("multi_label", [False, True])
def test_attentive_train_parses_its_recipe_once(tmp_path, monkeypatch, multi_label, sst2_small):
    """The CLI reads the data, then the recipe is resolved for it once (it was parsed twice, three times on
    multi-label data); a Recipe given again is returned as it is."""
    import json

    from attentive.recipes import loader

    from ..helpers import tiny_overrides

    rows = sst2_small.splits["train"][:120] + sst2_small.splits["dev"][:40]
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"text": ex.text, "label": [ex.label] if multi_label else ex.label}) + "\n"
                            for ex in rows))
    overrides = [arg for item in tiny_overrides("default") + ["train.epochs=1"] for arg in ("--set", item)]
    parsed, read = [], loader._read_recipe
    monkeypatch.setattr(loader, "_read_recipe", lambda *args: parsed.append(args) or read(*args))
    assert main(["train", "--train", str(path), "--out", str(tmp_path / "run"), *overrides]) == 0
    assert len(parsed) == 1
    recipe = load_recipe("lama_ctx")
    assert load_recipe(recipe) is recipe and load_recipe(recipe, ["pooler.heads=2"]).pooler.heads == 2
