"""The fast lane of token ids (attentive/text/fast_ids.py) gives exactly the tokenizer's own ids, on every ASCII text
and every text its normaliser's NFKC and byte-order-mark replacement make ASCII, for every tokenizer attentive builds;
other texts and tokenizers take the tokenizer's path."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, normalizers

from attentive.data.registry import load_dataset
from attentive.text.encoding import IdsOnly, encode, encode_batch, truncated_ids
from attentive.text.fast_ids import ascii_ids, fast_lane
from attentive.text.tokenizer import build_tokenizer

TRICKY = ["", "[UNK] and [PAD] [pad]", "   ", "\t\n", "a_b c__d", "don't!!! stop...", "x" * 150, "ABC abc AbC",
          "3.14 + 2,000=?",
          "#hashtag @user http://x.y/z?q=1&r=2", "\x00\x01 control", "\x0b\x0c\r", "a" * 20 + " " + "b" * 101,
          "unbelievable unbelievably believers", "Zebra-crossing (and) [brackets] {braces}"]


def _tokenizers() -> dict[str, Tokenizer]:
    texts = [row.text for row in load_dataset("sst2_sample").splits["train"]][:300]
    pieces = sorted({word[:i] for text in texts for word in text.lower().split() for i in (2, 3)}) + \
        ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    return {"words": build_tokenizer(texts, min_frequency=2),
            "cased words": build_tokenizer(texts, min_frequency=2, lowercase=False),
            "pieces": build_tokenizer(texts, min_frequency=3, pieces=pieces),
            "pruned pieces": build_tokenizer(texts, min_frequency=3, pieces=pieces, prune=True)}


TOKENIZERS = _tokenizers()


def _own_ids(tokenizer: Tokenizer, texts: list[str], keep: int) -> list[list[int]]:
    return [encoding.ids[:keep] for encoding in tokenizer.encode_batch_fast(texts, add_special_tokens=False)]


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_same_ids_as_the_tokenizer_on_real_and_tricky_texts(name):
    tokenizer = TOKENIZERS[name]
    texts = [row.text for row in load_dataset("sst2_sample").splits["test"]] + TRICKY
    texts = [text for text in texts if text.isascii()]
    assert fast_lane(tokenizer) is not None
    for keep in (10_000, 5, 1):
        fast, own = ascii_ids(tokenizer, texts, keep), _own_ids(tokenizer, texts, keep)
        special = texts.index("[UNK] and [PAD] [pad]")
        # added tokens (a trained word vocabulary's [PAD] and [UNK]) match in the raw text: the tokenizer's path
        assert fast[special] is None if fast_lane(tokenizer).added else fast[special] == own[special]
        assert fast[:special] + fast[special + 1:] == own[:special] + own[special + 1:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(max_codepoint=127, blacklist_characters="["), max_size=60), min_size=1,
                max_size=5))
def test_same_ids_on_any_ascii_text(texts):
    for tokenizer in TOKENIZERS.values():
        assert ascii_ids(tokenizer, texts, 10_000) == _own_ids(tokenizer, texts, 10_000)


# a byte-order mark; a no-break space and an ellipsis; fullwidth letters; a ligature, a circled digit, a superscript
NORMALISED_TO_ASCII = ["it's\ufeff top speed \ufeff", "wait\xa0for it\u2026 now", "\uff37\uff41\uff52\uff4d film",
                      "\ufb01ne \u2460 x\u00b2", "\ufeff"]


def test_the_lane_normalises_as_the_tokenizer_does_not_as_python():
    tokenizer = TOKENIZERS["words"]  # Python's NFKC maps U+1F16C (RAISED MR SIGN) to "MR"; the tokenizer's keeps it
    texts = ["a\U0001f16cb film"]
    fast, own = ascii_ids(tokenizer, texts, 10_000), _own_ids(tokenizer, texts, 10_000)
    assert fast == [None] or fast == own


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_texts_the_normaliser_makes_ascii_take_the_lane_with_the_tokenizers_ids(name):
    tokenizer = TOKENIZERS[name]
    fast = ascii_ids(tokenizer, NORMALISED_TO_ASCII, 10_000)
    assert None not in fast
    assert fast == _own_ids(tokenizer, NORMALISED_TO_ASCII, 10_000)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=5))
def test_any_text_the_lane_takes_gets_the_tokenizers_ids(texts):
    for tokenizer in TOKENIZERS.values():
        own = _own_ids(tokenizer, texts, 10_000)
        assert all(fast is None or fast == ids for fast, ids in zip(ascii_ids(tokenizer, texts, 10_000), own))


def test_a_long_text_is_read_only_as_far_as_its_kept_tokens():
    tokenizer = TOKENIZERS["pieces"]
    text = "the film is warm and funny . " * 5_000
    assert ascii_ids(tokenizer, [text], 7) == _own_ids(tokenizer, [text], 7)


def test_other_texts_and_tokenizers_take_the_tokenizers_path():
    tokenizer = TOKENIZERS["words"]
    assert ascii_ids(tokenizer, ["café au lait", "plain"], 100)[0] is None
    bert_like = Tokenizer.from_str(tokenizer.to_str())
    bert_like.normalizer = normalizers.BertNormalizer()
    assert fast_lane(bert_like) is None
    assert ascii_ids(bert_like, ["plain"], 100) == [None]


def test_encode_batch_mixes_both_lanes_in_the_texts_order():
    tokenizer = TOKENIZERS["pieces"]
    texts = ["a warm film", "naïve but warm", "", "the end"]
    encodings = encode_batch(tokenizer, texts, offsets=False)
    assert [type(e) is IdsOnly for e in encodings] == [True, False, True, True]
    assert truncated_ids(encodings) == [ids or [1] for ids in _own_ids(tokenizer, texts, 10_000)]
    assert encode(tokenizer, texts, max_length=2) == [ids[:2] or [1] for ids in _own_ids(tokenizer, texts, 2)]
    with_offsets = encode_batch(tokenizer, texts)  # explanations need offsets: the tokenizer's own encodings
    assert not any(isinstance(e, IdsOnly) for e in with_offsets)


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_lane_s_whole_words_are_the_tokenizer_s(name):
    """`FastIds.words` gives the words `whole_words` finds from the tokenizer's offsets and word ids (predict's top
    words), or None where a kept-token cut splits a word of several pieces."""
    from attentive.answer.words import whole_words
    from attentive.text.fast_ids import ascii_words, word_spans

    tokenizer = TOKENIZERS[name]
    texts = [row.text for row in load_dataset("sst2_sample").splits["test"]] + TRICKY
    texts = [text for text in texts if text.isascii()]
    taken = 0
    for keep in (10_000, 7, 1):
        for text, found in zip(texts, ascii_words(tokenizer, texts, keep)):
            if found is None:
                continue
            taken += 1
            ids, sizes, spelt = found
            spans = word_spans(text)[:len(sizes)]
            assert spelt == [text[a:b] for a, b in spans]
            encoding = tokenizer.encode(text, add_special_tokens=False)
            assert ids == encoding.ids[:keep] and sum(sizes) == len(ids)
            if not ids:
                continue
            words, token_spans = whole_words(text, encoding, len(ids))
            assert sizes == [end - start for start, end in token_spans]
            assert [text[a:b] for a, b in spans] == words
    assert taken > len(texts)


def _tokenizers_words(tokenizer: Tokenizer, text: str) -> tuple[list[int], list[int], list[str]]:
    """A text's ids, its whole words' sizes and its words as `whole_words` finds them from the tokenizer's offsets."""
    from attentive.answer.words import whole_words

    encoding = tokenizer.encode(text, add_special_tokens=False)
    if not encoding.ids:
        return [], [], []
    words, token_spans = whole_words(text, encoding, len(encoding.ids))
    return encoding.ids, [end - start for start, end in token_spans], words


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_a_text_the_normaliser_makes_ascii_takes_the_words_lane_with_the_tokenizers_words(name):
    """SenTube's comments all begin with a byte-order mark, a tenth of SemEval-2013's tweets hold an ellipsis:
    `predict` reads their words in the lane too, each shown as the text spells it (a full-width word in full width,
    the ellipsis as one character), as the tokenizer's offsets show it."""
    from attentive.text.fast_ids import ascii_words

    tokenizer = TOKENIZERS[name]
    found = ascii_words(tokenizer, NORMALISED_TO_ASCII, 10_000)
    assert None not in found
    for text, words in zip(NORMALISED_TO_ASCII, found):
        assert tuple(words) == _tokenizers_words(tokenizer, text)
    assert found[2].words[0] == "\uff37\uff41\uff52\uff4d" and "\u2026" in found[1].words
    assert found[3].words[0] == "\ufb01ne"  # "fine" read from a ligature of two letters: the word as written


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=5))
def test_any_text_whose_words_the_lane_takes_gets_the_tokenizers_words(texts):
    from attentive.text.fast_ids import ascii_words

    for tokenizer in TOKENIZERS.values():
        for text, words in zip(texts, ascii_words(tokenizer, texts, 10_000)):
            if words is not None and words.ids:
                assert tuple(words) == _tokenizers_words(tokenizer, text)


def _one_by_one(lane, texts: list[str], keep: int) -> list:
    return [lane.words(text, keep) for text in texts]


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_a_call_s_words_read_at_once_are_those_read_one_by_one(name):
    """`FastIds.batch_words` (a call of BATCH_TEXTS texts or more: the `ChunkTable`) gives every text the lists
    `FastIds.words` gives it, whatever the cut: a text the table does not take (not ASCII, an added token, longer
    than its cut) is read one by one."""
    from attentive.text.fast_ids import BATCH_TEXTS, ascii_words

    lane = fast_lane(TOKENIZERS[name])
    texts = [row.text for row in load_dataset("sst2_sample").splits["test"]] + TRICKY + NORMALISED_TO_ASCII
    for keep in (10_000, 7, 1):
        assert lane.batch_words(texts, keep) == _one_by_one(lane, texts, keep)
        assert lane.batch_words(texts, keep) == _one_by_one(lane, texts, keep)  # the table read a second time
    assert len(texts) >= BATCH_TEXTS and ascii_words(TOKENIZERS[name], texts, 9) == _one_by_one(lane, texts, 9)
    assert lane.batch_words([], 9) == [] and lane.batch_words(["new new new", "new"], 9) == \
        _one_by_one(lane, ["new new new", "new"], 9)  # a chunk first seen three times in one call: added once
    assert list(lane.table.number).count("new") == 1


def test_a_full_chunk_table_reads_the_texts_it_cannot_hold_one_by_one(monkeypatch):
    import attentive.text.fast_ids as fast_ids

    lane = fast_lane(build_tokenizer(["a warm film", "a cold film"], min_frequency=1))
    lane.batch_words(["a warm film"], 9)
    monkeypatch.setattr(fast_ids, "MEMO_WORDS", len(lane.table.number))
    texts = ["a warm film", "a cold film", "warm film"]
    assert lane.batch_words(texts, 9) == _one_by_one(lane, texts, 9)
    assert "cold" not in lane.table.number


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=20),
       st.integers(1, 12))
def test_any_call_s_words_read_at_once_are_those_read_one_by_one(texts, keep):
    for tokenizer in TOKENIZERS.values():
        lane = fast_lane(tokenizer)
        assert lane.batch_words(texts, keep) == _one_by_one(lane, texts, keep)


def test_calls_from_several_threads_read_every_text_s_own_words():
    """The server's batchers share a model: calls adding new chunks at once from four threads (the interpreter
    switching threads every microsecond) still give each text its own lists."""
    import sys
    from concurrent.futures import ThreadPoolExecutor

    lane = fast_lane(build_tokenizer(["a warm film", "a cold film"], min_frequency=1))
    calls = [[f"word{call}x{i} film{i % 7} a{call % 3}" for i in range(40)] for call in range(16)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(lambda texts: lane.batch_words(texts, 50), calls))
    finally:
        sys.setswitchinterval(interval)
    assert found == [_one_by_one(lane, texts, 50) for texts in calls]
