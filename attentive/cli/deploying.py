"""`attentive export` and `attentive serve`: an ONNX folder and an HTTP server."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import AttentiveError
from .app import _load_any, _use_threads, app, console
from .options import Fp32, Threads


@app.command()
def export(
    run: Path = typer.Argument(..., help="a saved model folder"),
    out: Path = typer.Option(..., "--out", help="folder for model.onnx, tokenizer.json and config.json"),
    int8: bool = typer.Option(False, "--int8", help="also write model.int8.onnx (dynamic int8 quantisation)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace the export OUT holds, or write beside other "
                                                            "files (only the export's own four are replaced)"),
    threads: Optional[int] = Threads,
):
    """An ONNX graph (probabilities and attention) that `attentive predict`/`explain` and
    attentive.answer.onnx_backend run without PyTorch."""
    from ..api import load
    from ..onnx_format.read import GRAPH, GRAPH_INT8
    from ..onnx_format.write import export as export_model

    _use_threads(threads)
    folder = export_model(load(run), out, int8, overwrite=overwrite)
    graphs = [folder / GRAPH] + ([folder / GRAPH_INT8] if int8 else [])
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in graphs)
    console.print(f"exported {run} to {folder} ({sizes})")


@app.command()
def serve(
    run: Path = typer.Argument(..., help="a saved model folder, or an exported one (served without PyTorch)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to bind; other than loopback needs --api-key"),
    port: int = typer.Option(8000, "--port"),
    api_key: Optional[str] = typer.Option(None, "--api-key", envvar="ATTENTIVE_API_KEY",
                                          help="required on every request (X-API-Key header)"),
    max_texts: int = typer.Option(256, "--max-texts", min=1, help="texts a request may hold"),
    max_body: int = typer.Option(1_000_000, "--max-body", min=1, help="bytes a request body may hold"),
    fp32: bool = Fp32,
    threads: Optional[int] = Threads,
):
    """An HTTP API (POST /predict, /explain; GET /health, /info, /metrics) and a page at / showing the attention."""
    import uvicorn

    from ..serving.server import address, bound_socket, create_app

    if host not in ("127.0.0.1", "localhost", "::1") and not api_key:
        raise AttentiveError(f"--host {host} opens the server to other machines: give --api-key (or set "
                             "ATTENTIVE_API_KEY)")
    sock = bound_socket(host, port)  # a bad or busy port fails here, before anything says "serving"
    with sock:
        model = _load_any(run, threads, fp32)
        app_ = create_app(model, api_key=api_key, max_body=max_body, max_texts=max_texts)
        graph = f" ({model.graph})" if hasattr(model, "graph") else ""  # an export: the graph it runs
        console.print(f"serving {run}{graph} on {address(host, port)}", markup=False)
        uvicorn.Server(uvicorn.Config(app_, host=host, port=port, log_level="warning")).run(sockets=[sock])
