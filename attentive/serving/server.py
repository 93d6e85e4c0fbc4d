"""`attentive serve RUN`: a FastAPI app over a trained or exported model.

- `POST /predict`, `POST /explain`: {"texts": [...], "pairs": [...]?, "aspects": [...]?, "top_k": 5} -> the same JSON
  as the CLI (one answer per text, or per text and aspect; a multi-label model's answers carry `labels`, every label
  at or above its threshold, and /explain its `label_words`). Concurrent requests are micro-batched: the first waits
  up to `window_ms` for others, up to `max_batch` texts and `max_batch_chars` characters in all (a bound on their
  tokens; a request over it is answered alone), and the model answers them in one call: `predict` for /predict's
  batches (no words found where `top_k` is 0; `"top_words_by"` as `predict`'s, each ranking in batches of its own),
  `explain` for /explain's.
- `/predict`'s top words and /explain's `evidence` are one quantity, named in one sentence with its unit in /info's
  `evidence` (attentive/answer/types.py EVIDENCE_MEANING): the top words are the words of most evidence above 0.
- `/predict`'s `"abstain_below": P` (default: the model's own, where `attentive abstain` chose one): an answer whose
  most probable label's probability is below P says "none of these": `"label": null, "abstained": true`
  (attentive/answer/abstain.py).
- `GET /health`, `GET /info` (labels, recipe, aspects, versions, a multi-label model's `thresholds`, the deletion test
  run at the end of training,
  `faithfulness` with its `faithfulness_line`, where the model has it; an export's `graph`, the one answering),
  `GET /metrics` (Prometheus text: requests by path and status, errors, latency histogram), `GET /` (the page:
  attentive/page.html, self-contained), `GET /openapi.json` (the API's schema; FastAPI's /docs and /redoc pages,
  which load their scripts from a CDN, are not served).
- A body is read strictly (`Query`): an unknown field or a value of another type is 422 naming the field.
- Limits with clear answers: a body over `max_body` bytes is 413, found while the body streams in (chunked too: no
  more than `max_body` bytes are ever read); a body that is not JSON, an empty text or one that is not valid Unicode
  (a `\\ud800` escape), more than `max_texts` texts or an unknown aspect are 422 with the reason. Every text of a
  request is checked before it joins a batch, and once (its texts and aspects' Unicode by `Query`'s validators, the
  rest by `Inputs.expand`; the batch is answered `Expanded`), so a bad text fails only its own request; and should
  the model still fail on a merged batch, each of its requests is answered alone, so that only the guilty one fails.
  An unexpected error is a 500 with a JSON reason, counted in /metrics, and logged with its traceback.
- With an API key every request must carry it in the `X-API-Key` header (compared in constant time); the page alone
  (`GET /`) may take it as `?key=`, and sends it on in the header.
"""
from __future__ import annotations

import asyncio
import errno
import hmac
import logging
import socket
import time
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from ..answer.abstain import abstain
from ..answer.answerer import AUTO, TOP_WORDS_BY
from ..answer.inputs import Checked, Expanded, text_problem, unicode_problem
from ..answer.types import EVIDENCE_MEANING, faithfulness_line
from ..errors import AttentiveError
from ..version import __version__

PAGE = Path(__file__).with_name("page.html")
MAX_BATCH_CHARS = 100_000  # characters of text a micro-batch gathers from several requests
log = logging.getLogger("attentive.serving.server")


class Query(BaseModel):
    """A request's body. Strict: a field it does not know (a misspelt "topk", a "threshold") and a value of another
    type (`"top_k": true`, `"texts": "one text"`) are 422 naming the field, never ignored nor converted."""

    model_config = ConfigDict(extra="forbid", strict=True)

    texts: list[str] = Field(min_length=1)
    pairs: list[str] | None = None
    aspects: list[str] | None = None
    top_k: int = Field(5, ge=0, le=100)
    top_words_by: Literal[TOP_WORDS_BY] = AUTO  # /predict's top words (Answerer.predict)
    abstain_below: float | None = Field(None, ge=0, le=1)  # /predict: "none of these" below it (answer/abstain.py)

    @field_validator("texts", "pairs")
    @classmethod
    def classifiable(cls, texts: list[str] | None, info: ValidationInfo) -> list[str] | None:
        """Each text (second text) a non-blank string of valid Unicode (attentive.answer.inputs.text_problem)."""
        what = "text" if info.field_name == "texts" else "second text"
        for number, text in enumerate(texts or [], start=1):
            if (problem := text_problem(text)) is not None:
                raise ValueError(f"{what} {number} is {problem}")
        return texts

    @field_validator("aspects")
    @classmethod
    def valid_unicode(cls, aspects: list[str] | None) -> list[str] | None:
        for number, aspect in enumerate(aspects or [], start=1):
            if (problem := unicode_problem(aspect)) is not None:
                raise ValueError(f"aspect {number} is {problem}")
        return aspects


@dataclass
class Pending:
    """A request waiting for its answers: one (text, pair, aspect) per answer, as `_expanded` made them, and how many
    top words it asks for."""

    texts: list[str]
    pairs: list[str] | None
    aspects: list
    future: asyncio.Future
    top_k: int = 5

    @property
    def chars(self) -> int:
        return sum(map(len, self.texts)) + sum(map(len, self.pairs or ()))


class MicroBatcher:
    """Collects concurrent requests for a short window and answers them with one call of `call` (in a worker thread):
    up to `max_batch` answers and `max_chars` characters of text, so that a long text does not hold many short ones (a
    request over either bound is answered alone). If the call fails on a merged batch, each of its requests is
    answered alone, so that a request the model cannot answer fails only itself. `call(texts, top_k)` answers the
    batch's texts (`Expanded`) with the most top words any of its requests asks for: a request's own `top_k` words are
    the first of them (the words are sorted by what they rank by, ties in word order)."""

    def __init__(self, call: Callable[[Expanded, int], list], window_s: float, max_batch: int,
                 max_chars: int = MAX_BATCH_CHARS):
        self.call, self.window_s, self.max_batch, self.max_chars = call, window_s, max_batch, max_chars
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue[Pending] | None = None
        self.held: Pending | None = None  # a request that did not fit the last batch: the next one starts with it

    async def answer(self, texts: list[str], pairs: list[str] | None, aspects: list, top_k: int = 5) -> list:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # the first request, or a new event loop (a test client's): a worker of its own
            self.loop, self.queue, self.held = loop, asyncio.Queue(), None
            loop.create_task(self._work())
        future = loop.create_future()
        await self.queue.put(Pending(texts, pairs, aspects, future, top_k))
        return await future

    async def _work(self) -> None:
        while True:
            batch = await self._gathered()
            try:
                await self._answer(batch)
            except Exception as exc:  # a bug here must not stop the worker: the batch hears of it, the next goes on
                _fail(batch, exc)

    async def _gathered(self) -> list[Pending]:
        """The next batch: the held request or the next in the queue, then those arriving within the window, while
        they fit."""
        loop = asyncio.get_running_loop()
        first = self.held or await self.queue.get()
        self.held = None
        batch, size, chars = [first], len(first.texts), first.chars
        deadline = loop.time() + self.window_s
        while size < self.max_batch and chars < self.max_chars and (left := deadline - loop.time()) > 0:
            try:
                pending = await asyncio.wait_for(self.queue.get(), left)
            except asyncio.TimeoutError:
                break
            if size + len(pending.texts) > self.max_batch or chars + pending.chars > self.max_chars:
                self.held = pending
                break
            batch.append(pending)
            size, chars = size + len(pending.texts), chars + pending.chars
        return batch

    async def _answer(self, batch: list[Pending]) -> None:
        batch = [pending for pending in batch if not pending.future.done()]  # a client that went away is cancelled
        if not batch:
            return
        texts = [t for p in batch for t in p.texts]
        pairs = [t for p in batch for t in p.pairs] if batch[0].pairs is not None else None
        aspects = [a for p in batch for a in p.aspects]
        top_k = max(pending.top_k for pending in batch)
        try:
            answers = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.call(Expanded(texts, pairs, aspects), top_k))
        except Exception as exc:
            if len(batch) == 1:
                _fail(batch, exc)
            else:  # answered one by one, so that only a request the model cannot answer fails
                for pending in batch:
                    await self._answer([pending])
            return
        start = 0
        for pending in batch:
            if not pending.future.done():
                pending.future.set_result(answers[start:start + len(pending.texts)])
            start += len(pending.texts)


def _fail(batch: list[Pending], exc: Exception) -> None:
    for pending in batch:
        if not pending.future.done():
            pending.future.set_exception(exc)


def _expanded(model, query: Query) -> tuple[list[str], list[str] | None, list]:
    """One (text, pair, aspect) per answer, checked before it joins a batch (so one bad request fails alone): what
    `Query`'s validators checked is not checked again."""
    return model.inputs.expand(query.texts, query.pairs, query.aspects, checked=Checked.TEXTS | Checked.ASPECTS)


def address(host: str, port: int) -> str:
    """The server's address as a URL: an IPv6 host in brackets (http://[::1]:8000/)."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host`:`port` and listening, for uvicorn to serve on (bound here, before anything says
    it is serving, so that a bad port is one line: an AttentiveError)."""
    if not 1 <= port <= 65535:
        raise AttentiveError(f"--port {port}: give a port from 1 to 65535")
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise AttentiveError(f"--host {host}: cannot resolve it ({err.strerror})") from None
    sock = socket.socket(family, kind, protocol)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart need not wait
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        sock.close()
        reason = "already in use: stop what serves there or choose another --port" if err.errno == errno.EADDRINUSE \
            else (err.strerror or str(err))
        raise AttentiveError(f"cannot serve on {host}:{port}: {reason}") from None
    return sock


def _prediction_json(prediction, top_k: int) -> dict:
    """The CLI's JSON for one answer (a `Prediction`): label, probabilities, the `top_k` top words (and the
    aspect)."""
    answer = prediction.as_dict()
    answer["top_words"] = answer["top_words"][:top_k]
    return answer


def _explanation_json(explanation, top_k: int) -> dict:
    """`_prediction_json` plus the words, each head's attention over them, the summed view, each word's signed
    `evidence` and the `channels`' margins and evidence (attentive.answer.types.Explanation.as_dict)."""
    return explanation.as_dict(top_k)


def _error(status: int, reason: str) -> JSONResponse:
    """An error answer, {"detail": reason}; a reason quoting the request keeps characters UTF-8 cannot encode as
    escapes, so that the answer itself cannot fail."""
    return JSONResponse({"detail": reason.encode("utf-8", "backslashreplace").decode("utf-8")}, status_code=status)


def _reason(error: dict) -> str:
    """One validation error as "field: problem" (pydantic's or FastAPI's error dict)."""
    if error["type"] == "json_invalid":
        return f"body: malformed JSON ({error.get('ctx', {}).get('error', 'cannot decode')} at character " \
               f"{error['loc'][-1]})"
    return f"{'.'.join(map(str, error['loc'][1:])) or 'body'}: {error['msg']}"


def _unreadable(cause: BaseException | None) -> str:
    """Why a body FastAPI could not parse is not JSON it can read."""
    if isinstance(cause, RecursionError):
        return "JSON nested too deeply"
    if isinstance(cause, UnicodeDecodeError):
        return f"not UTF-8 text ({cause.reason} at byte {cause.start})"
    if isinstance(cause, ValueError):  # an integer over Python's digit limit for conversion
        return f"unreadable JSON ({str(cause).split(';')[0]})"
    return "unreadable JSON"


def _key_matches(request: Request, expected: bytes) -> bool:
    """Whether the request carries the API key: in the X-API-Key header, or as `?key=` for the page (GET /) alone;
    compared in constant time."""
    given = request.headers.get("x-api-key")
    if given is not None:
        return hmac.compare_digest(given.encode("latin-1"), expected)  # the header's bytes, as sent
    if request.method == "GET" and request.url.path == "/" and "key" in request.query_params:
        return hmac.compare_digest(request.query_params["key"].encode("utf-8", "surrogateescape"), expected)
    return False


async def _body_within(request: Request, max_body: int) -> bytes | None:
    """The request's body, read as it streams in, or None as soon as it holds more than `max_body` bytes (the rest
    is never read)."""
    chunks, size = [], 0
    async with aclosing(request.stream()) as stream:
        async for chunk in stream:
            size += len(chunk)
            if size > max_body:
                return None
            chunks.append(chunk)
    return b"".join(chunks)


def create_app(model, api_key: str | None = None, max_body: int = 1_000_000, max_texts: int = 256,
               window_ms: float = 5.0, max_batch: int = 64, max_batch_chars: int = MAX_BATCH_CHARS) -> FastAPI:
    """The app serving `model` (an `attentive.Model` or an exported `attentive.answer.onnx_backend.RuntimeModel`)."""
    app = FastAPI(title="attentive", version=__version__, docs_url=None, redoc_url=None)  # their pages load
    #   scripts from a CDN: the API is described by /openapi.json alone
    registry = CollectorRegistry()
    requests = Counter("attentive_requests", "HTTP requests", ["path", "status"], registry=registry)
    errors = Counter("attentive_errors", "requests answered with an error status", ["path"], registry=registry)
    latency = Histogram("attentive_request_seconds", "request latency", ["path"], registry=registry,
                        buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5))
    predicting = {by: MicroBatcher(lambda texts, top_k, by=by: model.predict(texts, top_k=top_k, top_words_by=by),
                                   window_ms / 1000, max_batch, max_batch_chars)
                  for by in TOP_WORDS_BY}  # /predict: predict's own path (no word found
    #   unasked), a batcher for each ranking of its top words
    explaining = MicroBatcher(lambda texts, top_k: model.explain(texts, top_k=top_k), window_ms / 1000, max_batch,
                              max_batch_chars)
    expected_key = None if api_key is None else api_key.encode("utf-8", "surrogateescape")

    @app.middleware("http")
    async def guard(request: Request, call_next):
        started = time.perf_counter()
        try:
            response = await _checked(request, call_next)
        except Exception as exc:  # a bug: a JSON 500 that /metrics counts, its traceback in the server's log
            log.exception("internal error answering %s %s", request.method, request.url.path)
            response = _error(500, f"internal error ({type(exc).__name__}); the server's log has the details")
        path = request.url.path if request.url.path in known_paths else "other"  # bounded metric labels
        requests.labels(path, str(response.status_code)).inc()
        if response.status_code >= 400:
            errors.labels(path).inc()
        latency.labels(path).observe(time.perf_counter() - started)
        return response

    async def _checked(request: Request, call_next):
        if expected_key is not None and not _key_matches(request, expected_key):
            return _error(401, "missing or wrong API key (X-API-Key header)")
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body:
            return _error(413, f"body over {max_body} bytes")
        try:
            body = await _body_within(request, max_body)
        except ClientDisconnect:
            return _error(400, "the client went away before sending the whole body")
        if body is None:
            return _error(413, f"body over {max_body} bytes")
        request._body = body  # what the endpoint reads (starlette's middleware hands a read body on)
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        is_json = media_type == "application/json" or media_type.endswith("+json")  # FastAPI reads JSON only then
        if not is_json and any(tuple(error["loc"]) == ("body",) for error in exc.errors()):
            return _error(422, f"body: not sent as JSON (Content-Type: {media_type or 'none'}); send it with "
                               "Content-Type: application/json")
        return _error(422, "; ".join(map(_reason, exc.errors())))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        if exc.status_code == 400:  # FastAPI's "error parsing the body": JSON too deep, a number too long, not UTF-8
            return _error(422, f"body: {_unreadable(exc.__cause__)}")
        return await http_exception_handler(request, exc)

    async def answer(batcher: MicroBatcher, query: Query) -> list:
        if len(query.texts) > max_texts:
            raise AttentiveError(f"{len(query.texts)} texts: at most {max_texts} a request")
        return await batcher.answer(*_expanded(model, query), query.top_k)

    @app.exception_handler(AttentiveError)
    async def refused(_request: Request, exc: AttentiveError):
        return _error(422, str(exc))

    @app.post("/predict")
    async def predict(query: Query) -> list[dict]:
        if query.abstain_below is not None and model.thresholds is not None:
            raise AttentiveError("abstain_below: for models that answer one label per text; this one is multi-label")
        answers = await answer(predicting[query.top_words_by], query)  # at the model's own abstain threshold, if any
        return [_prediction_json(p, query.top_k) for p in abstain(answers, query.abstain_below)]

    @app.post("/explain")
    async def explain(query: Query) -> list[dict]:
        if query.top_words_by != AUTO:
            raise AttentiveError("top_words_by: /predict's; /explain gives every word's evidence")
        if query.abstain_below is not None:
            raise AttentiveError("abstain_below: /predict's; /explain explains the most probable label")
        return [_explanation_json(e, query.top_k) for e in await answer(explaining, query)]

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/info")
    async def info() -> dict:
        config = model.config
        return {"labels": model.labels, "recipe": config["recipe"].get("name"), "is_pair": model.is_pair,
                "uses_aspect": model.uses_aspect, "aspects": model.aspects, "model_id": config.get("model_id"),
                "runtime": type(model).__name__, "versions": {"attentive": __version__},
                "evidence": EVIDENCE_MEANING,  # what /explain's `evidence` and the top words rank words by
                **({"graph": model.graph} if hasattr(model, "graph") else {}),  # an export's: the one that answers
                **({"multi_label": True, "thresholds": model.thresholds} if model.thresholds is not None else {}),
                **({"abstain_below": below} if (below := model.abstain_below) is not None else {}),
                **({"faithfulness": config["faithfulness"], "faithfulness_line": line}
                   if (line := faithfulness_line(config)) is not None else {})}

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", response_class=HTMLResponse)
    async def page() -> str:
        return PAGE.read_text(encoding="utf-8")

    known_paths = {route.path for route in app.routes}
    return app
