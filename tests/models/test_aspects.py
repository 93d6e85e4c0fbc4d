"""Aspect-level models (Wang et al. 2016): the aspect reaches the attention, padding does not, and an aspect model
trains, saves, loads and answers per aspect through the CLI."""
from __future__ import annotations

import json

import pytest
import torch

import attentive
from attentive.cli import main
from attentive.data.example import Dataset
from attentive.data.registry import load_dataset
from attentive.errors import AttentiveError
from attentive.models.aspects import AspectAttentionPooler
from attentive.models.classifier import build_model
from attentive.recipes.loader import load_recipe

from ..helpers import TINY

ASPECT_RECIPES = ["ae_lstm", "at_lstm", "atae_lstm", "lama_aspect", "san_aspect"]
SMALL = TINY + ["encoder.hidden=12", "aspect.dim=8", "tokenizer.min_frequency=1"]


def small_model(recipe: str, aspects: int = 5):
    overrides = SMALL + (["pooler.heads=3"] if recipe == "lama_aspect" else []) + \
        (["pooler.hops=3", "pooler.hidden=10", "head.hidden=8"] if recipe == "san_aspect" else [])
    torch.manual_seed(0)
    return build_model(load_recipe(recipe, overrides), vocab_size=50, classes=3, aspects=aspects).eval()


@pytest.fixture(scope="module")
def absa_small() -> Dataset:
    """400 train / 100 dev / 100 test real (sentence, aspect category) pairs of SemEval-2014 restaurants."""
    data = load_dataset("semeval14_category")
    return Dataset("absa_small", {"train": data.splits["train"][:400], "dev": data.splits["dev"][:100],
                                  "test": data.splits["test"][:100]}, data.labels)


def test_at_attention_sums_to_one_and_ignores_padding():
    pooler = AspectAttentionPooler(input_dim=6, aspect_dim=4)
    states, aspect = torch.randn(2, 5, 6), torch.randn(2, 4)
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    out = pooler(states, mask, aspect)
    assert out.attention.shape == (2, 1, 5)
    assert torch.allclose(out.attention.sum(-1), torch.ones(2, 1))
    assert out.attention[1, 0, 3:].abs().sum() == 0
    changed = states.clone()
    changed[1, 3:] = 100.0  # whatever sits in the padding changes nothing
    assert torch.allclose(pooler(changed, mask, aspect).vector, out.vector, atol=1e-6)


@pytest.mark.parametrize("recipe", ASPECT_RECIPES)
def test_padding_changes_no_prediction_of_an_aspect_model(recipe):
    model = small_model(recipe)
    ids = torch.tensor([[5, 6, 7, 8]])
    aspect = {"aspect_ids": torch.tensor([[2]]), "aspect_mask": torch.tensor([[True]])}
    alone = model(ids, ids != 0, **aspect).logits
    padded_ids = torch.tensor([[5, 6, 7, 8, 0, 0, 0]])
    padded = model(padded_ids, padded_ids != 0, **aspect).logits
    assert torch.allclose(alone, padded, atol=1e-5)


@pytest.mark.parametrize("recipe", ["at_lstm", "atae_lstm", "lama_aspect"])
def test_changing_the_aspect_changes_the_attention(recipe):
    model = small_model(recipe)
    torch.nn.init.normal_(model.aspect.table.weight)  # as after training: aspects far apart, not U(-0.01, 0.01)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10]])

    def attention(aspect: int) -> torch.Tensor:
        return model(ids, ids != 0, aspect_ids=torch.tensor([[aspect]]), aspect_mask=torch.tensor([[True]])).attention

    assert not torch.allclose(attention(1), attention(4), atol=1e-4)


def test_wang_et_al_literal_eq_1_makes_at_lstm_blind_to_the_aspect():
    """The aspect term of Eq. 1 is the same for every word and cancels in the softmax (see AspectAttentionPooler)."""
    pooler = AspectAttentionPooler(input_dim=6, aspect_dim=4, form="concat")
    states, mask = torch.randn(1, 5, 6), torch.ones(1, 5, dtype=torch.bool)
    first, second = pooler(states, mask, torch.randn(1, 4)), pooler(states, mask, torch.randn(1, 4))
    assert torch.allclose(first.attention, second.attention, atol=1e-6)
    assert torch.allclose(first.vector, second.vector, atol=1e-6)


@pytest.mark.parametrize("recipe", ASPECT_RECIPES + ["lstm"])
def test_aspect_recipe_loss_falls_on_real_restaurant_reviews(recipe, absa_small):
    overrides = SMALL + ["train.epochs=4", "train.patience=4", "train.optimizer=adam", "train.lr=0.01"]
    model = attentive.train(absa_small, recipe, overrides=overrides, show_progress=False)
    losses = [epoch["train_loss"] for epoch in model.history.epochs]
    assert losses[-1] < losses[0], losses
    assert model.aspects == (["ambience", "anecdotes/miscellaneous", "food", "price", "service"]
                             if recipe != "lstm" else [])


def test_recipes_and_data_must_agree_on_aspects(absa_small, sst2_small):
    with pytest.raises(AttentiveError, match="would ignore it"):
        attentive.train(absa_small, "bigru", overrides=TINY, show_progress=False)
    with pytest.raises(AttentiveError, match="has none"):
        attentive.train(sst2_small, "atae_lstm", overrides=SMALL, show_progress=False)


def test_open_ended_aspect_terms_use_the_words_of_the_aspect():
    data = load_dataset("semeval14_term")
    small = Dataset("terms", {"train": data.splits["train"][:300], "dev": data.splits["dev"][:60], "test": []},
                    data.labels)
    model = attentive.train(small, "atae_lstm", overrides=SMALL + ["aspect.type=words"], show_progress=False)
    [prediction] = model.predict("The chicken tikka was cold", aspects="chicken tikka")
    assert prediction.aspect == "chicken tikka" and prediction.label in data.labels
    with pytest.raises(AttentiveError, match="open-ended"):
        model.predict("The chicken tikka was cold")


def test_aspect_terms_get_the_default_that_reads_their_words_and_a_learned_table_is_refused_before_training():
    data = load_dataset("semeval14_term")
    small = Dataset("terms", {"train": data.splits["train"][:300], "dev": data.splits["dev"][:60], "test": []},
                    data.labels)
    with pytest.raises(AttentiveError, match=r"and \d+ more never occur in training.*aspect.type=words"):
        attentive.train(small, "atae_lstm", overrides=SMALL, show_progress=False)
    model = attentive.train(small, "default", overrides=SMALL, show_progress=False)
    assert model.config["recipe"]["name"] == "default_aspect_terms"
    [prediction] = model.predict("The waiter was rude", aspects="waiter")
    assert prediction.label in data.labels


def test_an_aspect_model_answers_per_aspect_through_the_cli(absa_small, tmp_path, capsys):
    train_file = tmp_path / "train.jsonl"
    train_file.write_text("".join(json.dumps({"text": ex.text, "label": ex.label, "category": ex.aspect}) + "\n"
                                  for ex in absa_small.splits["train"]))
    out = tmp_path / "run"
    overrides = [arg for item in SMALL for arg in ("--set", item)]
    assert main(["train", "--train", str(train_file), "--aspect-column", "category", "--recipe", "atae_lstm",
                 "--out", str(out), *overrides]) == 0
    capsys.readouterr()
    text = "The food was great but the waiter was rude"
    assert main(["predict", str(out), text, "--aspect", "service"]) == 0
    [answer] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert answer["aspect"] == "service" and set(answer["probabilities"]) == set(absa_small.labels)
    assert main(["predict", str(out), text]) == 0  # no aspect: one answer per aspect the model knows
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["aspect"] for a in answers] == ["ambience", "anecdotes/miscellaneous", "food", "price", "service"]
    assert answers[4]["probabilities"] == pytest.approx(answer["probabilities"], abs=1e-5)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": text, "aspect": "food", "id": 7}) + "\n")
    assert main(["predict", str(out), "--input", str(source)]) == 0
    [line] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert line["id"] == 7 and line["aspect"] == line["prediction"]["aspect"] == "food"
    assert main(["predict", str(out), text, "--aspect", "decor"]) == 2
    assert "unknown aspect(s) 'decor'" in capsys.readouterr().err
    assert main(["explain", str(out), text, "--aspect", "service"]) == 0
    assert "for aspect service" in capsys.readouterr().out
