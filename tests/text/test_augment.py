"""Seeded augmentations for distillation transfer texts (attentive/text/augment.py, Tang et al. 2019 §3.2)."""
import numpy as np
import pytest

from attentive.text.augment import Augmentation, augment, glove_neighbours, join, neighbours, words

ADJECTIVES = ["good", "bad", "long", "dull", "bright", "slow", "funny", "odd", "warm", "cold"]
NOUNS = ["film", "plot", "actor", "score", "ending", "script", "scene", "cast", "story", "camera"]
TEXTS = [f"The {ADJECTIVES[i % 10]} {NOUNS[i // 5 % 10]} was, honestly, {ADJECTIVES[(i * 3) % 10]} and "
         f"{ADJECTIVES[(i * 7) % 10]} -- number {i}!" for i in range(50)]
NEIGHBOURS = {"good": ["great", "fine"], "bad": ["awful"], "film": ["movie", "picture"], "the": ["a"]}


def test_words_and_join():
    assert words("It's great, isn't it?") == ["It", "'", "s", "great", ",", "isn", "'", "t", "it", "?"]
    assert join(["a", "b", "!"]) == "a b !"


def test_same_seed_gives_the_same_copies_and_another_seed_others():
    how = Augmentation()
    first = augment(TEXTS, how, seed=3, neighbours=NEIGHBOURS)
    assert first == augment(TEXTS, how, seed=3, neighbours=NEIGHBOURS)
    assert first != augment(TEXTS, how, seed=4, neighbours=NEIGHBOURS)
    assert first != [join(words(text)) for text in TEXTS for _ in range(how.copies)]  # it did augment


def test_copies_of_a_text_do_not_depend_on_the_other_texts():
    how = Augmentation(mask=0.3, replace=0.5, ngram=0.5, copies=3)
    alone = augment([TEXTS[0]], how, seed=1, neighbours=NEIGHBOURS)
    assert alone == augment([TEXTS[7], TEXTS[0]], how, seed=1, neighbours=NEIGHBOURS)[3:]
    assert alone == augment(TEXTS[:3], how, seed=1, neighbours=NEIGHBOURS)[:3]


def test_copies_per_text_in_input_order():
    how = Augmentation(mask=0.0, replace=0.0, ngram=0.0, copies=3)
    out = augment(["one two", "three four five", "six"], how, seed=0)
    assert out == ["one two"] * 3 + ["three four five"] * 3 + ["six"] * 3
    assert augment(TEXTS, Augmentation(copies=0), seed=0) == []


def test_no_augmentation_gives_the_joined_words():
    how = Augmentation(mask=0.0, replace=0.0, ngram=0.0)
    assert augment(TEXTS, how, seed=9) == [join(words(text)) for text in TEXTS for _ in range(2)]


def test_a_copy_is_never_empty():
    how = Augmentation(mask=1.0, copies=3)
    out = augment(TEXTS + ["!!!", "a"], how, seed=2)
    assert all(len(words(copy)) == 1 for copy in out)
    for i, text in enumerate(TEXTS + ["!!!", "a"]):
        assert all(copy in words(text) for copy in out[3 * i:3 * i + 3])
    assert augment(["   "], how, seed=2) == ["   "] * 3  # no words at all: the text unchanged


def test_ngram_is_a_contiguous_piece_of_one_to_five_words():
    how = Augmentation(mask=0.0, replace=0.0, ngram=1.0, copies=4)
    lengths = set()
    for i, text in enumerate(TEXTS):
        original = words(text)
        for copy in augment([text], how, seed=5):
            piece = words(copy)
            lengths.add(len(piece))
            assert 1 <= len(piece) <= 5
            assert any(original[s:s + len(piece)] == piece for s in range(len(original)))
    assert lengths == {1, 2, 3, 4, 5}


def test_neighbours_by_cosine_without_zero_rows():
    vocabulary = ["a", "b", "c", "d", "e"]
    matrix = np.array([[1, 0], [0.9, 0.1], [0, 1], [0, 0], [-1, 0.05]], dtype=np.float32)
    got = neighbours(vocabulary, matrix, k=2)
    assert got["a"] == ["b", "c"]
    assert got["c"] == ["b", "e"]
    assert got["e"] == ["c", "b"]
    assert got["d"] == []
    assert all("d" not in near and word not in near for word, near in got.items())
    assert neighbours(["x", "y", "z"], np.array([[1.0, 0], [2.0, 0], [3.0, 0]]), k=1)["x"] == ["y"]  # tie: order


def test_neighbours_of_many_words_in_blocks():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(3000, 8)).astype(np.float32)
    vocabulary = [f"w{i}" for i in range(3000)]
    got = neighbours(vocabulary, matrix, k=3)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    for i in (0, 2047, 2048, 2999):
        scores = unit @ unit[i]
        scores[i] = -np.inf
        assert got[f"w{i}"] == [f"w{j}" for j in np.argsort(-scores)[:3]]


def test_replacement_uses_only_listed_neighbours():
    how = Augmentation(mask=0.0, replace=1.0, ngram=0.0, copies=5)
    out = augment(["The good film was good"], how, seed=0, neighbours=NEIGHBOURS)
    for copy in out:
        first, second, third, was, fifth = words(copy)
        assert first == "a" and second in NEIGHBOURS["good"] and third in NEIGHBOURS["film"]
        assert was == "was" and fifth in NEIGHBOURS["good"]
    assert len(set(out)) > 1


@pytest.mark.parametrize("settings", [dict(mask=-0.1), dict(replace=1.5), dict(ngram=2.0), dict(copies=-1)])
def test_invalid_settings_raise(settings):
    with pytest.raises(ValueError):
        Augmentation(**settings)


def test_glove_neighbours():
    got = glove_neighbours(["good", "bad", "film", "zzzqqqxx"], k=2)
    assert got["good"] and set(got["good"]) <= {"bad", "film"}
    assert got["zzzqqqxx"] == []
    assert all("zzzqqqxx" not in near for near in got.values())
