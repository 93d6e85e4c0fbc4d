"""An exported model's folder (config.json, model.onnx and maybe model.int8.onnx, tokenizer.json), read and checked
for the torch-free runtime (attentive/answer/onnx_backend.py): the files through attentive/folders/reading.py (regular
files inside the folder; config.json and tokenizer.json capped; each matching the SHA-256 config.json records under
"checksums": `attentive export` records the graphs' and the tokenizer's, exports written before have none and are
read as they are), config.json's entries through attentive/folders/config.py, and the graph by running it once, at
load, on a small ragged batch built as the runtime builds its batches: it must take the inputs config.json describes
and answer one finite probability per label and attention per token, and config.json's labels must be the ones, in
their order, the graph's metadata keeps (BOUND_LABELS; none in earlier exports). Only the graph that will run is
read and checked (model.int8.onnx where the export has it, unless model.onnx is asked for). A missing, cut-short,
swapped or foreign graph, or labels that do not match its outputs, is then one line naming the file, never an
onnxruntime traceback or wrongly named answers at the first prediction. The graph's metadata keeps the model id too
(BOUND_MODEL_ID; none in earlier exports), checked against config.json's, so that another model's graph with the same
labels is refused where config.json records no digests.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import AttentiveError
from ..folders.config import (
    BOUND_LABELS,
    BOUND_MODEL_ID,
    EXPORT_FORMAT,
    EXPORTED_INPUTS,
    check_bound_labels,
    check_bound_model_id,
    check_digest,
    check_exported_config,
    format_problem,
)
from ..folders.reading import (
    TOKENIZER_CAP,
    last_line,
    parse_tokenizer,
    read_consistently,
    read_in_folder,
    read_json_in_folder,
)
from .on_demand import EVIDENCE, EVIDENCE_WANTED

FORMAT = EXPORT_FORMAT  # config.json's "format" of an export
CONFIG, TOKENIZER = "config.json", "tokenizer.json"
GRAPH, GRAPH_INT8 = "model.onnx", "model.int8.onnx"


def is_exported(folder: str | Path) -> bool:
    """Whether `folder` holds an exported model (rather than a PyTorch model folder)."""
    try:  # a config.json that is no file, or too large, is no exported model's (loading it then says what it is)
        return read_json_in_folder(Path(folder), CONFIG).get("format") == FORMAT
    except AttentiveError:
        return False


def read_exported(folder: Path, format_name: str, int8: bool | None = None):
    """(config, onnxruntime session, tokenizer, the graph's file name) of an exported folder, all from the same
    export (an `export --overwrite` may be replacing them: folder_reading.read_consistently). `int8` picks the
    quantised graph, False the float32 one, None the quantised one where the export has it (the graph `attentive
    serve` and `predict` run unless given --fp32). The session computes on one thread per `run`: a caller answers on
    more threads by running batches side by side (attentive/answer/lanes.py)."""
    return read_consistently(folder, (CONFIG, TOKENIZER, GRAPH, GRAPH_INT8),
                             lambda: _read_exported(folder, format_name, int8))


def _read_exported(folder: Path, format_name: str, int8: bool | None):
    import onnxruntime

    config = read_exported_config(folder, format_name)  # every entry the runtime reads, checked
    graph = GRAPH_INT8 if int8 or (int8 is None and GRAPH_INT8 in config["graphs"]) else GRAPH
    if graph not in config["graphs"]:
        raise AttentiveError(f"{folder}: no {graph} (export with --int8 for the quantised graph)")
    options = onnxruntime.SessionOptions()
    # ONNX Runtime's idle threads spin-wait after each call; between calls they would hold the cores the tokenizer
    # needs for the next batch
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # ONNX Runtime's QDQ passes give each consumer of a dequantised tensor (the word vectors' rows) its own copy of
    # the DequantizeLinear, computed once per consumer; without them the answers are the same to the bit and the
    # default's graph takes less time
    options.add_session_config_entry("session.disable_quant_qdq", "1")
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = open_graph(folder, graph, options, config)
    tokenizer = read_exported_tokenizer(folder, config)
    check_graph(session, config, tokenizer.get_vocab_size(), folder / graph)
    bound = session.get_modelmeta().custom_metadata_map
    check_bound_labels(folder / CONFIG, config["labels"], bound.get(BOUND_LABELS), folder / graph, "export again")
    check_bound_model_id(folder / CONFIG, config.get("model_id"), bound.get(BOUND_MODEL_ID), folder / graph)
    return config, session, tokenizer, graph


def read_exported_config(folder: Path, format_name: str) -> dict:
    """config.json of an exported folder in `format_name` (`FORMAT`), with every entry the runtime reads
    checked."""
    config = read_json_in_folder(folder, CONFIG)
    if "format" in config and config["format"] != format_name:
        raise AttentiveError(format_problem(folder / CONFIG, config["format"]))
    if config.get("format") != format_name:
        raise AttentiveError(f"{folder}: not an exported attentive model (run `attentive export` first)")
    check_exported_config(folder / CONFIG, config)
    return config


def read_exported_tokenizer(folder: Path, config: dict):
    """tokenizer.json (at most TOKENIZER_CAP bytes), matching the SHA-256 config.json records for it, if any."""
    data = read_in_folder(folder, TOKENIZER, TOKENIZER_CAP)
    tokenizer = parse_tokenizer(data, folder / TOKENIZER)
    check_export_digest(folder, config, TOKENIZER, data)
    return tokenizer


def check_export_digest(folder: Path, config: dict, name: str, data: bytes) -> None:
    """`data`, the bytes of `folder/name`, match the SHA-256 config.json records for the file, if it records one."""
    check_digest(config, name, hashlib.sha256(data).hexdigest(), folder / name,
                 f"{folder}: {name} does not match the digest {CONFIG} records: the folder was changed after export; "
                 "export again")


def open_graph(folder: Path, graph: str, options, config: dict):
    """An onnxruntime session of `folder/graph`, read from bytes (so a graph cannot name external data files to
    be read from elsewhere), matching the SHA-256 config.json records for it, if any."""
    import onnxruntime

    data = read_in_folder(folder, graph)
    check_export_digest(folder, config, graph, data)
    try:
        return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own exception classes (InvalidProtobuf, Fail, ...)
        raise AttentiveError(f"{folder / graph}: not a graph onnxruntime can run ({last_line(exc)})") from None


def check_graph(session, config: dict, vocab_size: int, path: Path) -> None:
    """The graph takes the inputs config.json lists (int64 ids and masks; and the boolean EVIDENCE_WANTED where
    config.json says it `has_evidence`), outputs `probabilities` and `attention` (and `evidence`), and answers a
    two-text ragged batch (the tokenizer's first and last ids) with one finite probability per label summing to 1,
    attention over the batch's tokens and, asked for it, an evidence per token."""
    inputs = {node.name: node.type for node in session.get_inputs()}
    evidence = config.get("has_evidence") is True
    switch = {EVIDENCE_WANTED: "tensor(bool)"} if evidence else {}
    unknown = sorted(set(inputs) - set(config["inputs"]) - set(switch))
    if unknown or any(kind != switch.get(name, "tensor(int64)") for name, kind in inputs.items()) or \
            not set(switch) <= set(inputs):
        raise AttentiveError(f"{path}: the graph's inputs ({_listed(inputs)}) are not the int64 ids and masks "
                             f"{CONFIG} lists ({', '.join(config['inputs'])})"
                             + (f" and its boolean {EVIDENCE_WANTED}" if evidence else ""))
    outputs = {node.name for node in session.get_outputs()}
    wanted = ["probabilities", "attention"] + ([EVIDENCE] if evidence else [])
    if not set(wanted) <= outputs:
        raise AttentiveError(f"{path}: the graph outputs {_listed(outputs)}, not {', '.join(wanted)}")
    feed = {name: value for name, value in _example(config, vocab_size).items() if name in inputs}
    if evidence:
        feed[EVIDENCE_WANTED] = np.array(True)
    try:
        probabilities, attention, *found = session.run(wanted, feed)
    except Exception as exc:  # onnxruntime's own exception classes
        raise AttentiveError(f"{path}: the graph fails on a test batch ({last_line(exc)})") from None
    labels = len(config["labels"])
    if getattr(probabilities, "shape", None) != (2, labels):
        raise AttentiveError(f"{path}: the graph answers {getattr(probabilities, 'shape', '?')} probabilities for 2 "
                             f"texts, but {CONFIG} gives {labels} labels")
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if not np.isfinite(probabilities).all() or np.abs(probabilities.sum(1) - 1).max() > 1e-3 and \
            config.get("multi_label") is not True:  # a multi-label graph's sigmoids need not sum to 1
        raise AttentiveError(f"{path}: the graph's probabilities are not finite or do not sum to 1 (damaged?)")
    shape = getattr(attention, "shape", ())
    if len(shape) != 3 or shape[0] != 2 or shape[2] != 3 or not np.isfinite(attention).all():
        raise AttentiveError(f"{path}: the graph's attention is {shape}, not finite weights for 2 texts x heads x "
                             "3 tokens")
    if found and (getattr(found[0], "shape", ()) != (2, 3) or not np.isfinite(found[0]).all()):
        raise AttentiveError(f"{path}: the graph's evidence is {getattr(found[0], 'shape', ())}, not finite values "
                             "for 2 texts x 3 tokens")


def _example(config: dict, vocab_size: int) -> dict[str, np.ndarray]:
    """Two texts of 3 and 1 tokens (padded), with a second text and an aspect where the model takes them."""
    last = max(vocab_size - 1, 1)
    ids = np.array([[1, last, 1], [last, 0, 0]], dtype=np.int64)
    mask = (ids != 0).astype(np.int64)
    feed = {"ids": ids, "mask": mask}
    if config["is_pair"]:
        feed.update(pair_ids=ids[::-1].copy(), pair_mask=mask[::-1].copy())
    if config["uses_aspect"]:
        if config["aspect_type"] == "words":
            aspect = np.array([[last], [1]], dtype=np.int64)
        else:  # a category's index, from 1
            aspect = np.array([[1], [max(len(config["aspects"]), 1)]], dtype=np.int64)
        feed.update(aspect_ids=aspect, aspect_mask=np.ones_like(aspect))
    assert set(feed) <= set(EXPORTED_INPUTS)
    return feed


def _listed(names) -> str:
    return ", ".join(sorted(names)) or "none"
