"""A bad text fails alone, and every input is bounded (issue 31, findings 2, 3, 6 and 7, their server and text parts):
a text that is not valid Unicode is its own one-line error (CLI) or its own request's 422 (server), never its
neighbours'; `predict --input` lines are read up to a size, deep nesting and overlong numbers are that line's error;
request bodies are capped while they stream; whole texts are read up to MAX_TOKENS tokens; the server's key, errors,
metrics and ports follow the conventions; BOM and FIFO input is read."""
from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

import attentive
import attentive.api
from attentive.cli import main
from attentive.scoring.input_lines import MAX_LINE_BYTES, BadLine, jsonl_records
from attentive.serving.server import MicroBatcher, create_app
from attentive.text.encoding import MAX_TOKENS, encode_batch

from ..helpers import tiny_overrides

GOOD = {"texts": ["a gorgeous , witty film"]}


@pytest.fixture(scope="module")
def model(sst2_small, tmp_path_factory):
    """A tiny model reading whole texts (`max_length: null`, as the default recipe does)."""
    out = tmp_path_factory.mktemp("bad_texts") / "run"
    return attentive.train(sst2_small, "lama_ctx", out, show_progress=False,
                           overrides=tiny_overrides("lama_ctx") + ["train.epochs=1", "tokenizer.max_length=null"])


@pytest.fixture
def loaded_once(model, monkeypatch):
    """The CLI's `load` answers with the fixture's model (load once, test the input path)."""
    monkeypatch.setattr(attentive.api, "load", lambda folder, device=None: model)
    return model


def cli(capsys, *args) -> tuple[int, list, list[str]]:
    """Exit status, the JSON lines printed, and the lines of stderr of `attentive ARGS`."""
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines() if line], err.strip().splitlines()


# A bad text fails alone (finding 2)

def test_a_lone_surrogate_fails_only_its_own_request_not_the_15_batched_with_it(model):
    app = create_app(model, window_ms=200)  # a wide window: the 16 requests are batched together
    bodies = [b'{"texts": ["bad \\ud800 x"]}'] + [json.dumps({"texts": [f"film {i} is fine"]}).encode()
                                                  for i in range(15)]
    start = threading.Barrier(len(bodies))
    with TestClient(app, raise_server_exceptions=False) as client:
        def post(body: bytes):
            start.wait()
            return client.post("/predict", content=body, headers={"Content-Type": "application/json"})

        with ThreadPoolExecutor(len(bodies)) as pool:
            bad, *innocent = pool.map(post, bodies)
    assert bad.status_code == 422 and "text 1 is not valid Unicode: lone surrogate U+D800" in bad.json()["detail"]
    assert [response.status_code for response in innocent] == [200] * 15


class PoisonedModel:
    """A model whose call fails whenever a batch holds the text "poison" (a failure no check foresaw)."""

    def __init__(self):
        self.calls = []

    def explain(self, texts, pairs=None, aspects=None):
        self.calls.append(list(texts))
        if "poison" in texts:
            raise RuntimeError("the model failed")
        return [f"answer to {text}" for text in texts]


def test_a_batch_the_model_fails_on_is_answered_request_by_request():
    model = PoisonedModel()
    batcher = MicroBatcher(lambda texts, top_k: model.explain(texts), window_s=0.05, max_batch=64)

    async def ask_all():
        return await asyncio.gather(*(batcher.answer([text], None, [None]) for text in ("one", "poison", "two")),
                                    return_exceptions=True)

    one, poison, two = asyncio.run(ask_all())
    assert model.calls[0] == ["one", "poison", "two"]  # they were batched together
    assert one == ["answer to one"] and two == ["answer to two"] and isinstance(poison, RuntimeError)


def test_a_merged_batch_is_answered_with_the_most_top_words_any_of_its_requests_asks_for():
    asked = []

    def call(texts, top_k):
        asked.append((list(texts), top_k))
        return [f"answer to {text}" for text in texts]

    batcher = MicroBatcher(call, window_s=0.05, max_batch=64)

    async def ask_all():
        return await asyncio.gather(*(batcher.answer([text], None, [None], top_k) for text, top_k
                                      in (("one", 2), ("two", 7), ("three", 0))))

    assert asyncio.run(ask_all()) == [["answer to one"], ["answer to two"], ["answer to three"]]
    assert asked == [(["one", "two", "three"], 7)]


def test_a_long_text_is_batched_alone_so_that_short_ones_do_not_wait_with_it():
    model = PoisonedModel()
    batcher = MicroBatcher(lambda texts, top_k: model.explain(texts), window_s=0.05, max_batch=64, max_chars=1000)
    texts = ["short one", "x" * 5000, "short two", "short three"]

    async def ask_all():
        return await asyncio.gather(*(batcher.answer([text], None, [None]) for text in texts))

    assert asyncio.run(ask_all()) == [[f"answer to {text}"] for text in texts]
    assert model.calls == [["short one"], ["x" * 5000], ["short two", "short three"]]


def test_an_undecodable_command_line_text_is_a_one_line_error_after_the_good_ones(loaded_once, capsys):
    # `attentive predict RUN good $'caf\xe9'`: Python gives the undecodable byte as the lone surrogate U+DCE9
    status, answers, err = cli(capsys, "predict", loaded_once.folder, "a good film", "caf\udce9")
    assert status == 2 and len(answers) == 1 and len(err) == 1
    assert "text:2: not valid Unicode: lone surrogate U+DCE9 at character 4" in err[0]
    assert "internal error" not in err[0]


BAD_LINES = {"a lone surrogate": b'{"text": "bad \\ud800 x"}', "deep nesting": b"[" * 100_000,
             "a 5,000-digit integer": b'{"text": "fine", "id": ' + b"7" * 5000 + b"}",
             "a lone surrogate in another field": b'{"text": "fine", "id": "\\udc00"}'}


@pytest.mark.parametrize("bad_line", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_a_bad_input_line_is_its_own_error_after_the_good_line_before_it(loaded_once, bad_line, tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"text": "a good film"}\n' + bad_line + b'\n{"text": "a dull film"}\n')
    status, answers, err = cli(capsys, "predict", loaded_once.folder, "--input", source)
    assert status == 2 and [a["text"] for a in answers] == ["a good film"]
    assert len(err) == 1 and "in.jsonl:2:" in err[0] and "internal error" not in err[0]
    status, answers, err = cli(capsys, "predict", loaded_once.folder, "--input", source, "--on-error", "skip")
    assert status == 0 and [a["text"] for a in answers] == ["a good film", "a dull film"]
    assert "in.jsonl:2:" in err[0] and "(skipped)" in err[0]


# Bounds (finding 3)

def test_a_chunked_body_over_the_limit_is_refused_without_reading_it_all(model):
    app, chunk, pulled = create_app(model, max_body=1_000_000), b"x" * 65_536, 0
    messages = []

    async def receive() -> dict:  # a 2 MB chunked body (no Content-Length), counted as it is pulled
        nonlocal pulled
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": pulled < 2_000_000}

    async def send(message: dict) -> None:
        messages.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/predict", "raw_path": b"/predict", "root_path": "", "query_string": b"",
             "headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    asyncio.run(app(scope, receive, send))
    assert messages[0]["status"] == 413 and b"body over 1000000 bytes" in messages[1]["body"]
    assert pulled <= 1_000_000 + len(chunk)


def test_a_whole_text_model_reads_a_long_text_up_to_max_tokens(model):
    long = "a good film . " * 5000  # 20,000 tokens
    [explained] = model.explain([long])
    assert model.max_length is None and len(explained.words) == MAX_TOKENS


class Spy:
    """A tokenizer that records the length of every text it is given."""

    def __init__(self, tokenizer):
        self.tokenizer, self.lengths = tokenizer, []

    def encode_batch(self, texts, add_special_tokens=False):
        self.lengths += map(len, texts)
        return self.tokenizer.encode_batch(texts, add_special_tokens=add_special_tokens)

    def encode(self, text, add_special_tokens=False):
        self.lengths.append(len(text))
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens)


def test_a_megabyte_text_is_tokenized_only_as_far_as_it_is_read(model):
    spy, long = Spy(model.tokenizer), "a good film . " * 80_000  # 1.1 MB
    [encoding] = encode_batch(spy, [long], None)
    assert encoding.ids[:MAX_TOKENS] == model.tokenizer.encode(long).ids[:MAX_TOKENS]
    assert max(spy.lengths) < len(long) / 5


WORDS = st.sampled_from(["a", "good", "film", "unwatchable", ".", ",", "café", "ﬁlm", "e\u0301", "Ａ", "日本語", "!!",
                         "x" * 40, "zzqx", "\u200b", "\ufeff"])
TEXTS = st.lists(st.tuples(WORDS, st.sampled_from(["", " ", "  ", "\n"])), max_size=80).map(
    lambda parts: "".join(word + space for word, space in parts))


@settings(max_examples=300, deadline=None, database=None)
@given(text=TEXTS, max_length=st.integers(1, 12), truncating=st.booleans())
def test_reading_a_prefix_gives_the_tokens_and_offsets_of_the_whole_text(model, text, max_length, truncating):
    tokenizer = Tokenizer.from_str(model.tokenizer.to_str())
    if truncating:  # as the pretrained tokenizer does
        tokenizer.enable_truncation(max_length)
    [prefix] = encode_batch(tokenizer, [text], max_length)
    whole = tokenizer.encode(text)
    assert prefix.ids[:max_length] == whole.ids[:max_length]
    assert prefix.offsets[:max_length] == whole.offsets[:max_length]
    [ids_alone] = encode_batch(tokenizer, [text], max_length, offsets=False)  # predict_proba's and training's
    assert ids_alone.ids[:max_length] == whole.ids[:max_length]


def test_an_input_line_over_the_limit_is_a_bad_line_never_read_whole(tmp_path):
    source = tmp_path / "in.jsonl"
    size = 5 * MAX_LINE_BYTES
    with source.open("wb") as handle:
        handle.write(b'{"text": "before"}\n{"text": "')
        handle.truncate(handle.tell() + size)  # a 50 MB line of zero bytes
        handle.seek(0, os.SEEK_END)
        handle.write(b'"}\n{"text": "after"}\n')
    tracemalloc.start()
    try:
        items = list(jsonl_records(source, ("text",)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [item[1]["text"] for item in (items[0], items[2])] == ["before", "after"]
    assert items[1] == BadLine(str(source), 2, f"line over {MAX_LINE_BYTES:,} bytes, the most a line may hold")
    assert peak < 2.5 * MAX_LINE_BYTES


def test_endless_input_stops_at_its_first_line_over_the_limit(loaded_once, capsys):
    status, answers, err = cli(capsys, "predict", loaded_once.folder, "--input", "/dev/zero")
    assert status == 2 and answers == []
    assert err == [f"error: /dev/zero:1: line over {MAX_LINE_BYTES:,} bytes, the most a line may hold"]



def test_explain_also_stops_reading_endless_input_at_its_first_bad_line(loaded_once, capsys):
    status, answers, err = cli(capsys, "explain", loaded_once.folder, "--input", "/dev/zero")
    assert status == 2
    assert err == [f"error: /dev/zero:1: line over {MAX_LINE_BYTES:,} bytes, the most a line may hold"]

# Server conventions (findings 6 and 7)

def test_the_api_key_is_taken_from_the_header_and_as_key_only_for_the_page(model):
    with TestClient(create_app(model, api_key="secret"), raise_server_exceptions=False) as client:
        assert client.post("/predict?key=secret", json=GOOD).status_code == 401
        assert client.get("/info?key=secret").status_code == 401
        assert client.post("/predict", json=GOOD, headers={"X-API-Key": "secreT"}).status_code == 401
        assert client.post("/predict", json=GOOD, headers={"X-API-Key": "secret"}).status_code == 200
        assert client.get("/info", headers={"X-API-Key": "secret"}).status_code == 200
        assert client.get("/?key=secret").status_code == 200 and client.get("/?key=wrong").status_code == 401


class Broken:
    """The fixture's model, but its every answer fails with a bug."""

    def __init__(self, model):
        self.model = model

    def __getattr__(self, name):
        return getattr(self.model, name)

    def explain(self, *args, **kwargs):
        raise RuntimeError("a bug")

    predict = explain


def test_an_unhandled_error_is_a_json_500_counted_in_the_metrics(model):
    with TestClient(create_app(Broken(model)), raise_server_exceptions=False) as client:
        response = client.post("/predict", json=GOOD)
        assert response.status_code == 500 and "internal error (RuntimeError)" in response.json()["detail"]
        assert client.get("/health").status_code == 200  # still answering
        metrics = client.get("/metrics").text
    assert 'attentive_requests_total{path="/predict",status="500"} 1.0' in metrics
    assert 'attentive_errors_total{path="/predict"} 1.0' in metrics


@pytest.mark.parametrize("body, reason", [
    (b"not json", "body: malformed JSON (Expecting value at character 0)"),
    (b"[" * 5000, "body: JSON nested too deeply"),
    (b'{"texts": ["a film"], "top_k": ' + b"9" * 5000 + b"}", "Exceeds the limit (4300 digits)"),
    (b'{"texts": ["caf\xe9"]}', "body: not UTF-8 text"),
])
def test_a_body_that_is_not_readable_json_is_a_422_with_the_reason(model, body, reason):
    with TestClient(create_app(model), raise_server_exceptions=False) as client:
        response = client.post("/predict", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and reason in response.json()["detail"]


def test_json_sent_without_a_json_content_type_is_a_422_saying_which_to_send(model):
    with TestClient(create_app(model), raise_server_exceptions=False) as client:
        response = client.post("/predict", content=json.dumps(GOOD).encode(), headers={"Content-Type": "text/plain"})
    assert response.status_code == 422
    assert response.json()["detail"] == ("body: not sent as JSON (Content-Type: text/plain); send it with "
                                         "Content-Type: application/json")


def test_a_port_out_of_range_is_one_line_before_anything_says_serving(model, capsys):
    status, _, err = cli(capsys, "serve", model.folder, "--port", "80000")
    assert status == 2 and err == ["error: --port 80000: give a port from 1 to 65535"]


def test_a_port_in_use_is_one_line_before_anything_says_serving(model, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        capsys.readouterr()
        status = main(["serve", str(model.folder), "--port", str(port)])
        out, err = capsys.readouterr()
    assert status == 2 and "serving" not in out + err
    assert err.strip().splitlines() == [f"error: cannot serve on 127.0.0.1:{port}: already in use: stop what serves "
                                        "there or choose another --port"]


# CLI input conventions (finding 7)

def test_a_jsonl_file_starting_with_a_byte_order_mark_is_read(loaded_once, tmp_path, capsys):
    source = tmp_path / "bom.jsonl"
    source.write_bytes(b'\xef\xbb\xbf{"text": "a good film"}\n{"text": "a dull film"}\n')
    status, answers, _ = cli(capsys, "predict", loaded_once.folder, "--input", source)
    assert status == 0 and [a["text"] for a in answers] == ["a good film", "a dull film"]


def test_a_named_pipe_is_read_as_input(loaded_once, tmp_path, capsys):
    pipe = tmp_path / "texts.fifo"
    os.mkfifo(pipe)

    def write() -> None:
        with open(pipe, "wb") as handle:  # blocks until predict opens the pipe
            handle.write(b'{"text": "a good film"}\n{"text": "a dull film"}\n')

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    status, answers, err = cli(capsys, "predict", loaded_once.folder, "--input", pipe)
    writer.join(10)
    assert status == 0 and [a["text"] for a in answers] == ["a good film", "a dull film"], err
