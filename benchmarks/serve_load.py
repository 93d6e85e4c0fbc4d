"""`attentive serve` under load (issue 16): the server started here on loopback, `--requests` POST /predict requests
sent `--concurrency` at a time (one short review each), with an oversize body every 1,000th and a malformed one every
1,000th (offset by 500) that must get 413 and 422 while the others are answered.

    python -m benchmarks.serve_load --run runs/sst2-default [--requests 10000] [--concurrency 32]
    python -m benchmarks.serve_load --run runs/deployable/sst2/student-s0-int8 --variant student [--texts-per-request 8]

`--run` is a saved or an exported model (an export answers from its int8 graph where it has one, as `attentive serve`
does); `--texts-per-request` sends that many texts in each request's `texts` (one by default). Writes
results/serve-load-<dataset>[-<variant>].json: answered, errors, the 4xx counts, p50/p99 latency, requests and texts
per second, and what was served.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

from benchmarks.common import write_result

TEXT = "a gorgeous , witty film whose actors carry a thin plot with grace"


def start_server(run: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-c", "from attentive.cli import run; run()", "serve", str(run),
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")})
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            httpx.get(f"{url}/health", timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def body(index: int, texts: int = 1) -> tuple[bytes, int]:
    """The request body and the status it must get."""
    if index % 1000 == 999:
        return json.dumps({"texts": ["word " * 300_000]}).encode(), 413
    if index % 1000 == 499:
        return b'{"texts": ["unclosed', 422
    return json.dumps({"texts": [TEXT] * texts}).encode(), 200


async def load(url: str, requests: int, concurrency: int, texts: int = 1) -> dict:
    latencies, statuses, wrong = [], {}, 0
    queue: asyncio.Queue = asyncio.Queue()
    for index in range(requests):
        queue.put_nowait(index)

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal wrong
        while not queue.empty():
            content, expected = body(queue.get_nowait(), texts)
            start = time.perf_counter()
            try:
                response = await client.post(f"{url}/predict", content=content,
                                             headers={"Content-Type": "application/json"})
                status = response.status_code
            except httpx.HTTPError:
                status = -1
            latencies.append((time.perf_counter() - start) * 1000)
            statuses[status] = statuses.get(status, 0) + 1
            wrong += status != expected

    started = time.perf_counter()
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    seconds = time.perf_counter() - started
    answered = statuses.get(200, 0)
    return {"requests": requests, "concurrency": concurrency, "texts_per_request": texts,
            "texts_per_s": round(answered * texts / seconds, 1),
            "statuses": {str(k): v for k, v in statuses.items()},
            "unexpected_statuses": wrong, "p50_ms": round(statistics.median(latencies), 2),
            "p99_ms": round(float(np.percentile(latencies, 99)), 2), "requests_per_s": round(requests / seconds, 1),
            "seconds": round(seconds, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--texts-per-request", type=int, default=1)
    parser.add_argument("--variant", default=None, help="names the served model in the result's name")
    parser.add_argument("--dataset", default=None, help="the model's dataset, where its config.json does not say")
    args = parser.parse_args(argv)
    process, url = start_server(args.run)
    try:
        measured = asyncio.run(load(url, args.requests, args.concurrency, args.texts_per_request))
        measured["still_answering"] = httpx.post(f"{url}/predict", json={"texts": [TEXT]}).status_code == 200
    finally:
        process.terminate()
        process.wait(10)
    config = json.loads((args.run / "config.json").read_text())
    dataset = config.get("dataset") or args.dataset  # an export's config.json does not name its data
    if not dataset:
        raise SystemExit(f"{args.run}: name the model's dataset with --dataset")
    served = {"recipe": (config.get("recipe") or {}).get("name"), "exported": (args.run / "model.onnx").exists(),
              "int8": (args.run / "model.int8.onnx").exists()}
    name = f"serve-load-{dataset}" + (f"-{args.variant}" if args.variant else "")
    path = write_result(name, {"kind": "serve_load", "dataset": dataset, "variant": args.variant, "served": served,
                               **measured})
    print(json.dumps(measured), "->", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
