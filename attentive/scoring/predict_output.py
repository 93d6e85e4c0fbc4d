"""Where `attentive predict` writes its answer lines: stdout, or `--output OUT` appended to a chunk at a time with its
progress sidecar OUT.progress ({"input_line", "output_lines", "input", "model_id", "answers"}, written atomically
after each chunk), and how a `--resume` picks up from that record (attentive/scoring/parallel_predict.py)."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AttentiveError
from ..folders.output_file import claim_file
from ..util.atomic import atomic_write_bytes, atomic_write_json
from ..util.user_files import cut_to_lines

PROGRESS_SUFFIX = ".progress"
MAX_PROGRESS_BYTES = 1 << 20


class StdoutSink:
    def write(self, lines: list[str], last_line: int) -> None:
        for line in lines:
            print(line)
        sys.stdout.flush()

    def finish(self, last_line: int, complete: bool) -> None:
        pass


@dataclass
class FileSink:
    """OUT, appended to a chunk at a time, and its progress sidecar rewritten after each."""

    path: Path
    input: str
    model_id: str
    output_lines: int
    input_line: int = 0
    answers: dict | None = None  # how its lines answer (`answer_format`), so that a resume answers alike
    handle: object = field(default=None, repr=False)

    def __post_init__(self):
        self.handle = open(self.path, "ab")

    def write(self, lines: list[str], last_line: int) -> None:
        if lines:
            self.handle.write("".join(line + "\n" for line in lines).encode("utf-8"))
            self.handle.flush()
            os.fsync(self.handle.fileno())
        self.output_lines += len(lines)
        self.input_line = max(self.input_line, last_line)
        self.record()

    def record(self, complete: bool = False) -> None:
        atomic_write_json(progress_path(self.path), {
            "input_line": self.input_line, "output_lines": self.output_lines, "input": self.input,
            "model_id": self.model_id, "answers": self.answers, "complete": complete})

    def finish(self, last_line: int, complete: bool) -> None:
        self.input_line = max(self.input_line, last_line)
        self.record(complete)
        self.close()

    def close(self) -> None:
        if not self.handle.closed:
            self.handle.close()


def progress_path(output: Path) -> Path:
    return output.with_name(output.name + PROGRESS_SUFFIX)


def model_identity(model, folder: Path) -> str:
    """The model's model_id, or its folder where it has none."""
    return str(model.config.get("model_id") or Path(folder).resolve())


@dataclass
class Resumed:
    """What a resumed run skips: OUT's complete lines, and what its progress recorded."""

    output_lines: int
    recorded_lines: int
    recorded_input_line: int


def answer_format(model, answer_key: str | None, options: dict) -> dict:
    """What decides how an output line answers: the answer's key, the top words (and what they rank by) and threshold
    asked for, the abstain threshold that applies (asked for, else the model's own; only where there is one), and
    the graph an export runs (int8 or fp32). A resumed run must answer as the run it continues."""
    below = options.get("abstain_below")
    below = getattr(model, "abstain_below", None) if below is None and model.thresholds is None else below
    return {"answer_key": answer_key, "top_k": options.get("top_k"), "threshold": options.get("threshold"),
            "top_words_by": options.get("top_words_by", "auto"), "graph": getattr(model, "graph", None),
            **({"abstain_below": below} if below is not None else {})}


def open_output(output: Path, input_file: Path | None, model_id: str, resume: bool,
                answers: dict | None = None) -> tuple[FileSink, Resumed | None]:
    """The sink writing OUT (claimed by `claim_output`), and what a resumed run skips (None: a fresh start).
    Refused: --resume without a progress file beside a non-empty OUT, or with another input, model or answer format
    (`answer_format`; a progress file written before it was recorded is taken as it is) than the run it continues."""
    output = Path(output)
    progress = progress_path(output)
    where = str(Path(input_file).resolve()) if input_file is not None else "text"
    if resume:
        if input_file is None:
            raise AttentiveError("--resume reads the --input FILE again from its start: give --input")
        if not Path(input_file).is_file():
            raise AttentiveError(f"--resume reads the input again from its start: {input_file} is not a regular file")
        if progress.is_file():
            recorded = _read_progress(progress)
            if recorded["input"] != where:
                raise AttentiveError(f"{output} answers {recorded['input']}, not {where}: resume with that --input, "
                                     "or give --overwrite to start again")
            if recorded["model_id"] != model_id:
                raise AttentiveError(f"{output} was written by another model (model_id {recorded['model_id']}, this "
                                     f"one {model_id}): resume with that model, or give --overwrite to start again")
            if recorded.get("answers") not in (None, answers):
                raise AttentiveError(f"{output} was written with other answer options ({_options(recorded['answers'])}"
                                     f"; now {_options(answers)}): resume with those, or give --overwrite to start "
                                     "again")
            lines, cut = cut_to_lines(output, recorded["output_lines"])
            short = lines < recorded["output_lines"]  # its progress is known again once a chunk is written
            if short or cut:
                print(f"cut {output} back to line {lines}: continuing", file=sys.stderr, flush=True)
            return (FileSink(output, where, model_id, lines, 0 if short else recorded["input_line"], answers),
                    Resumed(lines, recorded["output_lines"], recorded["input_line"]))
        if output.exists() and output.stat().st_size > 0:
            raise AttentiveError(f"{output} has no {progress.name}: predict did not write it, there is nothing to "
                                 "resume (give --overwrite to replace it)")
    atomic_write_bytes(output, b"")  # a new empty file, never one emptied in place; the sink appends
    sink = FileSink(output, where, model_id, 0, answers=answers)
    sink.record()
    return sink, None


def _options(answers) -> str:
    return ", ".join(f"{key} {value}" for key, value in answers.items()) if isinstance(answers, dict) else str(answers)


def claim_output(output: Path, input_file: Path | None, folder: Path, resume: bool, overwrite: bool) -> Path:
    """OUT (links resolved) and its progress file, by the rule for output files (attentive/folders/output_file.py):
    an existing one is replaced only with --overwrite, or continued with --resume."""
    rule = dict(option="--output", overwrite=overwrite or resume, inputs=[input_file], models=[folder],
                exists="give --resume to continue it, or --overwrite to replace it")
    output = claim_file(output, **rule)
    claim_file(progress_path(output), **rule)
    return output


def _read_progress(progress: Path) -> dict:
    try:
        if progress.stat().st_size > MAX_PROGRESS_BYTES:
            raise ValueError("too large")
        recorded = json.loads(progress.read_text(encoding="utf-8"))
        if not (isinstance(recorded, dict) and isinstance(recorded.get("input"), str)
                and isinstance(recorded.get("output_lines"), int) and isinstance(recorded.get("input_line"), int)
                and isinstance(recorded.get("model_id"), str)):
            raise ValueError("entries missing")
    except (ValueError, UnicodeDecodeError) as exc:
        raise AttentiveError(f"{progress}: not a progress file of predict ({exc}): give --overwrite to start "
                             "again") from exc
    return recorded
