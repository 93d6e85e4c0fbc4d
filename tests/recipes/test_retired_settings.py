"""Settings this version no longer has (recipe_schema.RETIRED): a saved folder or a recipe holding one at the value at
which it did nothing reads as if it were absent; at any other value it is a one-line error naming it, except a saved
folder's train.* settings, which a trained network never reads."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import attentive
from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.recipes.retired import RETIRED

FORMAT_1 = Path(__file__).parents[1] / "fixtures" / "model-format-1"


def _other(neutral):
    """A value unlike `neutral`, of its kind."""
    if isinstance(neutral, bool):
        return not neutral
    if isinstance(neutral, (int, float)):
        return 0.5 if neutral != 0.5 else 0.25
    return "gone"


@pytest.mark.parametrize("key", sorted(RETIRED))
def test_a_retired_setting_at_its_neutral_value_is_dropped_from_a_recipe(key):
    section, name = key.split(".")
    recipe = load_recipe("lama", [f"{key}={json.dumps(RETIRED[key])}"])
    assert name not in recipe.as_dict().get(section, {})


@pytest.mark.parametrize("key", sorted(RETIRED))
def test_a_retired_setting_at_another_value_is_refused_by_name(key):
    with pytest.raises(AttentiveError, match=f"^{key}=.*: a setting this version no longer has$"):
        load_recipe("lama", [f"{key}={json.dumps(_other(RETIRED[key]))}"])


@pytest.mark.parametrize("key", sorted(RETIRED))
def test_a_saved_folder_with_a_retired_setting_loads_at_its_neutral_value(key, tmp_path):
    folder = shutil.copytree(FORMAT_1, tmp_path / "model")
    expected = json.loads((folder / "expected.json").read_text())
    _set_in_config(folder, key, RETIRED[key])
    [got] = attentive.load(folder).predict(expected["texts"][0])
    assert got.probabilities == pytest.approx(expected["predictions"][0]["probabilities"], abs=1e-6)
    _set_in_config(folder, key, _other(RETIRED[key]))
    if key.startswith("train."):  # a trained network never reads train.*: any value loads
        assert attentive.load(folder).predict(expected["texts"][0])[0].probabilities == got.probabilities
    else:
        with pytest.raises(AttentiveError, match=f"recipe.{key}=.*: a setting this version no longer has"):
            attentive.load(folder)


def _set_in_config(folder: Path, key: str, value) -> None:
    section, name = key.split(".")
    config = json.loads((folder / "config.json").read_text())
    config["recipe"].setdefault(section, {})[name] = value
    (folder / "config.json").write_text(json.dumps(config))
