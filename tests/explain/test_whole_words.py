"""Whole words everywhere (issue 34, item 1): a word the WordPiece fallback splits into pieces ("yucks" as `yu`
`##cks`) comes back as one word, its attention and every per-word score summed over its pieces, in the Python API,
the exported runtime, the CLI's table, --words, HTML, PNG and JSON, and the server's answers; a word-level
tokenizer's words come out as they did."""
from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
import torch
from tokenizers.processors import TemplateProcessing

import attentive
from attentive.answer.answerer import Need
from attentive.answer.inference import infer
from attentive.answer.outputs import explanation
from attentive.answer.types import Explanation
from attentive.cli import main
from attentive.data.batching import Item
from attentive.explain.deletion import deletion_test
from attentive.text.tokenizer import build_tokenizer, is_piece

from ..helpers import KEY, copy_of_tiny_run, hand_built_model

TEXT = "the movie yucks , an unapologetic mess"
SPLIT = ("yucks", "unapologetic")  # words the tokenizer splits into pieces


@pytest.fixture(scope="module")
def run(tiny_default_run, tmp_path_factory):
    """The session's tiny default model (word pieces, an n-gram channel), in a folder of this module's own."""
    return copy_of_tiny_run(tiny_default_run, tmp_path_factory.mktemp("whole") / "run")


@pytest.fixture(scope="module")
def model(run):
    return attentive.load(run)


def token_level(model, text: str):
    """The tokens and what the network computes for each, run by hand (no Explanation)."""
    inputs = model.inputs
    items, encodings = inputs.items(*inputs.expand([text]))
    [seen] = infer(model.network, items, need=Need.EVIDENCE).looked
    return encodings[0], seen


def pieces_of(encoding, word: str) -> list[int]:
    """The token positions of `word` (by the characters their offsets cover)."""
    start = TEXT.index(word)
    return [p for p, (a, b) in enumerate(encoding.offsets) if start <= a and b <= start + len(word)]


def test_the_text_holds_words_split_into_pieces(model):
    encoding, _ = token_level(model, TEXT)
    for word in SPLIT:
        positions = pieces_of(encoding, word)
        assert len(positions) > 1 and all(is_piece(encoding.tokens[p]) for p in positions[1:]), encoding.tokens
        assert word not in encoding.tokens


def test_the_api_shows_whole_words_with_their_pieces_summed(model):
    encoding, seen = token_level(model, TEXT)
    [e] = model.explain(TEXT)
    assert e.words == TEXT.split()
    assert e.attention.shape == (seen.attention.shape[0], len(e.words))
    for word in TEXT.split():
        j, positions = e.words.index(word), pieces_of(encoding, word)
        assert e.token_spans[j] == (positions[0], positions[-1] + 1)
        np.testing.assert_allclose(e.attention[:, j], seen.attention[:, positions].sum(1), atol=1e-6)
        np.testing.assert_allclose(e.polarity[j], seen.polarity[positions].sum(0), atol=1e-5)
        np.testing.assert_allclose(e.ngram_words[j], seen.ngram_words[positions].sum(0), atol=1e-6)
        # the score whose softmax is the word's weight: log-sum-exp of its pieces' scores
        np.testing.assert_allclose(e.scores[:, j], np.log(np.exp(seen.scores[:, positions]).sum(1)), atol=1e-5)
    # summed over words, every per-word value adds up to what it added up to over the tokens
    np.testing.assert_allclose(e.attention.sum(1), 1.0, atol=1e-5)
    np.testing.assert_allclose(e.polarity.sum(0), seen.polarity.sum(0), atol=1e-4)
    np.testing.assert_allclose(e.ngram_words.sum(0), seen.ngram_words.sum(0), atol=1e-5)
    np.testing.assert_allclose(e.ngram_words.sum(0), e.channels["ngrams"], atol=1e-4)
    exp = np.exp(e.scores)
    np.testing.assert_allclose(exp / exp.sum(1, keepdims=True), e.attention, atol=1e-5)
    top = dict(e.prediction.top_words)
    assert set(top) <= set(TEXT.split()) and 1 <= len(top) <= 5  # the words of evidence above 0, at most five
    assert all(value > 0 for value in top.values())
    [prediction] = model.predict(TEXT, top_k=7)
    assert [w for w, _ in prediction.top_words][:5] == [w for w, _ in e.prediction.top_words]  # one ranking
    assert set(dict(prediction.top_words)) <= set(TEXT.split())  # whole words, of evidence above 0
    assert all(value > 0 for _, value in prediction.top_words)


def test_the_exported_runtime_gives_the_same_words_and_weights(model, tmp_path):
    from attentive.answer import onnx_backend
    from attentive.onnx_format.write import export

    [e] = model.explain(TEXT)
    [r] = onnx_backend.load(export(model, tmp_path / "onnx")).explain(TEXT)
    assert r.words == e.words == TEXT.split() and r.token_spans == e.token_spans
    np.testing.assert_allclose(r.attention, e.attention, atol=1e-5)
    assert [w for w, _ in r.prediction.top_words] == [w for w, _ in e.prediction.top_words]


def test_the_cli_table_words_html_png_and_json_show_whole_words(run, tmp_path, capsys, monkeypatch):
    import matplotlib.axes

    shown: list = []
    set_yticks = matplotlib.axes.Axes.set_yticks
    monkeypatch.setattr(matplotlib.axes.Axes, "set_yticks",
                        lambda self, ticks, labels=None, **kw: (shown.extend(labels or []),
                                                                set_yticks(self, ticks, labels, **kw))[1])
    page, png = tmp_path / "e.html", tmp_path / "e.png"
    assert main(["explain", str(run), TEXT, "--words", "--html", str(page), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert png.stat().st_size > 0 and shown == TEXT.split()
    html = page.read_text()
    for word in SPLIT:
        assert out.count(word) >= 2  # the heatmap row and the --words table
        assert word in html
    assert "##" not in out and "##" not in html
    for piece in ("yu", "una", "pol", "oge", "tic"):
        assert f" {piece} " not in out and f">{piece}<" not in html and f">{piece} " not in html
    assert main(["predict", str(run), TEXT, "--top-k", "7"]) == 0
    [answer] = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert answer["top_words"] and {word for word, _ in answer["top_words"]} <= set(TEXT.split())  # whole words


@pytest.mark.slow  # starts a server process
def test_the_server_answers_with_whole_words(run):
    from ..helpers import start

    process, url = start(run)
    try:
        [explained] = httpx.post(f"{url}/explain", json={"texts": [TEXT], "top_k": 7}).json()
        [predicted] = httpx.post(f"{url}/predict", json={"texts": [TEXT], "top_k": 7}).json()
        page = httpx.get(url).text
    finally:
        process.terminate()
        process.wait(10)
    assert explained["words"] == TEXT.split()
    assert all(len(head) == len(explained["words"]) for head in explained["attention"])
    assert len(explained["summed"]) == len(explained["words"]) and abs(sum(explained["summed"]) - 1) < 1e-3
    assert explained["top_words"] == predicted["top_words"] and 0 < len(predicted["top_words"]) <= 7  # above 0
    assert {word for word, _ in predicted["top_words"]} <= set(TEXT.split())
    assert "answer.words" in page  # the page draws the answer's words, whole as they come


def test_a_word_level_tokenizer_and_special_tokens_come_out_as_before():
    tokenizer = build_tokenizer(["a good film , a bad film"] * 3, min_frequency=1)
    tokenizer.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 0),
                                                                                             ("[SEP]", 1)])
    text = "a good film , a zzz"
    encoding = tokenizer.encode(text)
    assert encoding.word_ids[0] is None and encoding.word_ids[-1] is None
    length = len(encoding.ids)
    rng = np.random.default_rng(0)
    attention, scores = rng.random((2, length)), rng.normal(size=(2, length))
    polarity = rng.normal(size=(length, 2))
    e = explanation(text, encoding, Item(encoding.ids), ["neg", "pos"], np.array([0.3, 0.7]), attention,
                    scores=scores, polarity=polarity, channels={"ngrams": np.ones(2)})
    assert e.words == [text[a:b] for a, b in encoding.offsets] == ["", "a", "good", "film", ",", "a", "zzz", ""]
    assert e.token_spans == [(p, p + 1) for p in range(length)]
    assert e.attention is attention and e.scores is scores and e.polarity is polarity


def test_a_word_of_pieces_is_one_entry_beside_special_tokens():
    tokenizer = build_tokenizer(["a good film"] * 3, min_frequency=1, pieces=["zz", "##zz", "##z"])
    tokenizer.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 0),
                                                                                             ("[SEP]", 1)])
    text = "a zzzzz film"
    encoding = tokenizer.encode(text)
    assert encoding.tokens[2:5] == ["zz", "##zz", "##z"], encoding.tokens
    length = len(encoding.ids)
    attention = np.arange(1.0, length + 1)[None]
    e = explanation(text, encoding, Item(encoding.ids), ["neg", "pos"], np.array([0.3, 0.7]), attention,
                    polarity=np.ones((length, 2)))
    assert e.words == ["", "a", "zzzzz", "film", ""]
    assert e.token_spans == [(0, 1), (1, 2), (2, 5), (5, 6), (6, 7)]
    np.testing.assert_array_equal(e.attention, [[1, 2, 3 + 4 + 5, 6, 7]])
    np.testing.assert_array_equal(e.polarity[:, 0], [1, 1, 3, 1, 1])
    assert isinstance(e, Explanation)


def test_the_deletion_test_removes_whole_words():
    model = hand_built_model()
    item = Item([2, 3, KEY, 4, 6, 7, 8, 9])
    words = [(0, 1), (1, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8)]  # tokens 3 and KEY: one word
    out = model(torch.tensor([item.ids]), torch.ones(1, 8, dtype=torch.bool))
    tokens = out.attention[0, 0].detach().numpy()
    weights = np.array([tokens[a:b].sum() for a, b in words])
    result = deletion_test(model, [item, Item([KEY, 3])], [weights, np.array([1.0])], steps=(1, "10%"),
                           words=[words, [(0, 2)]])
    assert result["texts"] == 1 and result["one_word_texts_left_out"] == 1  # one word of two pieces: left out
    rows = {(r["ranking"], r["step"]): r for r in result["rows"]}
    assert rows[("attention", "1")]["flip_rate"] == 1.0 and rows[("gradient", "1")]["flip_rate"] == 1.0
    assert rows[("attention", "10%")]["k_mean"] == 1.0  # 10% of 7 words
