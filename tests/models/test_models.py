"""Invariants of the model parts: attention shape and masking, padding invariance, parameter counts."""
from __future__ import annotations

import warnings

import pytest
import torch

from attentive.data.batching import pad
from attentive.models.classifier import build_model
from attentive.models.encoders import ConvEncoder, reverse_within_length
from attentive.models.poolers import LamaPooler
from attentive.recipes.loader import load_recipe

from ..helpers import tiny_overrides


def tiny_model(recipe: str):
    torch.manual_seed(0)
    model = build_model(load_recipe(recipe, tiny_overrides(recipe)), vocab_size=50, classes=3)
    return model.eval()


def batch(lengths, extra_padding=0):
    g = torch.Generator().manual_seed(1)
    seqs = [torch.randint(2, 50, (n,), generator=g).tolist() for n in lengths]
    ids, mask = pad(seqs)
    if extra_padding:
        ids = torch.cat([ids, torch.zeros(len(seqs), extra_padding, dtype=torch.long)], 1)
        mask = ids != 0
    return ids, mask


ATTENTION_RECIPES = ["lama", "lama_ctx", "san"]  # multi-head; sunlu has one head
SELF_ATTENTION_RECIPES = ["ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr", "transformer_pe", "transformer_rpr"]
SINGLE_TEXT_RECIPES = ATTENTION_RECIPES + ["bigru", "cnn", "te", "avg", "sunlu", "barnes_lstm", "barnes_bilstm",
                                           "barnes_cnn"] + SELF_ATTENTION_RECIPES


@pytest.mark.parametrize("recipe", ATTENTION_RECIPES)
def test_attention_rows_sum_to_one_and_padding_gets_zero(recipe):
    ids, mask = batch([7, 3, 5])
    out = tiny_model(recipe)(ids, mask)
    assert out.attention.shape == (3, 3, 7)  # batch x heads x tokens (TINY: 3 heads / hops)
    assert torch.allclose(out.attention.sum(-1), torch.ones(3, 3), atol=1e-6)
    assert torch.all(out.attention[1, :, 3:] == 0) and torch.all(out.attention[2, :, 5:] == 0)


@pytest.mark.parametrize("recipe", SELF_ATTENTION_RECIPES)
def test_mean_pooled_self_attention_shows_the_attention_each_word_receives(recipe):
    ids, mask = batch([7, 3, 5])
    out = tiny_model(recipe)(ids, mask)
    heads = 4 if recipe.startswith("transformer") else 1  # TINY's transformer has 4 heads; SSAN has one
    assert out.attention.shape == (3, heads, 7)
    assert torch.allclose(out.attention.sum(-1), torch.ones(3, heads), atol=1e-5)
    assert torch.all(out.attention[1, :, 3:] == 0) and torch.all(out.attention[2, :, 5:] == 0)


@pytest.mark.parametrize("recipe", SINGLE_TEXT_RECIPES)
def test_padding_a_batch_changes_no_prediction(recipe):
    model = tiny_model(recipe)
    short = model(*batch([4, 6, 2]))
    padded = model(*batch([4, 6, 2], extra_padding=9))
    assert torch.allclose(short.logits, padded.logits, atol=1e-5)
    if short.attention is not None:
        assert torch.allclose(short.attention, padded.attention[:, :, :6], atol=1e-6)


def test_each_text_alone_equals_in_a_batch():
    model = tiny_model("lama_ctx")
    together = model(*batch([4, 6, 2])).logits

    ids, mask = batch([4, 6, 2])
    alone = model(ids[1:2, :6], mask[1:2, :6]).logits
    assert torch.allclose(together[1:2], alone, atol=1e-5)


def test_reverse_within_length_leaves_padding_in_place():
    x = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]]).unsqueeze(-1)
    out = reverse_within_length(x, torch.tensor([3, 2]))
    assert out.squeeze(-1).tolist() == [[3, 2, 1, 0], [5, 4, 0, 0]]


def test_cnn_keeps_each_length_for_even_widths_as_torch_same_padding_does():
    torch.manual_seed(0)
    encoder, x = ConvEncoder(4, widths=(2, 3, 4), maps=2), torch.randn(2, 6, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about copying the input for an even width
        out = encoder(x, torch.ones(2, 6)).states
    expected = []
    for conv in encoder.convs:
        same = torch.nn.Conv1d(4, 2, conv.kernel_size[0], padding="same")
        same.load_state_dict(conv.state_dict())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's own warning, the one our padding avoids
            expected.append(torch.relu(same(x.transpose(1, 2))))
    assert torch.allclose(out, torch.cat(expected, dim=1).transpose(1, 2), atol=1e-6)


@pytest.mark.parametrize("two_d,heads", [(200, 10), (64, 1), (600, 30)])
def test_lama_attention_parameter_count_follows_the_paper(two_d, heads):
    """LAMA §3.3.2: P and Q are 2d x m each, plus the 2d context vector c (global variant only)."""
    assert LamaPooler(two_d, heads, "global").attention_parameter_count() == 2 * (two_d * heads) + two_d
    assert LamaPooler(two_d, heads, "document").attention_parameter_count() == 2 * (two_d * heads)


def test_global_context_starts_at_the_mean_annotation_and_forward_never_changes_it():
    pooler = LamaPooler(4, 2, "global").train()
    states = torch.randn(2, 3, 4)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    pooler.initialise(states, mask)
    expected = torch.stack([states[0, :2].mean(0), states[1].mean(0)]).mean(0)
    assert torch.allclose(pooler.c.detach(), expected)
    before = pooler.c.detach().clone()
    pooler(torch.randn(2, 3, 4), mask)  # nothing is set during forward
    assert torch.equal(pooler.c.detach(), before)


def test_a_new_lama_model_starts_from_the_mean_annotation_of_the_first_training_texts(sst2_small):
    """Set when the model is built, from the first texts in data order (not in forward on a shuffled first batch),
    so that every process (DDP ranks, a resumed run) starts from the same vector."""
    from attentive.data.batching import collate
    from attentive.models.poolers import masked_mean
    from attentive.recipes.loader import load_recipe
    from attentive.training.pipeline import FIRST_BATCH, new_model
    from attentive.training.seed import seed_everything

    from ..helpers import tiny_overrides

    recipe = load_recipe("lama", tiny_overrides("lama"))
    model = new_model(sst2_small, recipe, None, "cpu", seed_everything(0))
    inputs = collate(model.encode_examples(sst2_small.splits["train"][:FIRST_BATCH]))
    model.network.eval()
    with torch.no_grad():
        states = model.network.states(inputs["ids"], inputs["mask"]).states
    expected = masked_mean(states, inputs["mask"]).mean(0)
    assert expected.abs().sum() > 0 and torch.allclose(model.network.pooler.c, expected, atol=1e-6)


def test_document_context_differs_per_document():
    pooler = LamaPooler(4, 2, "document").eval()
    states = torch.randn(2, 3, 4)
    mask = torch.ones(2, 3, dtype=torch.bool)
    attention_a = pooler(states, mask).attention
    swapped = pooler(states[[1, 0]], mask).attention
    assert torch.allclose(attention_a[[1, 0]], swapped, atol=1e-6)
