"""Token ids of plain ASCII texts without the tokenizer's per-text machinery: the answer path's fast lane.

Every tokenizer attentive builds (attentive/text/tokenizer.py) normalises with NFKC, a byte-order-mark replacement and
(usually) lower-casing, pre-tokenises with `Whitespace` (words are the runs of `\\w+|[^\\w\\s]+`) and maps each word
on its own to ids (WordLevel, or WordPiece's pieces). On an ASCII text NFKC and the replacement change nothing, so the
ids are the concatenated ids of `re.findall(WORDS, text.lower())`'s words, each word's ids looked up in a memo that
the tokenizer's own model fills (`tokenizer.model.tokenize(word)`). That skips building an `Encoding` (offsets, word
ids, the attention and type masks) per text, which is most of what `encode_batch_fast` costs on a sentence. No word
holds a space, so `ids` looks up the text's runs between spaces (`text.split(" ")`, "film," or "great") in a memo of
their ids instead of finding its words. `predict`, which needs each text's whole words too, reads a call's texts at once
(`FastIds.batch_words`, the `ChunkTable`: those runs numbered, their ids, sizes and words gathered by numpy).

The lane opens only for a tokenizer whose whole pipeline is that one (checked once per tokenizer from its JSON) and
only for ASCII texts, or texts that the tokenizer's own normaliser makes ASCII (then the lane reads the normalised
text); any other text or tokenizer takes the tokenizer's own path. tests/text/test_fast_ids.py checks that both give the
same ids.
"""
from __future__ import annotations

import json
import re
import threading
import unicodedata
import weakref
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, chain
from typing import NamedTuple

import numpy as np
from tokenizers import Tokenizer

WORDS = re.compile(r"\w+|[^\w\s]+", re.ASCII)  # the `Whitespace` pre-tokenizer's pattern, on ASCII text
LONG_TEXT_CHARS_PER_TOKEN = 16  # a longer text is read word by word, only as far as its kept tokens
MEMO_WORDS = 500_000  # the memo stops growing here (a stream of unique words must not grow it without end)
BATCH_TEXTS = 16  # `ascii_words` reads this many texts or more at once (`ChunkTable`); fewer one by one, which
#   numpy's calls cost more for than they save
NON_ASCII = re.compile(r"[^\x00-\x7f]")
_UNCHANGED_ON_ASCII = ({"type": "NFKC"}, {"type": "Replace", "pattern": {"String": "\ufeff"}, "content": " "})
_LOWERCASE = {"type": "Lowercase"}


def _remembered(memo: dict, key: str, value):
    """`value`, kept in `memo` under `key` unless the memo holds MEMO_WORDS entries already."""
    if len(memo) < MEMO_WORDS:
        memo[key] = value
    return value


def _nfkc_replaced(text: str) -> str:
    """The tokenizer's first two normalising steps (`_UNCHANGED_ON_ASCII`) done by Python's NFKC."""
    return unicodedata.normalize("NFKC", text).replace("\ufeff", " ")


class IdsAndWords(NamedTuple):
    """A text's token ids and its whole words, as `FastIds.words` gives them (and `attentive.text.encoding.
    encode_batch` with `words`, for a text of the fast lane): how many tokens each word has (`sizes`, adding up to
    the ids) and its characters in the text (`words`, those at `word_spans`), no offsets. A named tuple: made for
    every text `predict` answers, where a frozen dataclass cost a tenth of the answer."""

    ids: list[int]
    sizes: list[int]
    words: list[str]


class FastIds:
    """Ids of ASCII texts for one tokenizer of attentive's own pipeline (see the module's docstring)."""

    def __init__(self, tokenizer: Tokenizer, lowercase: bool, added: list[str]):
        self.model, self.lowercase, self.normalizer = tokenizer.model, lowercase, tokenizer.normalizer
        self.agrees: dict[str, bool] = {}  # a non-ASCII character -> whether Python's NFKC treats it as the
        # tokenizer's normaliser does (their Unicode tables differ: Python's maps U+1F16C to "MR", the tokenizer's not)
        self.added = [token.lower() for token in added]  # e.g. "[PAD]": matched in the raw text before any split
        self.memo: dict[str, list[int]] = {}
        self.spelt: dict[str, list[int]] = self.memo if not lowercase else {}  # a word as a text spells it -> its
        #   ids (`words`, which reads the words of the text itself, not of its lower case)
        self.chunks: dict[str, list[int]] = {}  # a run of the text between two spaces -> its words' ids (`ids`)
        self.table = ChunkTable(self)  # the same runs' ids, sizes and words, numbered (`batch_words`)

    def word_ids(self, word: str) -> list[int]:
        ids = self.memo.get(word)
        if ids is None:
            ids = _remembered(self.memo, word, [token.id for token in self.model.tokenize(word)])
        return ids

    def chunk_ids(self, chunk: str) -> list[int]:
        """The ids of the words of `chunk`, a run of a (lower-cased, where the tokenizer lower-cases) text between
        two spaces: no word crosses a space, so a text's ids are its chunks' ids one after the other."""
        ids = self.chunks.get(chunk)
        if ids is None:
            ids = _remembered(self.chunks, chunk, [i for word in WORDS.findall(chunk) for i in self.word_ids(word)])
        return ids

    def spelt_ids(self, word: str) -> list[int]:
        """The ids of a word as a text spells it (lower-cased first by a lower-casing tokenizer)."""
        ids = self.spelt.get(word)
        if ids is None:
            ids = _remembered(self.spelt, word, self.word_ids(word.lower() if self.lowercase else word))
        return ids

    def normalised(self, text: str) -> str | None:
        """A non-ASCII `text` as the tokenizer's NFKC and byte-order-mark replacement leave it, where that is ASCII;
        else None. Python's NFKC does the work (a twentieth of the tokenizer's own call) once each of the text's
        non-ASCII characters is known to be normalised alike by both: a text that ends ASCII does so character by
        character (a composition never gives ASCII), so agreeing characters give the same text."""
        for char in set(NON_ASCII.findall(text)):
            agrees = self.agrees.get(char)
            if agrees is None:
                agrees = _remembered(self.agrees, char, self.normalizer.normalize_str(char) == self._python_steps(char))
            if not agrees:
                return None
        text = _nfkc_replaced(text)
        return text if text.isascii() else None

    def _python_steps(self, text: str) -> str:
        """The tokenizer's whole normaliser done by Python: NFKC, the replacement, and lower case where it has it."""
        text = _nfkc_replaced(text)
        return text.lower() if self.lowercase else text

    def ids(self, text: str, keep: int) -> list[int] | None:
        """The first `keep` token ids of `text`, or None for a text the lane does not take: one not ASCII after the
        tokenizer's normaliser, or one in which an added token can match."""
        if not text.isascii():  # the tokenizer's normalising, where it leaves an ASCII text (SenTube's comments all
            # carry a byte-order mark, tweets no-break spaces and ellipses); any other text takes the tokenizer's path
            text = self.normalised(text)
            if text is None:
                return None
        lowered = text.lower()
        if self.added and any(token in lowered for token in self.added):
            return None
        text = lowered if self.lowercase else text
        if len(text) <= keep * LONG_TEXT_CHARS_PER_TOKEN:
            chunks = text.split(" ")  # a third of the time of finding the words (WORDS) in the text
            try:
                return [i for chunk in chunks for i in self.chunks[chunk]][:keep]
            except KeyError:  # a chunk not in the memo yet
                return [i for chunk in chunks for i in self.chunk_ids(chunk)][:keep]
        ids: list[int] = []
        for word in WORDS.finditer(text):
            ids += self.word_ids(word.group())
            if len(ids) >= keep:
                break
        return ids[:keep]


    def words(self, text: str, keep: int) -> IdsAndWords | None:
        """The first `keep` ids of `text`, how many of them each whole word they hold has (the sizes of
        `attentive.answer.words.whole_words`' spans; they add up to the ids) and those words as the text spells
        them (its characters at `word_spans`; a lower-casing tokenizer's ids are those of their lower case, which
        the pattern cuts alike). A text that is not ASCII is read as the tokenizer's normaliser leaves it where that
        is ASCII (`aligned`: a byte-order mark made a space, a full-width letter its ASCII letter, an ellipsis three
        dots), each word shown as the text itself spells it, from the character its first character came from to
        the one its last came from, as the tokenizer's offsets show it. None where the lane does not take the text
        (as `ids`; a text long enough for `ids` to read it word by word) or `keep` cuts a word of several tokens
        (whose cut end only the tokenizer's offsets know)."""
        if len(text) > keep * LONG_TEXT_CHARS_PER_TOKEN:
            return None
        read, origin = (text, None) if text.isascii() else self.aligned(text)
        if read is None:
            return None
        if self.added:
            lowered = read.lower()
            if any(token in lowered for token in self.added):
                return None
        if read is text or (origin is None and read == NON_ASCII.sub(" ", text)):  # every non-ASCII character
            words = shown = WORDS.findall(read)  # became a space (a byte-order mark): the words are the text's own
        else:
            spans = [match.span() for match in WORDS.finditer(read)]
            words = [read[a:b] for a, b in spans]
            shown = [text[a:b] for a, b in spans] if origin is None else \
                [text[origin[a]:origin[b - 1] + 1] for a, b in spans]
        try:
            pieces = list(map(self.spelt.__getitem__, words))
        except KeyError:  # a word not in the memo yet
            pieces = list(map(self.spelt_ids, words))
        ids = list(chain.from_iterable(pieces))
        sizes = list(map(len, pieces))
        if len(ids) > keep:
            starts = list(accumulate(sizes, initial=0))
            kept = bisect_right(starts, keep - 1, hi=len(sizes))
            if starts[kept] > keep:  # its last word, of several tokens, cut
                return None
            ids, sizes, shown = ids[:keep], sizes[:kept], shown[:kept]
        return IdsAndWords(ids, sizes, shown)

    def batch_words(self, texts: Sequence[str], keep: int) -> list[IdsAndWords | None]:
        """`words` of each text, the same lists, read for all of them at once where a text's words are its own
        ASCII runs (an ASCII text, or one whose every non-ASCII character the normaliser makes a space: SenTube's
        byte-order marks), it holds no added token, is short enough and has at most `keep` tokens: their runs between
        spaces looked up in the `ChunkTable` and gathered by numpy (benchmarks/DECISIONS.md, "`predict` reads a
        call's words at once"). The other texts are read one by one."""
        longest = keep * LONG_TEXT_CHARS_PER_TOKEN
        reads = [(text if text.isascii() else self._own_words_read(text)) if len(text) <= longest else None
                 for text in texts]
        if self.added:
            lowered = "\n".join(read for read in reads if read is not None).lower()  # no added token holds a line
            if any(token in lowered for token in self.added):  # break, so none is found across two texts
                reads = [None if read is None or any(token in read.lower() for token in self.added) else read
                         for read in reads]
        plain = [index for index, read in enumerate(reads) if read is not None]
        found: list[IdsAndWords | None] = [None] * len(texts)
        for index, words in zip(plain, self.table.read([reads[index] for index in plain]) if plain else ()):
            if words is not None and len(words.ids) <= keep:
                found[index] = words
        return [self.words(text, keep) if words is None else words for text, words in zip(texts, found)]

    def _own_words_read(self, text: str) -> str | None:
        """A non-ASCII text as the normaliser leaves it, where that is ASCII and its words are the text's own (each
        non-ASCII character became a space); else None."""
        read, origin = self.aligned(text)
        return read if read is not None and origin is None and read == NON_ASCII.sub(" ", text) else None

    def aligned(self, text: str) -> tuple[str | None, list[int] | None]:
        """A non-ASCII `text` as the tokenizer's normaliser leaves it (`normalised`), where that is ASCII, and where
        each of its characters came from in the text: None where every character stayed one (a byte-order mark made
        a space), else a position per character ("wait\u2026" made "wait...": 0, 1, 2, 3, 4, 4, 4). NFKC never drops
        a character and no composition gives ASCII, so an ASCII result is the text's characters normalised one by
        one. (None, None) where the lane does not take the text."""
        read = self.normalised(text)
        if read is None or len(read) == len(text):
            return read, None
        origin, after = [], 0
        for match in NON_ASCII.finditer(text):
            position = match.start()
            origin += range(after, position)
            origin += [position] * len(_nfkc_replaced(match.group()))
            after = position + 1
        origin += range(after, len(text))
        return (read, origin) if len(origin) == len(read) else (None, None)


class _Column:
    """A growing numpy array (its first `size` values), doubled when full."""

    def __init__(self, dtype):
        self.values, self.size = np.empty(1024, dtype), 0

    def extend(self, items: list) -> None:
        end = self.size + len(items)
        if end > len(self.values):
            grown = np.empty(max(end, 2 * len(self.values)), self.values.dtype)
            grown[:self.size] = self.values[:self.size]
            self.values = grown
        self.values[self.size:end] = items
        self.size = end


def _segments(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions starts[0], ..., starts[0] + counts[0] - 1, then those of the second segment, and so on."""
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + np.arange(ends[-1] if len(ends) else 0)


class ChunkTable:
    """Every run between two spaces (a chunk: "film," or "great") that `FastIds.batch_words` has read, numbered in
    the order first seen, with its words' ids, each word's number of ids and the words as spelt, laid end to end in
    growing numpy arrays. A call's texts are then read as one array of chunk numbers (no word holds a space, so a
    text's words are its chunks' words one after the other), the ids, sizes and words of all of them gathered by
    numpy at once; Python only looks each chunk up and cuts each text's three lists. It stops growing at MEMO_WORDS
    chunks: a text with a chunk it does not hold is then read by `FastIds.words`. Calls from several threads (the
    server's batchers share a model) add chunks one thread at a time; a chunk's number is published last, so a reader
    that finds it finds its lists."""

    def __init__(self, lane: FastIds):
        self.lane = lane
        self.number: dict[str, int] = {}
        self.adding = threading.Lock()
        self.ids, self.sizes, self.words = _Column(np.int64), _Column(np.int64), _Column(object)
        self.first_id, self.id_count, self.first_word, self.word_count = (_Column(np.int64) for _ in range(4))

    def _add(self, chunk: str) -> int | None:
        """The number of a chunk not in the table yet, added (None when the table is full)."""
        if len(self.number) >= MEMO_WORDS:
            return None
        words = WORDS.findall(chunk)
        pieces = [self.lane.spelt_ids(word) for word in words]
        ids = [i for piece in pieces for i in piece]
        self.first_id.extend([self.ids.size])
        self.id_count.extend([len(ids)])
        self.first_word.extend([self.words.size])
        self.word_count.extend([len(words)])
        self.ids.extend(ids)
        self.sizes.extend([len(piece) for piece in pieces])
        self.words.extend(words)
        number = self.number[chunk] = len(self.number)
        return number

    def read(self, texts: list[str]) -> list[IdsAndWords | None]:
        """Each ASCII text's ids, word sizes and words, all its ids (`FastIds.words` with no cut); None for a
        text with a chunk the full table does not hold."""
        chunks = [text.split(" ") for text in texts]
        numbers = list(map(self.number.get, chain.from_iterable(chunks)))
        if None in numbers:  # a chunk seen for the first time (maybe twice in this call): added once
            with self.adding:
                numbers = [self.number.get(chunk) if chunk in self.number else self._add(chunk)
                           for chunk in chain.from_iterable(chunks)]
            if None in numbers:
                return self._read_each(texts)
        numbers = np.array(numbers, np.int64)
        id_counts, word_counts = self.id_count.values[numbers], self.word_count.values[numbers]
        ids = self.ids.values[_segments(self.first_id.values[numbers], id_counts)].tolist()
        at = _segments(self.first_word.values[numbers], word_counts)
        sizes, words = self.sizes.values[at].tolist(), self.words.values[at].tolist()
        counts = np.fromiter(map(len, chunks), np.int64, len(chunks))  # a text has one chunk at least
        firsts = np.cumsum(counts) - counts
        id_ends = [0, *accumulate(np.add.reduceat(id_counts, firsts).tolist())]  # where each text's lists end
        word_ends = [0, *accumulate(np.add.reduceat(word_counts, firsts).tolist())]
        return [IdsAndWords(ids[a:b], sizes[c:d], words[c:d])
                for a, b, c, d in zip(id_ends, id_ends[1:], word_ends, word_ends[1:])]

    def _read_each(self, texts: list[str]) -> list[IdsAndWords | None]:
        """`read` one text at a time, for a call whose chunks the full table does not all hold."""
        found = []
        for text in texts:
            numbers = [self.number.get(chunk) for chunk in text.split(" ")]
            found.append(None if None in numbers else self.read([text])[0])
        return found


def word_spans(text: str) -> list[tuple[int, int]]:
    """The characters of each word of an ASCII text, as the fast lane cuts it (its case does not move a match)."""
    return [match.span() for match in WORDS.finditer(text)]


_LANES: weakref.WeakKeyDictionary[Tokenizer, FastIds | None] = weakref.WeakKeyDictionary()
_HELD: dict[int, tuple[Tokenizer, FastIds | None]] = {}  # where a Tokenizer takes no weak reference (tokenizers
#   0.22): the latest few, each held (so that its id is not reused while it is here)
HELD_TOKENIZERS = 8


def fast_lane(tokenizer: Tokenizer) -> FastIds | None:
    """The fast lane of `tokenizer`, or None when its pipeline is not attentive's own (a pretrained tokenizer's, one
    with a post-processor): those take the tokenizer's own path. Found once per tokenizer: kept beside it by a weak
    reference, or, for a tokenizers release whose Tokenizer takes none (0.22), for the latest `HELD_TOKENIZERS`."""
    try:
        lane = _LANES.get(tokenizer, _LANES)
        if lane is _LANES:
            lane = _LANES[tokenizer] = _lane_for(tokenizer)
        return lane
    except TypeError:  # cannot create a weak reference to a 'tokenizers.Tokenizer' object
        held = _HELD.get(id(tokenizer))
        if held is None or held[0] is not tokenizer:
            held = _HELD[id(tokenizer)] = (tokenizer, _lane_for(tokenizer))
            while len(_HELD) > HELD_TOKENIZERS:
                del _HELD[next(iter(_HELD))]
        return held[1]


def _lane_for(tokenizer: Tokenizer) -> FastIds | None:
    spec = json.loads(tokenizer.to_str())
    steps = (spec.get("normalizer") or {}).get("normalizers")
    if spec.get("post_processor") or spec.get("pre_tokenizer") != {"type": "Whitespace"} \
            or spec["model"]["type"] not in ("WordLevel", "WordPiece") or not isinstance(steps, list):
        return None
    if tuple(steps[:2]) != _UNCHANGED_ON_ASCII or steps[2:] not in ([], [_LOWERCASE]):
        return None
    return FastIds(tokenizer, steps[2:] == [_LOWERCASE], [token["content"] for token in spec.get("added_tokens") or ()])


def ascii_words(tokenizer: Tokenizer, texts: Sequence[str], keep: int) -> list[IdsAndWords | None]:
    """Each text's first `keep` ids and whole words by the fast lane (`FastIds.words`; a call of BATCH_TEXTS texts
    or more read at once, `FastIds.batch_words`, to the same lists), or None for a text the lane does not take (every
    text, for a tokenizer outside attentive's pipeline)."""
    lane = fast_lane(tokenizer)
    if lane is None:
        return [None] * len(texts)
    if len(texts) >= BATCH_TEXTS:
        return lane.batch_words(texts, keep)
    return [lane.words(text, keep) for text in texts]


def ascii_ids(tokenizer: Tokenizer, texts: Sequence[str], keep: int) -> list[list[int] | None]:
    """Each text's first `keep` ids by the fast lane, or None for a text the lane does not take (not ASCII after the
    tokenizer's normaliser, or one holding an added token such as "[UNK]"; or a tokenizer outside attentive's
    pipeline: then every text is None)."""
    lane = fast_lane(tokenizer)
    if lane is None:
        return [None] * len(texts)
    return [lane.ids(text, keep) for text in texts]
