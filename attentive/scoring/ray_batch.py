"""Scoring a large file on a Ray cluster: `attentive.scoring.ray_batch.predict(data, model_dir)` answers
every row of a Ray Data `Dataset`, or of JSONL files on the cluster's storage, with an exported model (`attentive
export`), through `Dataset.map_batches` and a pool of actors. Install `attentive[ray]`; the base install does not
need Ray, which is imported only when this module's functions run.

Each actor (`Scorer`, a callable class) loads the exported model once with `attentive.answer.onnx_backend.load`,
computing on `threads` threads (lanes of network batches, attentive/answer/lanes.py; it asks Ray for as many CPUs), and
answers each batch of `batch_size` rows as `attentive predict` answers one batch of its input: one `predict_proba` call
with that batch size. The rows keep their input order (the dataset's `preserve_order` is set), so that row i of the
answers is row i of the input.

A JSONL path is cut into lines at "\\n" (`file_lines`; each file read whole by one task, as Ray's own readers
read it: give a large input as several files), and each line is parsed in the actor as `attentive predict --input`
parses it (`input_lines.parsed_line`: a JSON object with a non-empty "text", and "text_pair" for a pair model, no
key given twice, no field named `answer_key`): no field of the user's is converted on the way (a pandas-based JSON
reader would turn "007" into 7). Its answers hold `record` (the line's JSON object, as text), `path` and `line`
(where it was read), `label` and `probabilities`; a Dataset's answers hold its own columns, `label` and
`probabilities` (float32, one per class, in the order of the model's `labels`). With `output`, the answers are
written, in input order, as JSONL lines of `attentive predict`'s form, to one file, atomically: a file's line as
its own text, byte for byte, with {"label", "probabilities" by label} (no "top_words") spliced in under
`answer_key` ("prediction"); a Dataset's row as its columns and that answer under `answer_key`.

A row that cannot be answered (not JSON, no text, a text that is not valid Unicode, a key given twice, a field or
column named `answer_key`) stops the run with one line: FILE:LINE and the problem for a file's line, the problem
and the row's start for a Dataset's row.
"""
from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..answer.inputs import Checked, Expanded, text_problem
from ..errors import AttentiveError
from .input_lines import ANSWER_KEY, LineProblem, parsed_line, spliced

DEFAULT_BATCH_SIZE = 256  # as `attentive predict --batch-size`
RECORD = "record"  # the column of a JSONL line read from a path
WHERE = ("path", "line")  # the columns saying where it was read
ANSWER_COLUMNS = ("label", "probabilities")
PREVIEW = 80  # characters of a bad row shown in its error
UTF8_BOM = b"\xef\xbb\xbf"


def ray_data():
    """The `ray.data` module, or a one-line error saying how to install it."""
    try:
        import ray.data
    except ImportError as exc:
        raise AttentiveError(f"attentive.scoring.ray_batch runs on Ray Data, which is not installed ({exc}): "
                             "pip install 'attentive[ray]'") from None
    return ray.data


def _preview(value) -> str:
    """The start of a bad row, as the user wrote it: a line as it is, a record as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= PREVIEW else text[:PREVIEW] + "…"


class Scorer:
    """The actor of `map_batches`: one exported model per actor, loaded once, answering batches of rows.

    `record_column`: the column holding each row's JSON line (a path's rows), parsed here; otherwise the texts are
    the `text_column` (and `pair_column`, for a pair model) of the dataset's own rows."""

    def __init__(self, model_dir: str, int8: bool | None, threads: int, batch_size: int, text_column: str,
                 pair_column: str, record_column: str | None, source: str, answer_key: str = ANSWER_KEY):
        from ..answer.onnx_backend import load

        self.model = load(model_dir, int8=int8, threads=threads)
        self.batch_size, self.source = batch_size, source
        self.text_column, self.pair_column, self.record_column = text_column, pair_column, record_column
        self.answer_key = answer_key

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self.record_column is not None:
            rows = [self._parsed(line, f"{path}:{number}")
                    for line, path, number in zip(batch[self.record_column], *(batch[name] for name in WHERE))]
        else:
            clash = [name for name in (*ANSWER_COLUMNS, self.answer_key) if name in batch]
            if clash:
                raise AttentiveError(f"{self.source}: the rows have a {clash[0]!r} column, which the answers would "
                                     "replace: rename it first (Dataset.rename_columns)")
            names = [self.text_column, *([self.pair_column] if self.model.is_pair else [])]
            missing = [name for name in names if name not in batch]
            if missing:
                raise AttentiveError(f"{self.source}: no {missing[0]!r} column (columns: {', '.join(batch)})")
            rows = [{name: batch[name][i] for name in names} for i in range(len(batch[names[0]]))]
        places = ([f"{path}:{number}" for path, number in zip(*(batch[name] for name in WHERE))]
                  if self.record_column is not None else [None] * len(rows))
        texts = [self._text(row, self.text_column, place) for row, place in zip(rows, places)]
        pairs = ([self._text(row, self.pair_column, place) for row, place in zip(rows, places)]
                 if self.model.is_pair else None)
        checked = Expanded(*self.model.inputs.expand(texts, pairs, checked=Checked.TEXTS))  # each text checked once
        probabilities = self.model.predict_proba(checked, batch_size=self.batch_size)
        labels = np.asarray(self.model.labels, dtype=object)[probabilities.argmax(axis=1)]
        return {**batch, "label": labels, "probabilities": probabilities.astype(np.float32)}

    def _parsed(self, line, place: str) -> dict:
        try:
            return parsed_line(line, self.answer_key, key_option="answer_key")
        except LineProblem as exc:
            raise AttentiveError(f"{place}: {exc}") from None
        except (ValueError, RecursionError) as exc:
            raise AttentiveError(f"{place}: malformed JSON ({exc})") from None

    def _text(self, row: dict, column: str, place: str | None) -> str:
        text = row.get(column)
        text = str(text) if isinstance(text, np.str_) else text
        problem = f'empty or missing "{column}"' if text is None else (
            None if (found := text_problem(text)) is None else f'"{column}" is {found}')
        if problem is not None:
            raise AttentiveError(f"{place}: {problem}" if place is not None else
                                 f"{self.source}: a row's {problem}: {_preview(row)}")
        return text


def predict(data, model_dir: str | Path, *, output: str | Path | None = None, overwrite: bool = False,
            int8: bool | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
            concurrency: int | tuple[int, int] | None = None, threads: int = 1, text_column: str = "text",
            pair_column: str = "text_pair",
            answer_key: str = ANSWER_KEY):
    """Answer every row of `data` with the exported model in `model_dir` on Ray Data, in input order.

    `data`: a `ray.data.Dataset` with a `text_column`, or a JSONL path (a file, a folder of them, or a list; any
    storage Ray reads, `s3://...` included) of `attentive predict --input`'s form. `int8`: the graph, as
    `attentive.answer.onnx_backend.load` takes it (None: model.int8.onnx where the export has it, as `attentive predict`
    and `serve` run). `concurrency`: the actors' pool, a number or (min, max) (None: Ray's autoscaling pool); each actor
    computes with `threads` threads and asks Ray for `threads` CPUs. `answer_key`: where a written line's answer goes (a
    line or row holding it is refused). A path's read tasks ask for no CPU (reading a block is light beside answering
    it), so that actors filling every CPU cannot starve the reads; a Dataset's own reads need a CPU left over.

    Returns the answers as a lazy `ray.data.Dataset` (see the module's docstring), or, with `output` (a JSONL
    file, claimed by the rule every output file follows: refused where it exists unless `overwrite`, and never an
    input, a model's file, a folder or a device, nor in a missing folder), writes them there and returns its
    path."""
    rd = ray_data()
    from ..onnx_format.read import is_exported

    if not Path(model_dir).is_dir() or not is_exported(model_dir):
        raise AttentiveError(f"{model_dir}: not an exported model folder (make one with `attentive export`)")
    for name, value in (("batch_size", batch_size), ("threads", threads)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise AttentiveError(f"{name} must be a whole number of at least 1, not {value!r}")
    if not isinstance(answer_key, str) or not answer_key.strip() or answer_key in (text_column, pair_column):
        raise AttentiveError(f"answer_key must name a field other than the texts', not {answer_key!r}")
    if output is not None:  # the rule for every output file (attentive/folders/output_file.py)
        from ..folders.output_file import claim_file

        local = [data] if isinstance(data, (str, Path)) else [item for item in data if isinstance(item, (str, Path))] \
            if isinstance(data, Sequence) else []
        output = claim_file(output, option="output", overwrite=overwrite, inputs=local, models=[model_dir],
                            exists="give overwrite=True to replace it, or name another file")
    if isinstance(data, (str, Path)) or (isinstance(data, Sequence) and not isinstance(data, rd.Dataset)):
        paths = [str(data)] if isinstance(data, (str, Path)) else [str(path) for path in data]
        source = ", ".join(paths)
        dataset = rd.read_binary_files(paths, include_paths=True, num_cpus=0).flat_map(file_lines, num_cpus=0)
        record_column = RECORD
    elif isinstance(data, rd.Dataset):
        dataset, source, record_column = data, "the dataset", None
    else:
        raise AttentiveError(f"data must be a ray.data.Dataset or a JSONL path, not {type(data).__name__}")
    dataset.context.execution_options.preserve_order = True  # answers in input order
    answers = dataset.map_batches(
        Scorer, batch_size=batch_size, batch_format="numpy", compute=_pool(rd, concurrency), num_cpus=threads,
        fn_constructor_kwargs={"model_dir": str(Path(model_dir).resolve()), "int8": int8, "threads": threads,
                               "batch_size": batch_size, "text_column": text_column, "pair_column": pair_column,
                               "record_column": record_column, "source": source, "answer_key": answer_key})
    if output is None:
        return answers
    write_jsonl(answers, output, _labels(model_dir), record_column, answer_key)
    return output


def file_lines(row: dict) -> list[dict]:
    """The non-blank lines of one file read whole (`read_binary_files`: its "bytes" and "path"; gunzipped where
    the path ends in .gz, a UTF-8 byte order mark skipped), each as {RECORD: line, "path", "line": its number}. Lines
    end at "\\n" alone, as
    `attentive predict --input` reads them; Ray's `read_text` would also cut at the U+2028, U+0085 or "\\r" a
    JSON string may hold raw."""
    data, path = row["bytes"], row["path"]
    if path.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise AttentiveError(f"{path}: not a readable gzip file ({exc})") from None
    data = data[len(UTF8_BOM):] if data.startswith(UTF8_BOM) else data
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.strip():
            try:
                lines.append({RECORD: raw.decode("utf-8"), "path": path, "line": number})
            except UnicodeDecodeError:
                raise AttentiveError(f"{path}:{number}: not UTF-8 text") from None
    return lines


def _pool(rd, concurrency: int | tuple[int, int] | None):
    """The actor pool: a fixed size, (min, max) autoscaling, or None: Ray's default (1 to as many as fit)."""
    if concurrency is None:
        return rd.ActorPoolStrategy(min_size=1)
    if isinstance(concurrency, tuple):
        return rd.ActorPoolStrategy(min_size=concurrency[0], max_size=concurrency[1])
    return rd.ActorPoolStrategy(size=concurrency)


def _labels(model_dir: str | Path) -> list[str]:
    from ..folders.reading import read_json_in_folder

    return read_json_in_folder(Path(model_dir), "config.json")["labels"]


def answer_lines(batch: dict[str, np.ndarray], labels: list[str], record_column: str | None,
                 answer_key: str = ANSWER_KEY) -> list[str]:
    """The JSONL lines of a batch of answers, as `attentive predict --input` writes them: each row's JSON line as
    it is (or its own columns), with {"label", "probabilities" by label} under `answer_key`."""
    lines = []
    columns = [name for name in batch if name not in ANSWER_COLUMNS]
    for i, (label, probabilities) in enumerate(zip(batch["label"], batch["probabilities"])):
        answer = {"label": str(label), "probabilities": {name: float(p) for name, p in zip(labels, probabilities)}}
        if record_column is not None:
            lines.append(spliced(str(batch[record_column][i]), answer_key, answer))
        else:
            row = {name: _plain(batch[name][i]) for name in columns}
            lines.append(json.dumps({**row, answer_key: answer}, ensure_ascii=False))
    return lines


def _plain(value):
    """A numpy value as its JSON-ready Python value."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value.item() if isinstance(value, np.generic) else value


def write_jsonl(answers, output: Path, labels: list[str], record_column: str | None, answer_key: str) -> None:
    """Stream the answers, in order, into a scratch file beside `output`, then move it into place (so a killed
    run leaves no half-written `output`); the scratch file is removed if the run fails."""
    scratch = output.with_name(f".{output.name}.{os.getpid()}.partial")
    try:
        with open(scratch, "w", encoding="utf-8") as handle:
            for batch in answers.iter_batches(batch_size=None, batch_format="numpy"):
                handle.writelines(line + "\n" for line in answer_lines(batch, labels, record_column, answer_key))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(scratch, output)
    except Exception as exc:
        scratch.unlink(missing_ok=True)
        cause = _user_error(exc)
        if cause is not None:
            raise cause from None
        raise
    finally:
        scratch.unlink(missing_ok=True)


def _user_error(exc: BaseException) -> AttentiveError | None:
    """The AttentiveError an actor raised, as one line; None if it was no AttentiveError. Ray hands the driver
    its own error (a RayTaskError over a UserCodeException), the actor's exception kept only as the text of its
    traceback, whose line "attentive.errors.AttentiveError: ..." is the message."""
    if isinstance(exc, AttentiveError):
        return exc
    found = re.findall(r"^attentive\.errors\.AttentiveError: (.+)$", str(exc), flags=re.MULTILINE)
    return AttentiveError(found[-1].strip()) if found else None
