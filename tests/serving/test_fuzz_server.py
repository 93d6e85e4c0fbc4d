"""Fuzzing the server (Hypothesis): whatever body a request carries (valid and malformed JSON, random Unicode with
lone surrogates, wrong types, huge numbers, deep nesting, empty texts, too many texts, unknown fields, bytes that are
not UTF-8, bodies over the limit, any content type), the answer is 200 with one answer a text, 413, or 422 with a
reason (401 without the key), never 500; no more of a body is read than the limit allows, however it is chunked; and
a good request batched with a bad one is answered 200."""
from __future__ import annotations

import asyncio
import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import event, given, settings
from hypothesis import strategies as st

import attentive
from attentive.serving.server import create_app

from ..helpers import copy_of_tiny_run

pytestmark = pytest.mark.slow  # fuzzing a running server

MAX_BODY, MAX_TEXTS, KEY = 6000, 8, "s3cret"


@pytest.fixture(scope="module")
def model(tiny_run, tmp_path_factory):
    return attentive.load(copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("fuzz_server") / "run"))


@pytest.fixture(scope="module")
def clients(model):
    """A client of the app without a key and one of the app with one (no batching window: fuzzing is sequential)."""
    apps = [create_app(model, api_key=key, max_body=MAX_BODY, max_texts=MAX_TEXTS, window_ms=0) for key in (None, KEY)]
    with TestClient(apps[0], raise_server_exceptions=False) as open_client, \
            TestClient(apps[1], raise_server_exceptions=False) as keyed_client:
        yield open_client, keyed_client


surrogates = st.integers(0xD800, 0xDFFF).map(chr)
texts = st.one_of(
    st.text(max_size=30), st.sampled_from(["", " ", "\n\t", "a film", "café ﬁlm", "\ufeff"]),
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=8), surrogates, st.text(max_size=8)))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.integers(-10**30, 10**30), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)), max_leaves=12)
queries = st.fixed_dictionaries({}, optional={
    "texts": st.one_of(st.lists(texts, max_size=MAX_TEXTS + 3), json_values),
    "pairs": st.one_of(st.none(), st.lists(texts, max_size=3), json_values),
    "aspects": st.one_of(st.none(), st.lists(texts, max_size=3), json_values),
    "top_k": st.one_of(st.integers(-5, 200), json_values),
    "unknown": json_values,
})
good_texts = st.text(min_size=1, max_size=40).filter(str.strip)
good_queries = st.fixed_dictionaries({"texts": st.lists(good_texts, min_size=1, max_size=MAX_TEXTS)},
                                     optional={"top_k": st.integers(0, 100)})


def serialized(value, ascii_only: bool) -> bytes:
    """JSON of `value`: lone surrogates as \\ud800 escapes (valid JSON), or raw (bytes that are not UTF-8)."""
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def corrupted(body: bytes, position: int, byte: int) -> bytes:
    return body[:position % len(body)] + bytes([byte]) + body[position % len(body) + 1:] if body else body


bodies = st.one_of(
    st.builds(serialized, st.one_of(queries, json_values), st.booleans()),
    st.builds(corrupted, st.builds(serialized, queries, st.booleans()), st.integers(0, 10**6), st.integers(0, 255)),
    st.binary(max_size=200),
    st.integers(1, 3000).map(lambda depth: b'{"texts": ' + b"[" * depth + b'"a"' + b"]" * depth + b"}"),
    st.integers(1, 3000).map(lambda depth: b"[" * depth),
    st.integers(4000, 5500).map(lambda digits: b'{"texts": ["a film"], "top_k": ' + b"9" * digits + b"}"),
    st.integers(MAX_BODY - 20, 3 * MAX_BODY).map(lambda size: b'{"texts": ["' + b"a" * size + b'"]}'),
)
content_types = st.sampled_from(["application/json", "application/json; charset=utf-8", None, "text/plain",
                                 "application/x-www-form-urlencoded", "multipart/form-data", "application/ld+json"])


def check_answer(status: int, payload, body: bytes) -> None:
    """200 with one answer a text, else a JSON reason."""
    if status == 200:
        assert isinstance(payload, list) and len(payload) == len(json.loads(body)["texts"])
        assert all(answer["label"] in ("negative", "positive") for answer in payload)
    else:
        assert isinstance(payload, dict) and isinstance(payload["detail"], str) and payload["detail"]


@settings(max_examples=2000, deadline=None, database=None)
@given(body=st.one_of(bodies, st.builds(serialized, good_queries, st.booleans())),
       path=st.sampled_from(["/predict", "/explain"]), content_type=content_types,
       key=st.sampled_from([None, None, None, "right", "none", "wrong"]))  # None: the app without a key
def test_every_body_gets_200_413_or_422_with_a_reason_never_500(clients, body, path, content_type, key):
    client = clients[key is not None]
    headers = {"X-API-Key": {"right": KEY, "wrong": "s3creT"}[key]} if key in ("right", "wrong") else {}
    if content_type is not None:
        headers["Content-Type"] = content_type
    response = client.post(path, content=body, headers=headers)
    event(f"status {response.status_code}")
    allowed = {401} if key in ("none", "wrong") else {200, 413, 422}
    assert response.status_code in allowed, (response.status_code, response.text)
    check_answer(response.status_code, response.json(), body)
    if len(body) > MAX_BODY and key in (None, "right"):
        assert response.status_code == 413


@settings(max_examples=200, deadline=None, database=None)
@given(query=good_queries, ascii_only=st.booleans(), content_type=st.sampled_from(
    ["application/json", "application/json; charset=utf-8", "application/vnd.api+json"]))
def test_a_good_query_sent_as_json_is_answered(clients, query, ascii_only, content_type):
    response = clients[0].post("/predict", content=serialized(query, ascii_only),
                               headers={"Content-Type": content_type})
    assert response.status_code == 200 and len(response.json()) == len(query["texts"])


async def asgi_post(app, body: bytes, chunk: int, declared: bool, path: str = "/predict") -> tuple[int, bytes, int]:
    """POST `body` to the ASGI `app` in chunks of `chunk` bytes, with a Content-Length or chunked: the status, the
    answer's body, and how many bytes of the request body the app pulled."""
    pieces = [body[i:i + chunk] for i in range(0, len(body), chunk)] or [b""]
    pulled, sent, answered = 0, [], asyncio.Event()

    async def receive() -> dict:
        nonlocal pulled
        if pulled < len(pieces):
            pulled += 1
            return {"type": "http.request", "body": pieces[pulled - 1], "more_body": pulled < len(pieces)}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            answered.set()

    headers = [(b"content-type", b"application/json")]
    headers.append((b"content-length", str(len(body)).encode()) if declared else (b"transfer-encoding", b"chunked"))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    await app(scope, receive, send)
    answer = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return sent[0]["status"], answer, sum(map(len, pieces[:pulled]))


@pytest.fixture(scope="module")
def asgi_app(model):
    return create_app(model, max_body=MAX_BODY, max_texts=MAX_TEXTS, window_ms=0)


@settings(max_examples=300, deadline=None, database=None)
@given(body=bodies, chunk=st.integers(1, 4096), declared=st.booleans())
def test_no_more_of_a_body_is_read_than_the_limit_however_it_is_chunked(asgi_app, body, chunk, declared):
    status, answer, pulled = asyncio.run(asgi_post(asgi_app, body, chunk, declared))
    assert status in (200, 413, 422)
    check_answer(status, json.loads(answer), body)
    assert pulled <= MAX_BODY + chunk
    if len(body) > MAX_BODY:
        assert status == 413 and (pulled == 0 if declared else pulled > MAX_BODY)


@pytest.fixture(scope="module")
def batching_app(model):
    return create_app(model, max_body=MAX_BODY, max_texts=MAX_TEXTS, window_ms=30)  # the two requests batch together


@settings(max_examples=150, deadline=None, database=None)
@given(good=good_queries, bad=bodies)
def test_a_good_request_batched_with_a_bad_one_is_answered(batching_app, good, bad):
    async def both():
        return await asyncio.gather(asgi_post(batching_app, serialized(good, True), 512, True),
                                    asgi_post(batching_app, bad, 512, True))

    (good_status, good_answer, _), (bad_status, bad_answer, _) = asyncio.run(both())
    assert good_status == 200 and len(json.loads(good_answer)) == len(good["texts"])
    assert bad_status in (200, 413, 422)
    check_answer(bad_status, json.loads(bad_answer), bad)
