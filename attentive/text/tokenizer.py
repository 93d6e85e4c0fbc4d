"""Word-level tokenizer built with HF `tokenizers`, saved beside the model as `tokenizer.json`.

Lower-cases (configurable), splits on word characters vs punctuation, and keeps words seen at least
`min_frequency` times in the training texts (5 in the LAMA paper, §4.3). Id 0 is padding, id 1 unknown
(attentive/util/token_ids.py).

With `keep`, a rarer word is kept too when the pretrained vector source knows it (no word with a pretrained vector is
lost to the unknown token). With `pieces` (a WordPiece vocabulary, e.g. the sentence encoder's), the tokenizer is a
WordPiece model over the kept words plus those pieces: a kept word is one token, and any other word, in training or
later, is split into pieces ("unwatchable" -> "un", "##watch", "##able") instead of becoming the unknown token
(every character seen in training is a piece too, so a training word always splits; only a word with a character
never seen in training, e.g. another script, can still be unknown). The
fallback lives in tokenizer.json, so every path that reads the folder splits words the same way.

With `pieces` and `prune` (the recipe setting `tokenizer.prune_pieces`), the vocabulary keeps only the pieces the
training texts use: those WordPiece picks when the texts are tokenized with the full vocabulary, plus every
character alone and as a `##` piece, plus the kept words and PAD and UNK. A compact model (a distilled student) then
stores a few thousand embedding rows instead of the encoder's ~30,000. This is exact for the training texts: WordPiece
takes, at each position of a word, the longest vocabulary entry that matches there. Every entry it picked for a
training word is kept, and the pruned vocabulary is a subset of the full one, so at each position the entry picked
before is still there and nothing longer is; by induction over the positions, each training word splits into the
same tokens (the same strings; their ids are renumbered). No training word is unknown either way, since each of its
characters is kept (only a word over `max_input_chars_per_word` is, in both). A word never seen in training may
split differently, into shorter pieces or characters, than with the full vocabulary.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel, WordPiece
from tokenizers.trainers import WordLevelTrainer

from ..util.token_ids import PAD_ID, UNK_ID

PAD, UNK = "[PAD]", "[UNK]"
PIECE_PREFIX = "##"


def _empty_tokenizer(model, lowercase: bool) -> Tokenizer:
    tokenizer = Tokenizer(model)
    steps = [normalizers.NFKC(), normalizers.Replace("\ufeff", " ")]
    if lowercase:
        steps.append(normalizers.Lowercase())
    tokenizer.normalizer = normalizers.Sequence(steps)
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


def _trained(texts: Iterable[str], min_frequency: int, lowercase: bool, max_vocab: int | None) -> Tokenizer:
    tokenizer = _empty_tokenizer(WordLevel(unk_token=UNK), lowercase)
    trainer = WordLevelTrainer(vocab_size=(max_vocab + 2) if max_vocab else 10**9, min_frequency=min_frequency,
                               special_tokens=[PAD, UNK], show_progress=False)
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


def build_tokenizer(texts: Iterable[str], min_frequency: int = 5, lowercase: bool = True,
                    max_vocab: int | None = None, keep: Callable[[str], bool] | None = None,
                    pieces: Sequence[str] | None = None, prune: bool = False) -> Tokenizer:
    """Learn the vocabulary of `texts`: words with at least `min_frequency` occurrences, plus (with `keep`) any rarer
    word `keep` accepts; with `pieces`, a WordPiece fallback for every other word, and with `prune` too, only the
    pieces `texts` use (see the module docstring; without `pieces`, `prune` changes nothing)."""
    if keep is None and pieces is None:
        return _trained(texts, min_frequency, lowercase, max_vocab)
    texts = list(texts)
    words, counts = word_counts(texts, lowercase)
    chosen = [w for w, c in zip(words, counts) if c >= min_frequency or (keep is not None and keep(w))]
    chosen = chosen[:max_vocab] if max_vocab else chosen
    vocab = {PAD: PAD_ID, UNK: UNK_ID}
    characters = _characters(words) if pieces is not None else []
    for token in chosen + list(pieces or ()) + characters:
        vocab.setdefault(token, len(vocab))
    if pieces is None:
        return _empty_tokenizer(WordLevel(vocab, unk_token=UNK), lowercase)
    tokenizer = _word_pieces(vocab, lowercase)
    return prune_unused(tokenizer, texts, {PAD, UNK, *chosen, *characters}) if prune else tokenizer


def _word_pieces(vocab: dict[str, int], lowercase: bool) -> Tokenizer:
    return _empty_tokenizer(WordPiece(vocab, unk_token=UNK, continuing_subword_prefix=PIECE_PREFIX,
                                      max_input_chars_per_word=100), lowercase)


def prune_unused(tokenizer: Tokenizer, texts: Iterable[str], keep: set[str]) -> Tokenizer:
    """The WordPiece `tokenizer` with only the tokens in `keep` and those it produces for `texts`: ids renumbered
    densely in their old order, the same normalizer, pre-tokenizer and WordPiece settings. Each of `texts` splits into
    the same token strings as before when `keep` holds every character of their words, alone and as a `##` piece (the
    module docstring says why)."""
    used = token_counts(tokenizer, texts) > 0
    vocab = tokenizer.get_vocab()
    kept = sorted((token for token, i in vocab.items() if used[i] or token in keep), key=vocab.__getitem__)
    model = tokenizer.model
    pruned = Tokenizer(WordPiece({token: i for i, token in enumerate(kept)}, unk_token=model.unk_token,
                                 continuing_subword_prefix=model.continuing_subword_prefix,
                                 max_input_chars_per_word=model.max_input_chars_per_word))
    pruned.normalizer, pruned.pre_tokenizer = tokenizer.normalizer, tokenizer.pre_tokenizer
    return pruned


def _characters(words: Sequence[str]) -> list[str]:
    """Each character of `words`, alone and as a continuation piece: with them, any training word can be split."""
    characters = sorted({c for word in words for c in word})
    return characters + [PIECE_PREFIX + c for c in characters]


def word_counts(texts: Iterable[str], lowercase: bool = True) -> tuple[list[str], np.ndarray]:
    """Every distinct normalised word of `texts` and its count, most frequent first (ties: first seen)."""
    texts = list(texts)
    tokenizer = _trained(texts, 1, lowercase, None)
    counts = np.zeros(tokenizer.get_vocab_size(), dtype=np.int64)
    for encoding in tokenizer.encode_batch(texts, add_special_tokens=False):
        np.add.at(counts, encoding.ids, 1)
    vocab = tokenizer.get_vocab()
    words = sorted((w for w in vocab if w not in (PAD, UNK)), key=lambda w: (-counts[vocab[w]], vocab[w]))
    return words, np.asarray([counts[vocab[w]] for w in words], dtype=np.int64)


def token_counts(tokenizer: Tokenizer, texts: Iterable[str]) -> np.ndarray:
    """How often each token id occurs in `texts` (vocab_size entries)."""
    counts = np.zeros(tokenizer.get_vocab_size(), dtype=np.int64)
    for encoding in tokenizer.encode_batch(list(texts), add_special_tokens=False):
        np.add.at(counts, encoding.ids, 1)
    return counts


def is_piece(token: str) -> bool:
    return token.startswith(PIECE_PREFIX) and len(token) > len(PIECE_PREFIX)


def words_of(tokenizer: Tokenizer, text: str) -> list[str]:
    """The normalised words of `text` before vocabulary lookup (what word2vec is trained on)."""
    normalized = tokenizer.normalizer.normalize_str(text)
    return [word for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized)]
