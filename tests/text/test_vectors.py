"""Pretrained knowledge without a download (issue 15): vectors distilled from MiniLM, no word lost, coverage."""
from __future__ import annotations

import numpy as np
import pytest

from attentive.recipes.loader import load_recipe
from attentive.text.distilled import distill_vectors, run_encoder
from attentive.text.sources import build_vocabulary, initial_vectors, vocabulary_report
from attentive.text.tokenizer import PAD_ID, UNK_ID, build_tokenizer, is_piece

from ..helpers import cache_with_minilm_vocabulary

pytestmark = pytest.mark.slow  # runs the pretrained MiniLM encoder over vocabularies

WORDS = ["good", "bad", "film", "awful", "##ing"]


@pytest.fixture
def cache(tmp_path, monkeypatch, minilm_vocabulary):
    """An ATTENTIVE_CACHE of the test's own, holding only the MiniLM vocabulary table the session computed once."""
    return cache_with_minilm_vocabulary(tmp_path / "cache", minilm_vocabulary, monkeypatch)


def test_distilled_vectors_are_deterministic_and_cached_by_content(cache):
    first = distill_vectors(WORDS, [5, 3, 9, 1, 0], dim=4)
    assert first.shape == (5, 4) and first.dtype == np.float32 and np.abs(first).sum() > 0
    assert len(list(cache.glob("distilled-*.npy"))) == 1
    (next(cache.glob("distilled-*.npy"))).unlink()
    assert np.allclose(distill_vectors(WORDS, [5, 3, 9, 1, 0], dim=4), first, atol=1e-5)  # computed again: the same
    other = distill_vectors(["good", "bad", "film", "dreadful", "##ing"], [5, 3, 9, 1, 0], dim=4)  # same row count
    assert len(list(cache.glob("distilled-*.npy"))) == 2 and not np.allclose(other, first)


def test_computing_the_vectors_leaves_the_training_seed_alone():
    """A run that computes the vectors (an empty cache) starts its network where one that reads them does: building
    the encoder, whose weights are drawn before the pretrained ones replace them, does not advance torch's generator
    (it did, and moved SST-2's seed-0 test accuracy from 0.8440 to 0.8364; benchmarks/notes.md)."""
    import torch

    torch.manual_seed(0)
    expected = torch.rand(4)
    torch.manual_seed(0)
    assert run_encoder(["good", "film"]).shape[0] == 2
    assert torch.equal(torch.rand(4), expected)


def test_distilled_vectors_carry_the_encoders_meaning(cache):
    words = ["good", "great", "excellent", "terrible", "awful", "horrible", "table", "chair"]
    table = distill_vectors(words, [1] * len(words), dim=6)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    similarity = unit @ unit.T
    assert similarity[0, 1] > similarity[0, 6]  # good ~ great more than good ~ table
    assert similarity[3, 4] > similarity[3, 7]  # terrible ~ awful more than terrible ~ chair


def recipe_with(*overrides: str) -> dict:
    return load_recipe("lama_ctx", list(overrides))


def test_a_rare_word_with_a_pretrained_vector_is_kept_and_others_fall_back_to_pieces(cache):
    texts = ["the film was good"] * 5 + ["a serendipitous zxqvwibble"]
    recipe = recipe_with("embedder.vectors=distilled", "tokenizer.min_frequency=2", "tokenizer.keep_known=true",
                         "tokenizer.pieces=true")
    tokenizer = build_vocabulary(recipe, texts)
    vocab = tokenizer.get_vocab()
    assert "a" in vocab and "zxqvwibble" not in vocab  # seen once: kept because the encoder knows it; not
    assert "serendipitous" not in vocab  # seen once, and not one of MiniLM's word pieces: split
    pieces = tokenizer.encode("zxqvwibble", add_special_tokens=False).tokens
    assert len(pieces) > 1 and all(is_piece(p) for p in pieces[1:]) and UNK_ID not in tokenizer.encode("zxqvwibble").ids
    plain = build_tokenizer(texts, min_frequency=2)
    assert plain.encode("zxqvwibble serendipitous").ids == [UNK_ID, UNK_ID]  # what the old tokenizer did


def test_an_unseen_word_gets_a_nonzero_pretrained_vector_from_its_pieces(cache):
    texts = ["the film was good", "the film was bad", "an awful film"] * 2
    recipe = recipe_with("embedder.vectors=distilled", "embedder.distilled_dim=8", "tokenizer.min_frequency=1",
                         "tokenizer.pieces=true")
    tokenizer = build_vocabulary(recipe, texts)
    vectors = initial_vectors(recipe, tokenizer, texts, "tiny", lambda _: [], np.random.default_rng(0))
    assert vectors.matrix.shape == (tokenizer.get_vocab_size(), 8) and vectors.coverage == 1.0
    assert not vectors.matrix[PAD_ID].any()
    ids = tokenizer.encode("unwatchable", add_special_tokens=False).ids
    assert UNK_ID not in ids and all(np.abs(vectors.matrix[i]).sum() > 0 for i in ids)
    report = vocabulary_report(tokenizer, texts, ["an unwatchable film"], lowercase=True)
    assert report["train"] == {"whole": 1.0, "pieces": 0.0, "unknown": 0.0}
    assert report["dev"]["pieces"] == pytest.approx(1 / 3, abs=1e-3) and report["dev"]["unknown"] == 0.0


def test_sources_concatenate_each_rescaled_to_the_same_spread(cache):
    texts = ["the film was good and quite funny", "the film was bad , dull and long"] * 2
    recipe = recipe_with("embedder.vectors=distilled+glove", "embedder.distilled_dim=8", "embedder.scale=0.2",
                         "tokenizer.min_frequency=1")
    tokenizer = build_vocabulary(recipe, texts)
    vectors = initial_vectors(recipe, tokenizer, texts, "tiny", lambda _: [], np.random.default_rng(0))
    assert vectors.matrix.shape[1] == 8 + 50
    rows = np.arange(len(vectors.matrix)) != PAD_ID
    assert vectors.matrix[rows, :8].std() == pytest.approx(0.2, rel=1e-3)
    assert vectors.matrix[rows, 8:].std() == pytest.approx(0.2, rel=1e-3)


def test_an_unknown_vector_source_is_named_in_the_error():
    from attentive.errors import AttentiveError
    from attentive.text.sources import source_names

    with pytest.raises(AttentiveError, match="'glove2'"):
        source_names("distilled+glove2")


def test_the_default_path_trains_on_the_bundled_sample_with_no_word_lost(sst2_small, tmp_path, cache):
    import attentive
    from attentive.data.example import Dataset

    data = Dataset("tiny", {"train": sst2_small.splits["train"][:200], "dev": sst2_small.splits["dev"][:50],
                            "test": []}, sst2_small.labels)
    model = attentive.train(data, out=tmp_path / "run", overrides=["train.epochs=1"], show_progress=False)  # no recipe
    assert model.config["recipe"]["name"] == "default"
    assert model.config["vectors"]["source"].startswith("distilled-minilm")
    report = model.config["vocabulary"]
    assert report["train"]["unknown"] == 0.0 and report["dev"]["unknown"] < 0.01 and report["dev"]["pieces"] > 0
    loaded = attentive.load(tmp_path / "run")
    assert (loaded.predict("an unwatchablezzz mess")[0].probabilities
            == model.predict("an unwatchablezzz mess")[0].probabilities)


def test_word2vec_vectors_are_cached_by_content_not_by_row_count(cache):
    recipe = recipe_with("embedder.vectors=word2vec", "embedder.dim=8", "tokenizer.min_frequency=1")
    first_texts, other_texts = ["the film was good", "a bad film"] * 3, ["the book was good", "a bad book"] * 3
    for texts in (first_texts, other_texts):  # same dataset name, same number of rows
        tokenizer = build_vocabulary(recipe, texts)
        vectors = initial_vectors(recipe, tokenizer, texts, "mine", lambda _: [], np.random.default_rng(0))
        assert vectors.coverage == 1.0
    assert len(list(cache.glob("w2v-*.npz"))) == 2


def test_processes_asking_for_the_vocabulary_table_at_once_compute_it_once(tmp_path, monkeypatch):
    """attentive.util.atomic.computed_once: the second caller waits for the first, then reads what it wrote (two
    threads here; a flock taken through separate opens excludes them as it excludes processes)."""
    import threading
    import time

    from attentive.text import distilled

    monkeypatch.setenv("ATTENTIVE_CACHE", str(tmp_path))
    monkeypatch.setattr(distilled, "encoder_pieces", lambda: ["good", "bad"])
    computed = []

    def slow_encoder(words):
        computed.append(list(words))
        time.sleep(0.3)  # long enough for the other thread to arrive while this one computes
        return np.ones((len(words), 3), dtype=np.float32)

    monkeypatch.setattr(distilled, "run_encoder", slow_encoder)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(distilled.encoder_vocabulary_table())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert computed == [["good", "bad"]]
    assert [words for words, _ in answers] == [["good", "bad"]] * 2
    assert all(np.array_equal(vectors, np.ones((2, 3))) for _, vectors in answers)


def test_a_cache_entry_whose_lock_cannot_be_opened_is_computed_without_it(tmp_path):
    """computed_once in a folder where its lock file cannot be made (here a folder stands in its way) computes, as
    on a platform without fcntl; an entry already there is read without any lock (encoder_vocabulary_table)."""
    from attentive.util.atomic import computed_once

    (tmp_path / "entry.npz.lock").mkdir()
    ran = []
    with computed_once(tmp_path / "entry.npz"):
        ran.append(True)
    assert ran == [True]
