"""`attentive serve RUN`: a FastAPI app over a trained or exported model.

- `POST /predict`, `POST /explain`: {"texts": [...], "pairs": [...]?, "aspects": [...]?, "top_k": 5} -> the same JSON
  as the CLI (one answer per text, or per text and aspect). Concurrent requests are micro-batched: the first waits
  up to `window_ms` for others, up to `max_batch` texts in all, and the model answers them in one call.
- `GET /health`, `GET /info` (labels, recipe, aspects, versions), `GET /metrics` (Prometheus text: requests by path
  and status, errors, latency histogram), `GET /` (the page: attentive/page.html).
- Limits with clear answers: a body over `max_body` bytes is 413; malformed JSON, an empty text, more than
  `max_texts` texts or an unknown aspect are 422 with the reason. With an API key every request must carry it
  (`X-API-Key` header, or `?key=` for the page), else 401.
"""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from pydantic import BaseModel, Field, field_validator

from .errors import AttentiveError
from .version import __version__

PAGE = Path(__file__).with_name("page.html")


class Query(BaseModel):
    texts: list[str] = Field(min_length=1)
    pairs: list[str] | None = None
    aspects: list[str] | None = None
    top_k: int = Field(5, ge=0, le=100)

    @field_validator("texts", "pairs")
    @classmethod
    def not_empty(cls, texts: list[str] | None) -> list[str] | None:
        for number, text in enumerate(texts or [], start=1):
            if not text.strip():
                raise ValueError(f"text {number} is empty: nothing to classify")
        return texts


class MicroBatcher:
    """Collects concurrent requests for a short window and answers them with one model call (in a worker thread)."""

    def __init__(self, model, window_s: float, max_batch: int):
        self.model, self.window_s, self.max_batch = model, window_s, max_batch
        self.queue: asyncio.Queue | None = None

    async def answer(self, texts: list[str], pairs: list[str] | None, aspects: list) -> list:
        if self.queue is None:
            self.queue = asyncio.Queue()
            asyncio.get_running_loop().create_task(self._work())
        future = asyncio.get_running_loop().create_future()
        await self.queue.put((texts, pairs, aspects, future))
        return await future

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self.queue.get()]
            deadline = loop.time() + self.window_s
            while sum(len(b[0]) for b in batch) < self.max_batch and (left := deadline - loop.time()) > 0:
                try:
                    batch.append(await asyncio.wait_for(self.queue.get(), left))
                except asyncio.TimeoutError:
                    break
            texts = [t for b in batch for t in b[0]]
            pairs = [p for b in batch for p in b[1]] if batch[0][1] is not None else None
            aspects = [a for b in batch for a in b[2]]
            try:
                answers = await loop.run_in_executor(None, lambda: self.model.explain(texts, pairs, aspects=aspects))
            except Exception as exc:  # every waiting request hears of it
                for *_, future in batch:
                    if not future.done():  # a request whose client went away was cancelled
                        future.set_exception(exc)
                continue
            start = 0
            for part_texts, _, _, future in batch:
                if not future.done():
                    future.set_result(answers[start:start + len(part_texts)])
                start += len(part_texts)


def _expanded(model, query: Query):
    """One (text, pair, aspect) per answer, checked before it joins a batch (so one bad request fails alone)."""
    texts, pairs, aspects = model.inputs.expand(query.texts, query.pairs, query.aspects)
    model.inputs.aspect_ids(aspects)  # an unknown aspect is the request's own error
    return texts, pairs, aspects


def _prediction_json(explanation, top_k: int) -> dict:
    """The CLI's JSON for one answer: label, probabilities, the `top_k` most attended words (and the aspect)."""
    prediction = explanation.prediction.as_dict()
    prediction["top_words"] = prediction["top_words"][:top_k]
    return prediction


def _explanation_json(explanation, top_k: int) -> dict:
    """`_prediction_json` plus the words, each head's attention over them and the summed view."""
    attention = explanation.attention
    return {**_prediction_json(explanation, top_k), "words": explanation.words,
            "attention": None if attention is None else [[round(float(w), 5) for w in head] for head in attention],
            "summed": None if attention is None else [round(float(w), 5) for w in explanation.summed]}


def create_app(model, api_key: str | None = None, max_body: int = 1_000_000, max_texts: int = 256,
               window_ms: float = 5.0, max_batch: int = 64) -> FastAPI:
    """The app serving `model` (an `attentive.Model` or an exported `attentive.runtime.RuntimeModel`)."""
    app = FastAPI(title="attentive", version=__version__)
    registry = CollectorRegistry()
    requests = Counter("attentive_requests", "HTTP requests", ["path", "status"], registry=registry)
    errors = Counter("attentive_errors", "requests answered with an error status", ["path"], registry=registry)
    latency = Histogram("attentive_request_seconds", "request latency", ["path"], registry=registry,
                        buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5))
    batcher = MicroBatcher(model, window_ms / 1000, max_batch)

    @app.middleware("http")
    async def guard(request: Request, call_next):
        started = time.perf_counter()
        response = await _checked(request, call_next)
        path = request.url.path if request.url.path in known_paths else "other"  # bounded metric labels
        requests.labels(path, str(response.status_code)).inc()
        if response.status_code >= 400:
            errors.labels(path).inc()
        latency.labels(path).observe(time.perf_counter() - started)
        return response

    async def _checked(request: Request, call_next):
        if api_key is not None and api_key not in (request.headers.get("x-api-key"), request.query_params.get("key")):
            return JSONResponse({"detail": "missing or wrong API key (X-API-Key header)"}, status_code=401)
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body:
            return JSONResponse({"detail": f"body over {max_body} bytes"}, status_code=413)
        if request.method == "POST" and len(await request.body()) > max_body:
            return JSONResponse({"detail": f"body over {max_body} bytes"}, status_code=413)
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        reasons = "; ".join(f"{'.'.join(map(str, e['loc'][1:])) or 'body'}: {e['msg']}" for e in exc.errors())
        return JSONResponse({"detail": reasons}, status_code=422)

    async def answer(query: Query) -> list:
        if len(query.texts) > max_texts:
            raise AttentiveError(f"{len(query.texts)} texts: at most {max_texts} a request")
        return await batcher.answer(*_expanded(model, query))

    @app.exception_handler(AttentiveError)
    async def refused(_request: Request, exc: AttentiveError):
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.post("/predict")
    async def predict(query: Query) -> list[dict]:
        return [_prediction_json(e, query.top_k) for e in await answer(query)]

    @app.post("/explain")
    async def explain(query: Query) -> list[dict]:
        return [_explanation_json(e, query.top_k) for e in await answer(query)]

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/info")
    async def info() -> dict:
        config = model.config
        return {"labels": model.labels, "recipe": config["recipe"].get("name"), "is_pair": model.is_pair,
                "uses_aspect": model.uses_aspect, "aspects": model.aspects, "model_id": config.get("model_id"),
                "runtime": type(model).__name__, "versions": {"attentive": __version__}}

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", response_class=HTMLResponse)
    async def page() -> str:
        return PAGE.read_text(encoding="utf-8")

    known_paths = {route.path for route in app.routes}
    return app
