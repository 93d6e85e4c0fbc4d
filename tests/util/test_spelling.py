""""Did you mean" for a misspelt setting, recipe or dataset."""
from __future__ import annotations

import pytest

from attentive.data.registry import load_dataset
from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.util.spelling import did_you_mean


def test_the_closest_known_name_or_nothing():
    assert did_you_mean("epoch", ["epochs", "lr", "seed"]) == " (did you mean 'epochs'?)"
    assert did_you_mean("qwerty", ["epochs", "lr", "seed"]) == ""


@pytest.mark.parametrize("call, hint", [
    (lambda: load_recipe("default", ["train.epoch=1"]), "train.epoch must be left out (did you mean 'epochs'?)"),
    (lambda: load_recipe("default", ["pooler.head=3"]), "pooler.head must be left out (did you mean 'heads'?)"),
    (lambda: load_recipe("defualt"), "unknown recipe 'defualt' (did you mean 'default'?)"),
    (lambda: load_dataset("sst2_sampel"), "unknown dataset 'sst2_sampel' (did you mean 'sst2_sample'?)"),
])
def test_a_misspelt_name_is_answered_with_the_name_meant(call, hint):
    with pytest.raises(AttentiveError) as raised:
        call()
    assert hint in str(raised.value) and "\n" not in str(raised.value)
