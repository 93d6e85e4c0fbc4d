"""`attentive predict --input FILE --jobs N --output OUT [--resume]`: answering a large JSONL file in N worker
processes of one machine, writing the answers in input order, and continuing a killed run where its output ends.

The input is read once, in this process, and cut into network batches exactly as `--jobs 1` cuts them
(`input_lines.answered_in_batches`: `batch_size` good lines, a batch also ending at a bad line), so that every text is
answered in the same batch, and its probabilities printed with the same digits, whatever N is. `CHUNK_BATCHES`
batches make a chunk; chunks go to a `ProcessPoolExecutor` of workers forked from a server that has imported
attentive, torch and ONNX Runtime once (attentive/util/processes.py); each loads the model once (a saved folder with
PyTorch, an exported one with ONNX Runtime, computing with `threads` threads, 1 by default), at most
`2 N` of them in flight, and their lines are written in input order. A bad line keeps its meaning: under "stop"
every answer before it is written, then its one-line error is raised; under "skip" it is warned about and counted.

With `--output OUT` the answers are appended to OUT a chunk at a time, with a progress record beside it
(attentive/scoring/predict_output.py); `--resume` cuts OUT back to its last whole line that the record covers and
answers the input from the start again without answering the lines kept (their batches are rebuilt, not run), so
the resumed OUT is the uninterrupted run's, byte for byte. It refuses another input file, another model or other
answer options.
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AttentiveError
from ..util.processes import exit_with, worker_context
from .input_lines import BadLine, Batch, Stop, Wanted, answer, answer_line, batches, with_aspects
from .predict_output import FileSink, Resumed, StdoutSink, answer_format, claim_output, model_identity, open_output

# What a worker imports before its first chunk, once, in the fork server: this module and both model loaders.
WORKER_IMPORTS = ("attentive.scoring.parallel_predict", "attentive.answer.onnx_backend",
                  "attentive.answer.torch_backend")
CHUNK_BATCHES = 4  # network batches sent to a worker at a time
IN_FLIGHT_PER_JOB = 2  # chunks waiting or being answered, per worker


class _LineTracker:
    """The records, noting the line number of the one read last (with_aspects drops the numbers)."""

    def __init__(self, records: Iterable[tuple[int, dict] | BadLine]):
        self.records, self.line = records, 0

    def __iter__(self):
        for item in self.records:
            self.line = item.number if isinstance(item, BadLine) else item[0]
            yield item


def numbered_wanted(model, records: Iterable[tuple[int, dict] | BadLine], aspect_option: list[str],
                    source: str) -> Iterator[tuple[int, Wanted | BadLine]]:
    """`with_aspects` of the records, each (record, aspect) or BadLine with its input line number."""
    tracker = _LineTracker(records)
    for item in with_aspects(model, tracker, aspect_option, source):
        yield (item.number if isinstance(item, BadLine) else tracker.line), item


# The worker processes

_MODEL = None


def load_model(folder: str | Path, threads: int | None, graph: str | None = None):
    """`attentive.opening.open_model` in a worker: running `graph`, the one the parent process runs (None: the one
    `attentive.answer.onnx_backend.load` picks), computing with `threads` threads."""
    from ..onnx_format.read import GRAPH_INT8
    from ..opening import open_model
    from ..util.threads import use_threads

    return open_model(folder, use_threads(threads), None if graph is None else graph == GRAPH_INT8)


def _start_worker(folder: str, threads: int, graph: str | None, parent: int) -> None:
    global _MODEL
    exit_with(parent)
    _MODEL = load_model(folder, threads, graph)


    return True


def answer_chunk(model, chunk: list[tuple[list[Wanted], int]], options: dict, answer_key: str | None) -> list[str]:
    """The output lines of a chunk (`input_lines.answer_line`): each batch answered as one network batch (`options`:
    predict's batch_size, top_k and threshold), its first `drop` answers left out."""
    lines = []
    for items, drop in chunk:
        predictions = answer(model, items, "predict", **options)
        lines.extend(answer_line(record, prediction, answer_key)
                     for (record, _), prediction in list(zip(items, predictions))[drop:])
    return lines


def _worker_answer(chunk, options: dict, answer_key: str | None) -> tuple[str, object]:
    try:
        return "lines", answer_chunk(_MODEL, chunk, options, answer_key)
    except AttentiveError as exc:  # the user's mistake (a pair model without its second text): one line
        return "error", str(exc)


def _skipping(stream: Iterator[Batch | Stop], resumed: Resumed | None, output: Path | None) -> Iterator[Batch | Stop]:
    """The batches, without the answers a resumed run's OUT holds already (whole batches left out, the first
    batch after them told how many of its answers to drop). The progress file's record is checked on the way,
    before anything is written: the input lines up to its input_line must give its output_lines answers, or the
    input has changed."""
    if resumed is None:
        yield from stream
        return
    to_skip, answers, checked = resumed.output_lines, 0, False

    def check() -> None:
        nonlocal checked
        checked = True
        if answers != resumed.recorded_lines:
            raise AttentiveError(f"the input has changed since {output} was written (its lines up to "
                                 f"{resumed.recorded_input_line} now give {answers} answers, not "
                                 f"{resumed.recorded_lines}): give --overwrite to start again")

    for batch in stream:
        if isinstance(batch, Stop):
            if not checked and batch.error is None:
                check()
            if to_skip > 0 and batch.error is None:
                raise AttentiveError(f"{output} holds more lines than its input gives answers: give --overwrite to "
                                     "start again")
            yield batch
            return
        for line in batch.lines:
            if not checked and line > resumed.recorded_input_line:
                check()
            answers += 1
        if to_skip >= len(batch.items):
            to_skip -= len(batch.items)
            continue
        batch.drop, to_skip = to_skip, 0
        yield batch


def run(stream: Iterator[Batch | Stop], sink, *, jobs: int, model=None, folder: Path | None = None,
        threads: int = 1, options: dict, answer_key: str | None) -> None:
    """Answer the batches (here with `model` when `jobs` is 1, else in `jobs` worker processes loading `folder`; with
    `answer_chunk`'s `options` and `answer_key`) and write their lines in input order, a chunk at a time; then raise
    the Stop's error, if any, after every answer before it is written."""
    inflight: deque = deque()  # (result or future, last input line)
    chunk: list[Batch] = []
    pool = None
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        graph = getattr(model, "graph", None)  # an export's: the workers run the graph this process loaded
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=worker_context(WORKER_IMPORTS),
                                   initializer=_start_worker,
                                   initargs=(str(Path(folder).resolve()), threads, graph, os.getpid()))

    def submit() -> None:
        if not chunk:
            return
        payload = [(batch.items, batch.drop) for batch in chunk]
        last_line = chunk[-1].last_line
        if pool is None:
            inflight.append((("lines", answer_chunk(model, payload, options, answer_key)), last_line))
        else:
            inflight.append((pool.submit(_worker_answer, payload, options, answer_key), last_line))
        chunk.clear()

    def write_oldest() -> None:
        result, last_line = inflight.popleft()
        kind, value = result if pool is None else _result(result)
        if kind == "error":
            raise AttentiveError(value)
        sink.write(value, last_line)

    stop = Stop(0)
    try:
        for batch in stream:
            if isinstance(batch, Stop):
                stop = batch
                break
            chunk.append(batch)
            if len(chunk) >= CHUNK_BATCHES:
                submit()
            while len(inflight) >= IN_FLIGHT_PER_JOB * jobs:
                write_oldest()
        submit()
        while inflight:
            write_oldest()
        sink.finish(stop.last_line, complete=stop.error is None)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
            pool = None
        if isinstance(sink, FileSink):
            sink.close()
        raise
    finally:
        if pool is not None:
            pool.shutdown()
    if stop.error is not None:
        raise stop.error


def _result(future) -> tuple[str, object]:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool as exc:
        raise AttentiveError(f"a predict worker process died ({exc}); with --output, --resume continues where the "
                             "output ends") from exc


@dataclass(frozen=True)
class PredictRequest:
    """How one `attentive predict --jobs N / --output FILE` run answers: `source`, what the texts came from (the
    input file's name, or "text"), for messages; `aspect_option`, the --aspect values; `jobs` processes, each
    computing with `threads` threads (None: 1); `batch_size` texts a network batch; `on_error`, "stop" or "skip" a
    bad line; `options`, predict's answer options (top_k, threshold, top_words_by, abstain_below); `answer_key`, the
    key of each --input line's answer (None for command-line texts); `output`, the file written (None: stdout),
    `input_file` the --input file, `resume` and `overwrite` as the options say."""

    source: str
    aspect_option: Sequence[str] = ()
    jobs: int = 1
    threads: int | None = None
    batch_size: int = 256
    on_error: str = "stop"
    options: dict = field(default_factory=dict)
    answer_key: str | None = None
    output: Path | None = None
    input_file: Path | None = None
    resume: bool = False
    overwrite: bool = False
    every_probability: bool = False  # a CSV or TSV --input: a column of each label's probability


def predict(model, folder: Path, records: Iterable[tuple[int, dict] | BadLine], request: PredictRequest, warn,
            header: str | None = None) -> None:
    """Answer the records (`input_lines.jsonl_records` or `command_line_records`) as `attentive predict` does, as
    `request` says (with its `options`, top_k and threshold; each line's answer under `answer_key`), in `jobs`
    processes (each computing with `threads` threads, 1 by default) when `jobs` > 1, writing to stdout or to
    `output` (resumable, see the module's docstring); `warn(message)` is told of each bad line skipped; the first bad
    line under "stop" raises its error after every answer before it is written. `header`: the output's first line
    (a CSV or TSV input's header with the answer's columns), before every answer; such an output is written whole,
    never resumed."""
    output, resume, options, answer_key = request.output, request.resume, request.options, request.answer_key
    if resume and output is None:
        raise AttentiveError("--resume continues an --output FILE: give --output FILE")
    if resume and header is not None:
        raise AttentiveError("--resume continues JSON lines; a CSV or TSV input's output is written whole: drop "
                             "--resume and give --overwrite")
    if output is not None:
        output = claim_output(output, request.input_file, folder, resume, request.overwrite)
    sink, resumed = (StdoutSink(), None) if output is None else open_output(
        output, request.input_file, model_identity(model, folder), resume, answer_format(model, answer_key, options))
    if header is not None:
        sink.write([header], 0)
    wanted = numbered_wanted(model, records, list(request.aspect_option), request.source)
    stream = _skipping(batches(wanted, request.batch_size, request.on_error, warn), resumed, output)
    run(stream, sink, jobs=request.jobs, model=model, folder=folder, threads=request.threads or 1,
        options={"batch_size": request.batch_size, **options}, answer_key=answer_key)
