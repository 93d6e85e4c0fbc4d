"""The tokenizer step shared by PyTorch models and the torch-free runtime (numpy and `tokenizers` only), so that the
two paths cannot drift: token ids truncated to the model's length, one unknown token for a text with no token,
batches ordered by length, and right padding.

A model whose recipe says `max_length: null` reads whole texts, up to `MAX_TOKENS` (10,000) tokens: the rest of a
longer text is cut off, as `max_length` cuts it. A long text is tokenized only as far as its kept tokens need
(`encode_batch`), so a megabyte of text costs what its first tokens cost.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tokenizers import Encoding, Tokenizer

from .fast_ids import IdsAndWords, ascii_ids, ascii_words
from .tokenizer import PAD_ID, UNK_ID

POOL_BATCHES = 50
MAX_TOKENS = 10_000  # the tokens of a text read when the recipe's max_length is null (whole texts)
PREFIX_CHARS_PER_TOKEN = 16  # the first prefix of a long text tokenized: this many characters per kept token
# one more network call, in padded tokens (what ONNX Runtime's call costs beyond its tokens); PyTorch's call costs
# more, so it rarely cuts where it would not pay
OVERHEAD_TOKENS = 64


@dataclass(frozen=True)
class Item:
    """One example's token ids: the text, the second text of a pair, and the aspect (aspect-vocabulary ids of a
    category, or the word ids of an open-ended aspect term)."""

    ids: list[int]
    pair: list[int] | None = None
    aspect: list[int] | None = None

    def __len__(self) -> int:
        return len(self.ids) + len(self.pair or ())


def encode(tokenizer: Tokenizer, texts: Sequence[str], max_length: int | None = None,
           special_tokens: bool = False) -> list[list[int]]:
    """Token ids of each text, truncated to `max_length` (`MAX_TOKENS` if None); a text with no tokens becomes one
    unknown token.

    `special_tokens` adds the tokenizer's own ([CLS] ... [SEP] for a pretrained WordPiece tokenizer)."""
    return truncated_ids(encode_batch(tokenizer, texts, max_length, special_tokens, offsets=False), max_length)


def kept_tokens(max_length: int | None) -> int:
    """How many tokens of a text a model reads: its `max_length`, or `MAX_TOKENS` for whole texts (None)."""
    return max_length or MAX_TOKENS


def truncated_ids(encodings: Sequence[Encoding | IdsOnly], max_length: int | None = None) -> list[list[int]]:
    """The ids of tokenizer encodings, truncated to `max_length` (None: whole texts up to `MAX_TOKENS` tokens); an
    encoding with no tokens becomes one unknown token."""
    keep = kept_tokens(max_length)
    return [enc.ids[:keep] or [UNK_ID] for enc in encodings]


@dataclass(frozen=True)
class IdsOnly:
    """A text's token ids alone, as `encode_batch` gives them without offsets for a text of the fast lane
    (attentive/text/fast_ids.py)."""

    ids: list[int]


def encode_batch(tokenizer: Tokenizer, texts: Sequence[str], max_length: int | None = None,
                 special_tokens: bool = False, offsets: bool = True,
                 words: bool = False) -> list[Encoding | IdsOnly | IdsAndWords]:
    """The tokenizer's encodings of `texts`, whose first `kept_tokens(max_length)` tokens (and their character
    offsets) are those of the whole text; a long text is encoded only as far as those tokens need. Without
    `offsets` the encodings hold the ids alone (no offsets, no word ids): what answering without explanations and
    training need. Then the ASCII texts of a tokenizer built by attentive take the fast lane (`IdsOnly`, about four
    times faster on a sentence), the others the tokenizer's `encode_batch_fast` (a quarter faster than with offsets).
    With `words` (what `predict` needs for its top words) the fast lane's texts are `IdsAndWords`, the others the
    tokenizer's encodings with offsets.

    A text longer than `PREFIX_CHARS_PER_TOKEN` characters per kept token is first encoded cut to that many
    characters, and the cut prefix stands for the text when its kept tokens all belong to words before its last
    word (the only one the cut can have split: the tokenizer splits words on whitespace and punctuation); otherwise
    a prefix four times as long is tried, up to the whole text."""
    keep = kept_tokens(max_length)
    if (offsets and not words) or special_tokens:
        return _tokenizer_encodings(tokenizer, texts, keep, special_tokens, offsets)
    fast: list[Encoding | IdsOnly | IdsAndWords | None]
    if words:
        fast = ascii_words(tokenizer, texts, keep)
    else:
        fast = [None if ids is None else IdsOnly(ids) for ids in ascii_ids(tokenizer, texts, keep)]
    rest = [index for index, encoding in enumerate(fast) if encoding is None]
    if rest:
        for index, encoding in zip(rest, _tokenizer_encodings(tokenizer, [texts[i] for i in rest], keep, False,
                                                              words)):
            fast[index] = encoding
    return fast


def _tokenizer_encodings(tokenizer: Tokenizer, texts: Sequence[str], keep: int, special_tokens: bool,
                         offsets: bool) -> list[Encoding]:
    """`encode_batch` by the tokenizer itself."""
    encode = tokenizer.encode_batch if offsets else tokenizer.encode_batch_fast
    encodings = encode([text[:keep * PREFIX_CHARS_PER_TOKEN] for text in texts], add_special_tokens=special_tokens)
    for index, text in enumerate(texts):
        cut = keep * PREFIX_CHARS_PER_TOKEN
        if cut < len(text) and not offsets:  # the check below needs the word ids
            encodings[index] = tokenizer.encode(text[:cut], add_special_tokens=special_tokens)
        while cut < len(text) and not _holds_kept_tokens(encodings[index], keep):
            cut *= 4
            encodings[index] = tokenizer.encode(text[:cut], add_special_tokens=special_tokens)
    return encodings


def _holds_kept_tokens(encoding: Encoding, keep: int) -> bool:
    """Whether an encoding of a text's prefix holds more than `keep` tokens of words, the `keep`-th of them in a word
    before the prefix's last one (the tokens a tokenizer that truncates on its own cut off count too: they are its
    `overflowing` parts)."""
    words = [word for part in (encoding, *encoding.overflowing) for word in part.word_ids if word is not None]
    return len(words) > keep and words[keep - 1] != words[-1]


def batch_order(lengths: Sequence[int], batch_size: int, shuffle: bool,
                rng: np.random.Generator | None = None) -> list[np.ndarray]:
    """Index batches: length-sorted pools when shuffling, one global length sort otherwise (one text is its own
    batch, with no sort: the server answers a request of one text so)."""
    if not shuffle and len(lengths) == 1:
        return [np.zeros(1, np.intp)]
    lengths = np.asarray(lengths)
    if not shuffle:
        order = np.argsort(lengths, kind="stable")
        return cut_by_padding(order, lengths[order].tolist(), batch_size)
    rng = rng or np.random.default_rng()
    order = rng.permutation(len(lengths))
    pool = batch_size * POOL_BATCHES
    batches = []
    for start in range(0, len(order), pool):
        chunk = order[start:start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def cut_by_padding(order: np.ndarray, lengths: list[int], batch_size: int) -> list[np.ndarray]:
    """Cut `order` (indices sorted by their `lengths`, ascending) into batches of at most `batch_size`, starting a
    new batch where the next text would add more padding to the batch than `OVERHEAD_TOKENS`: one batch padded to
    its longest text wastes most of its work on short texts (a random 128 of SST-2's sentences are 37% real
    tokens), and a further network call costs about as much as that many padded tokens."""
    batches, start = [], 0
    for end in range(1, len(order) + 1):
        if end == len(order) or end - start == batch_size or \
                (end - start) * (lengths[end] - lengths[end - 1]) > OVERHEAD_TOKENS:
            batches.append(order[start:end])
            start = end
    return batches


def pad_numpy(sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad to the longest sequence: ids (B x T, int64) and mask (B x T, bool, True on real tokens)."""
    width = max(len(seq) for seq in sequences)
    ids = np.full((len(sequences), width), PAD_ID, dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, :len(seq)] = seq
    return ids, ids != PAD_ID
