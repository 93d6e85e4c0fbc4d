"""The parts issue 3 adds: structured self-attention, the attention regularisers, the pruned MLP, the pair model."""
from __future__ import annotations

import math

import pytest
import torch

from attentive.models.classifier import build_model
from attentive.models.heads import GatedPairHead, MatchingPairHead, PrunedMLPHead
from attentive.models.poolers import StructuredSelfAttentionPooler
from attentive.models.self_attention import RelativePositions, attend, sinusoidal_positions
from attentive.recipes.loader import available_recipes, load_recipe
from attentive.training.regularisers import attention_std, frobenius_norm_penalty, frobenius_penalty, negative_entropy

from ..helpers import tiny_overrides


@pytest.mark.parametrize("two_u,d_a,r", [(600, 350, 30), (200, 350, 30), (64, 12, 3)])
def test_san_attention_parameter_count_follows_lin_et_al(two_u, d_a, r):
    """Lin et al. §2: W_s1 is d_a x 2u and W_s2 is r x d_a (LAMA paper §3.3.2's comparison)."""
    assert StructuredSelfAttentionPooler(two_u, r, d_a).attention_parameter_count() == d_a * two_u + r * d_a


def test_frobenius_penalty_is_zero_for_orthogonal_one_hot_hops_and_positive_otherwise():
    one_hot = torch.eye(4)[:3].unsqueeze(0)  # 3 hops on 3 different words of 4
    assert frobenius_penalty(one_hot).item() == pytest.approx(0.0)
    same_word = torch.zeros(1, 3, 4)
    same_word[:, :, 0] = 1.0  # every hop on the same word: AA^T is all ones
    assert frobenius_penalty(same_word).item() == pytest.approx(6.0)  # six off-diagonal ones
    uniform = torch.full((1, 3, 4), 0.25)
    assert frobenius_penalty(uniform).item() > 0
    # the authors' code: the norm itself, not its square
    assert frobenius_norm_penalty(one_hot).item() == pytest.approx(0.0, abs=1e-4)
    assert frobenius_norm_penalty(same_word).item() == pytest.approx(6.0 ** 0.5)


def test_std_and_negative_entropy_on_hand_made_distributions():
    mask = torch.tensor([[True, True, True, True, False]])
    uniform = torch.tensor([[[0.25, 0.25, 0.25, 0.25, 0.0]]])
    one_hot = torch.tensor([[[1.0, 0.0, 0.0, 0.0, 0.0]]])
    assert attention_std(uniform, mask).item() == pytest.approx(0.0)
    assert attention_std(one_hot, mask).item() == pytest.approx(math.sqrt(3 / 16))  # population std of 1,0,0,0
    assert negative_entropy(uniform, mask).item() == pytest.approx(-math.log(4))
    assert negative_entropy(one_hot, mask).item() == pytest.approx(0.0)


def test_pruned_mlp_has_the_parameter_count_of_its_formula():
    r, c, p, q = 30, 200, 25, 20
    head = PrunedMLPHead(r * c, classes=5, rows=r, p=p, q=q)
    assert head.hidden_parameter_count() == r * c * p + r * p + c * r * q + c * q
    assert head(torch.randn(2, r * c)).shape == (2, 5)


def test_pruned_rows_only_see_their_own_row():
    torch.manual_seed(0)
    head = PrunedMLPHead(3 * 4, classes=2, rows=3, p=2, q=2).eval()
    m = torch.randn(1, 3, 4)
    changed = m.clone()
    changed[0, 1] += 1.0  # change row 1 only
    # before the ReLU, so that a unit switched off on both inputs cannot hide the change
    by_row = lambda x: torch.einsum("brc,rcp->brp", x, head.row_weight) + head.row_bias  # noqa: E731
    assert torch.equal(by_row(m)[0, [0, 2]], by_row(changed)[0, [0, 2]])
    assert not torch.equal(by_row(m)[0, 1], by_row(changed)[0, 1])


def test_gated_pair_head_combines_two_matrix_embeddings():
    head = GatedPairHead(3 * 4, classes=3, rows=3, factors=5, hidden=8)
    premise, hypothesis = torch.randn(2, 12), torch.randn(2, 12)
    assert head(premise, hypothesis).shape == (2, 3)
    assert not torch.allclose(head(premise, hypothesis), head(hypothesis, premise))  # the roles differ


def test_gated_pair_head_from_one_start_scores_a_text_against_itself_highest():
    torch.manual_seed(0)
    head = GatedPairHead(3 * 4, classes=3, rows=3, factors=5, hidden=8, normalise=True, same_start=True)
    assert torch.equal(head.W_fh, head.W_fp) and head.W_fh is not head.W_fp  # one start, two parameters
    texts = torch.randn(50, 12)

    def agreement(first, second):  # Σ_f F_h F_p per row: what the MLP reads
        f_p = head.norm(torch.einsum("brc,rcf->brf", first.view(-1, 3, 4), head.W_fp))
        f_h = head.norm(torch.einsum("brc,rcf->brf", second.view(-1, 3, 4), head.W_fh))
        return (f_h * f_p).sum(-1)

    same, other = agreement(texts, texts), agreement(texts, texts.roll(1, 0))
    # f, by Cauchy-Schwarz the most
    assert (same > other).all() and torch.allclose(same, torch.full_like(same, 5.0), atol=1e-2)


def test_gated_pair_head_with_offset_factors_reads_which_text_has_what():
    torch.manual_seed(0)
    heads = {c: GatedPairHead(3 * 4, classes=3, rows=3, factors=5, hidden=8, same_start=True, offset=c)
             for c in (0.0, 1.5)}
    heads[1.5].load_state_dict(heads[0.0].state_dict(), strict=False)  # the same W_fh = W_fp, the same MLP
    first, second = torch.randn(4, 12), torch.randn(4, 12)

    def mlp_input(head, premise, hypothesis):
        seen = []
        handle = head.mlp.register_forward_hook(lambda module, args, out: seen.append(args[0]))
        head(premise, hypothesis)
        handle.remove()
        return seen[0]

    assert torch.allclose(mlp_input(heads[0.0], first, second), mlp_input(heads[0.0], second, first))  # a product only
    factors = lambda text: torch.einsum("brc,rcf->brf", text.view(-1, 3, 4), heads[1.5].W_fh).flatten(1)  # noqa: E731
    swapped = mlp_input(heads[1.5], first, second) - mlp_input(heads[1.5], second, first)
    assert torch.allclose(swapped, 2 * 1.5 * (factors(first) - factors(second)), atol=1e-5)  # (h + c)(p - c)


def test_matching_pair_head_sees_the_difference_and_the_product():
    head = MatchingPairHead(4, classes=3, hidden=0)
    first = head.mlp.net[-1]
    with torch.no_grad():
        first.weight.zero_()
        first.bias.zero_()
        first.weight[0, 8:12] = 1.0  # class 0 reads |u - v| only
        first.weight[1, 12:16] = 1.0  # class 1 reads u * v only
    u, v = torch.tensor([[1.0, -2.0, 0.0, 3.0]]), torch.tensor([[1.0, 2.0, 5.0, -1.0]])
    logits = head(u, v)
    assert logits[0, 0].item() == pytest.approx(0 + 4 + 5 + 4)
    assert logits[0, 1].item() == pytest.approx(1 - 4 + 0 - 3)
    assert torch.allclose(head(u, v)[:, :2], head(v, u)[:, :2])  # both symmetric in u and v


def test_matching_pair_head_reads_only_the_features_it_is_given():
    head = MatchingPairHead(4, classes=3, hidden=0, features="difference")
    assert head.mlp.net[-1].in_features == 4
    u, v = torch.randn(2, 4), torch.randn(2, 4)
    assert torch.allclose(head(u, v), head(v, u))  # |u - v| alone is symmetric
    with pytest.raises(ValueError, match="unknown"):
        MatchingPairHead(4, classes=3, features="difference,ratio")


def test_sinusoidal_positions_match_their_formula():
    table = sinusoidal_positions(7, 6)
    for pos in range(7):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


@pytest.mark.parametrize("recipe", ["san_pair", "lama_pair"])
def test_pair_models_are_invariant_to_padding_of_either_text(recipe):
    torch.manual_seed(0)
    model = build_model(load_recipe(recipe, tiny_overrides(recipe)), vocab_size=40, classes=3).eval()
    ids = torch.tensor([[5, 6, 7, 0], [8, 9, 0, 0]])
    pair = torch.tensor([[10, 11, 0], [12, 13, 14]])
    out = model(ids, ids != 0, pair, pair != 0)
    wide_ids = torch.cat([ids, torch.zeros(2, 5, dtype=torch.long)], 1)
    wide_pair = torch.cat([pair, torch.zeros(2, 2, dtype=torch.long)], 1)
    wider = model(wide_ids, wide_ids != 0, wide_pair, wide_pair != 0)
    assert torch.allclose(out.logits, wider.logits, atol=1e-5)
    assert out.pair_attention.shape == (2, 3, 3)


def test_every_shipped_word_level_recipe_builds():
    for name in available_recipes():
        recipe = load_recipe(name, tiny_overrides(name))
        if recipe.encoder.type != "pretrained":  # those are built from the package: test_pretrained.py
            build_model(recipe, vocab_size=30, classes=2)


def test_sun_lu_logit_is_the_attention_weighted_sum_of_word_polarity_scores():
    """Sun & Lu §2: with a bias-free head, s = h^T W = Σ_j α_j (h_j^T W) = Σ_j α_j s_j."""
    torch.manual_seed(0)
    model = build_model(load_recipe("sunlu", tiny_overrides("sunlu") + ["head.hidden=0"]), 40, classes=2).eval()
    ids = torch.tensor([[5, 6, 7, 8, 0]])
    mask = ids != 0
    out = model(ids, mask)
    polarity = model.word_polarity(out.states)  # s_j for every word, B x T x classes
    assert torch.allclose(polarity, model.head.net[-1](out.states), atol=1e-6)
    assert torch.allclose(out.logits, (out.attention.transpose(1, 2) * polarity).sum(1), atol=1e-6)


def test_word_polarity_of_a_multi_head_model_is_the_logit_with_all_heads_on_that_word():
    torch.manual_seed(0)
    model = build_model(load_recipe("lama_ctx", tiny_overrides("lama_ctx")), 40, classes=2).eval()
    ids = torch.tensor([[5, 6, 7]])
    out = model(ids, ids != 0)
    polarity = model.word_polarity(out.states)
    only_word_1 = torch.zeros(1, 3, 3)
    only_word_1[:, :, 1] = 1.0  # every head's attention on word 1
    assert torch.allclose(polarity[0, 1], model.head((only_word_1 @ out.states).flatten(1))[0], atol=1e-6)


@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_sun_lu_scaling_flattens_or_sharpens_the_attention(scale):
    from attentive.models.poolers import DotAttentionPooler

    pooler = DotAttentionPooler(4, scale=scale)
    with torch.no_grad():
        pooler.V.copy_(torch.tensor([1.0, 0.0, 0.0, 0.0]))
    states = torch.tensor([[[2.0, 0, 0, 0], [0.0, 0, 0, 0]]])
    attention = pooler(states, torch.ones(1, 2, dtype=torch.bool)).attention[0, 0]
    assert attention[0] > attention[1]
    assert (attention[0] - attention[1]).item() == pytest.approx(math.tanh(1 / scale), abs=1e-6)  # softmax of 2/λ vs 0


def test_relative_attention_equals_plain_attention_when_the_relative_vectors_are_zero():
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4)
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    zeros = torch.zeros(5, 5, 4)
    plain = attend(q, k, v, mask)
    assert torch.allclose(attend(q, k, v, mask, zeros, zeros), plain, atol=1e-6)
    assert not torch.allclose(attend(q, k, v, mask, torch.randn(5, 5, 4), zeros), plain, atol=1e-3)


def test_relative_positions_are_clipped_at_k():
    positions = RelativePositions(k=2, dim=3)
    table = positions(6)  # [i, j] holds the vector of clip(j - i, -2, 2)
    assert torch.equal(table[0, 5], table[0, 2]) and torch.equal(table[5, 0], table[3, 0])
    assert torch.equal(table[1, 2], table[3, 4]) and not torch.equal(table[1, 2], table[2, 1])


def test_sun_lu_sigmoid_form_gives_sigma_of_the_single_score():
    torch.manual_seed(0)
    recipe = load_recipe("sunlu", tiny_overrides("sunlu") + ["head.hidden=0", "head.sigmoid=true"])
    model = build_model(recipe, 40, classes=2).eval()
    ids = torch.tensor([[5, 6, 7, 8]])
    out = model(ids, ids != 0)
    score = model.head.net(model.pooler(out.states, ids != 0).vector)  # the one score s = h^T W
    assert torch.allclose(torch.softmax(out.logits, -1)[:, 1], torch.sigmoid(score[:, 0]), atol=1e-6)
    polarity = model.word_polarity(out.states)  # (0, s_j): the margin is s_j itself
    assert torch.all(polarity[..., 0] == 0)
    assert torch.allclose(out.logits[:, 1], (out.attention[:, 0] * polarity[..., 1]).sum(-1), atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_masked_softmax_gives_padding_exactly_zero_and_the_words_a_softmax_of_their_own(dtype):
    from attentive.models.attention import masked_softmax

    scores = torch.tensor([[[2.0, -1.0, 7.0, 3.0], [0.5, 0.5, -9.0, 40.0]]], dtype=dtype)  # 1 x 2 heads x 4 words
    mask = torch.tensor([[True, True, False, False]])
    attention = masked_softmax(scores, mask)
    assert (attention[..., 2:] == 0).all()  # padding, however high its score
    assert torch.equal(attention[..., :2], torch.softmax(scores[..., :2], dim=-1))
