"""BENCHMARKS.md's deployment section (issue 16), from the results of `python -m benchmarks.deploy_speed`: latency
with one thread, throughput with two, accuracy in fp32 and int8, and sizes, every side measured in one process."""
from __future__ import annotations

from benchmarks.results_io import machine_short

PEERS = (("pytorch", "PyTorch"), ("onnx_fp32", "ONNX Runtime fp32"), ("onnx_int8", "ONNX Runtime int8"),
         ("tfidf_lr", "TF-IDF + LR"), ("fasttext", "fastText"))


def _latency(cell: dict) -> str:
    return f"{cell['p50_ms']:.2f} / {cell['p99_ms']:.2f}"


def deploy_section(results: list[dict]) -> list[str]:
    """The `deploy` results (deploy_speed.py) as tables, then the `serve_load` results (serve_load.py) as lines."""
    if not results:
        return []
    lines = ["## Deployment: latency, throughput, int8", ""]
    for result in sorted((r for r in results if r["kind"] == "serve_load"), key=lambda r: r["name"]):
        served = result.get("served")
        what = "" if not served else (f" serving `{served['recipe']}`" + (", exported, int8" if served["int8"] else
                                                                            ", exported" if served["exported"] else ""))
        per_request = result.get("texts_per_request", 1)
        texts = f" ({result['texts_per_s']:,} texts/s)" if per_request > 1 else ""
        lines += [f"Server under load (`{result['command']}`, {machine_short(result)}{what}): {result['requests']:,} "
                  f"POST /predict requests of {per_request} text{'s' if per_request > 1 else ''}, "
                  f"{result['concurrency']} at a time on loopback, statuses {result['statuses']} "
                  f"({result['unexpected_statuses']} other than expected: every 1,000th body oversize, 413; every "
                  f"1,000th malformed, 422), latency p50 {result['p50_ms']} ms / p99 {result['p99_ms']} ms, "
                  f"{result['requests_per_s']:,} requests/s{texts}; answering afterwards: "
                  f"{result['still_answering']}.", ""]
    for result in sorted((r for r in results if r["kind"] == "deploy"), key=lambda r: r["name"]):
        accuracy, sizes = result["test_accuracy"], result["sizes_mb"]
        lines += [f"Model: recipe `{result['recipe']}` trained on {result['dataset']}; timed on the first "
                  f"{result['n_texts']:,} {result['texts']} test texts and on a {result['sentence_words']}-word "
                  "sentence "
                  f"({machine_short(result)}; `{result['command']}`). Latency: one text per call, 1 thread, p50 / p99 "
                  "in ms. Throughput: batches of 128, 2 threads (since commit `c189610` the median of five passes; "
                  "earlier rows one pass). The TF-IDF + LR and fastText peers are trained in the "
                  f"same script on {result['texts']} train.", "",
                  "| | sentence p50 / p99 (ms) | review p50 / p99 (ms) | docs/s (2 threads) | test acc |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for key, label in PEERS:
            latency = result["latency_1_thread"][key]
            acc = f"{100 * accuracy[key]:.2f}" if key in accuracy else "—"
            lines.append(f"| {label} | {_latency(latency['sentence'])} | {_latency(latency['review'])} | "
                         f"{result['throughput_2_threads_docs_per_s'][key]:,.0f} | {acc} |")
        graph, quantised = sizes.get("model.onnx"), sizes.get("model.int8.onnx")
        lines += ["", f"Sizes: PyTorch folder {sizes.get('pytorch_folder')} MB, model.onnx {graph} MB, "
                      f"model.int8.onnx {quantised} MB"
                      + (f" ({100 * quantised / graph:.0f}% of fp32)" if graph and quantised else "") + ".", ""]
    return lines
