"""A YAML merge key (`<<`) in a recipe or a --set value is refused in one line naming the file (or the --set) and its
line: PyYAML's merge lets a key given directly win over the merged one silently, past the check of a key given
twice."""
from __future__ import annotations

import pytest

from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe, safe_yaml

HEAD = "encoder: {type: bigru, hidden: 16}\npooler: {type: lama}\nhead: {type: mlp}\n"


@pytest.mark.parametrize("train, line", [
    ("train: {lr: 0.001, <<: {lr: 0.5}}\n", 4),  # given directly and through the merge: which one trains?
    ("train:\n  epochs: 2\n  <<: {lr: 0.5}\n", 6),  # merged alone
    ("train:\n  <<: [{lr: 0.5}, {epochs: 3}]\n", 5),  # a list of merged mappings
])
def test_a_merge_key_in_a_recipe_is_refused_naming_the_file_and_line(tmp_path, train, line):
    recipe = tmp_path / "merged.yaml"
    recipe.write_text(HEAD + train)
    with pytest.raises(AttentiveError, match=rf"merged\.yaml:{line}: not valid YAML \(a merge key \(<<\) merging "
                                             "'lr'"):
        load_recipe(str(recipe))


def test_the_merge_key_message_is_one_line_naming_the_merged_keys(tmp_path):
    recipe = tmp_path / "merged.yaml"
    recipe.write_text(HEAD + "train: {lr: 0.001, <<: {lr: 0.5, epochs: 3}}\n")
    with pytest.raises(AttentiveError) as refused:
        load_recipe(str(recipe))
    assert str(refused.value).endswith("merged.yaml:4: not valid YAML (a merge key (<<) merging 'lr', 'epochs': "
                                       "recipes take no merge keys, write the settings out)")


def test_a_merge_key_in_a_set_value_is_refused():
    with pytest.raises(AttentiveError, match=r"^--set value '\{pos: 2, <<: \{pos: 3\}\}': not valid YAML \(a merge "
                                             r"key \(<<\) merging 'pos'"):
        load_recipe("default", ["train.class_weight={pos: 2, <<: {pos: 3}}"])


def test_a_quoted_double_angle_is_a_plain_key():
    """Only the plain `<<` is YAML's merge key; quoted, it is a key like any other."""
    assert safe_yaml('{"<<": 1, lr: 2}') == {"<<": 1, "lr": 2}
