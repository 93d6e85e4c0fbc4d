"""`attentive predict --input FILE --jobs N` (issue 36, item 4): worker processes give the same bytes as one process,
in input order; bad lines keep their meaning; `--output FILE` is resumable after a kill and refuses what it must."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from attentive.cli import main
from attentive.scoring import predict_output

from ..helpers import copy_of_tiny_run

pytestmark = pytest.mark.slow  # worker processes


@pytest.fixture(scope="module")
def run_dir(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("predict_jobs") / "run")


def write_input(path, sst2_small, n=300, bad=()):
    """n lines of real sentences with their own fields; the line numbers (1-based) in `bad` have a blank text."""
    texts = [ex.text for split in ("train", "dev") for ex in sst2_small.splits[split]][:n]
    lines = [json.dumps({"id": i, "text": text if i + 1 not in bad else "  ", "note": "é"}, ensure_ascii=False)
             for i, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(capsys, *args) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, out, err.strip().splitlines()


def test_two_jobs_write_the_same_bytes_as_one_in_input_order(run_dir, sst2_small, tmp_path, capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small)
    status, one_job, _ = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "16")
    assert status == 0
    status, _, _ = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "16", "--jobs", "2",
                       "--output", tmp_path / "two.jsonl")
    assert status == 0
    written = (tmp_path / "two.jsonl").read_bytes()
    assert written == one_job.encode("utf-8")
    answers = [json.loads(line) for line in written.decode().splitlines()]
    assert [a["id"] for a in answers] == list(range(300)) and all(a["note"] == "é" for a in answers)
    assert all(set(a["prediction"]["probabilities"]) == {"negative", "positive"} for a in answers)
    progress = json.loads((tmp_path / "two.jsonl.progress").read_text())
    assert progress["input_line"] == 300 and progress["output_lines"] == 300 and progress["complete"] is True
    assert progress["model_id"] == json.loads((run_dir / "config.json").read_text())["model_id"]


def test_a_bad_line_stops_two_jobs_after_every_line_before_it(run_dir, sst2_small, tmp_path, capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=200, bad={150})
    status, one_job, one_err = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "16")
    assert status == 2
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "16", "--jobs", "2",
                         "--output", tmp_path / "out.jsonl")
    assert status == 2
    written = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert written == one_job and [json.loads(line)["id"] for line in written.splitlines()] == list(range(149))
    errors = [line for line in err if line.startswith("error")]
    assert errors == [line for line in one_err if line.startswith("error")]
    assert len(errors) == 1 and 'in.jsonl:150: empty or missing "text"' in errors[0]


def test_bad_lines_skipped_by_two_jobs_are_counted(run_dir, sst2_small, tmp_path, capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=120, bad={7, 60, 61})
    status, one_job, _ = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "8", "--on-error", "skip")
    assert status == 0
    status, two_jobs, err = cli(capsys, "predict", run_dir, "--input", source, "--batch-size", "8", "--jobs", "2",
                                "--on-error", "skip")
    assert status == 0 and two_jobs == one_job
    assert [json.loads(line)["id"] for line in two_jobs.splitlines()] == [i for i in range(120) if i not in (6, 59, 60)]
    assert sum("in.jsonl:" in line and "(skipped)" in line for line in err) == 3
    assert "3 line(s) skipped" in err[-1]


def test_a_run_killed_mid_chunk_resumes_to_the_uninterrupted_output(run_dir, sst2_small, tmp_path, capsys,
                                                                      monkeypatch):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=300, bad={100})
    common = ["predict", run_dir, "--input", source, "--batch-size", "8", "--on-error", "skip"]
    assert cli(capsys, *common, "--output", tmp_path / "whole.jsonl")[0] == 0  # one process, uninterrupted
    whole = (tmp_path / "whole.jsonl").read_bytes()

    out = tmp_path / "out.jsonl"
    write, calls = predict_output.FileSink.write, []

    def killed_on_the_third_chunk(self, lines, last_line):
        calls.append(len(lines))
        if len(calls) < 3:
            return write(self, lines, last_line)
        half = "".join(line + "\n" for line in lines[:len(lines) // 2]) + lines[len(lines) // 2][:20]
        self.handle.write(half.encode("utf-8"))  # half a chunk and a torn line; the progress file not rewritten
        self.handle.flush()
        raise KeyboardInterrupt

    monkeypatch.setattr(predict_output.FileSink, "write", killed_on_the_third_chunk)
    assert cli(capsys, *common, "--jobs", "2", "--output", out)[0] == 130
    monkeypatch.undo()
    progress = json.loads((tmp_path / "out.jsonl.progress").read_text())
    written = out.read_bytes()
    assert progress["output_lines"] == sum(calls[:2]) < written.count(b"\n") and not written.endswith(b"\n")
    assert whole.startswith(written) and len(written) < len(whole)

    status, _, err = cli(capsys, *common, "--jobs", "2", "--output", out)
    assert status == 2 and "exists: give --resume" in err[-1]  # never replaced without being asked
    status, printed, _ = cli(capsys, *common, "--jobs", "2", "--output", out, "--resume")
    assert status == 0 and printed == ""
    assert out.read_bytes() == whole
    progress = json.loads((tmp_path / "out.jsonl.progress").read_text())
    assert progress["output_lines"] == 299 and progress["input_line"] == 300 and progress["complete"] is True
    status, _, _ = cli(capsys, *common, "--output", out, "--resume")  # a finished output: nothing more to write
    assert status == 0 and out.read_bytes() == whole


def test_resume_refuses_another_input_or_model_and_output_is_never_replaced_unasked(run_dir, sst2_small, tmp_path,
                                                                                     capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=20)
    other = write_input(tmp_path / "other.jsonl", sst2_small, n=30)
    out = tmp_path / "out.jsonl"
    assert cli(capsys, "predict", run_dir, "--input", source, "--output", out)[0] == 0
    first = out.read_bytes()

    status, _, err = cli(capsys, "predict", run_dir, "--input", other, "--output", out, "--resume")
    assert status == 2 and len(err) == 1 and "in.jsonl, not" in err[0] and "other.jsonl" in err[0]

    progress = tmp_path / "out.jsonl.progress"
    recorded = json.loads(progress.read_text())
    progress.write_text(json.dumps({**recorded, "model_id": "another-model"}))
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", out, "--resume")
    assert status == 2 and len(err) == 1 and "another model" in err[0]
    assert out.read_bytes() == first

    progress.write_text(json.dumps(recorded))
    for other_options in (["--top-k", "2"], ["--answer-key", "answer"], ["--top-words-by", "attention"]):
        status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", out, "--resume",
                             *other_options)  # a resume answers as the run it continues
        assert status == 2 and len(err) == 1 and "was written with other answer options (answer_key prediction, " \
            "top_k 5, threshold None, top_words_by auto, graph None" in err[0] and out.read_bytes() == first

    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", out)
    assert status == 2 and len(err) == 1 and "--overwrite" in err[0] and out.read_bytes() == first
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--resume")
    assert status == 2 and len(err) == 1 and "--output" in err[0]

    mine = tmp_path / "mine.jsonl"  # a file predict did not write: no resuming into it, no replacing it unasked
    mine.write_text("my own notes\n")
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", mine, "--resume")
    assert status == 2 and "predict did not write it" in err[0] and mine.read_text() == "my own notes\n"
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", source, "--overwrite")
    assert status == 2 and "is the input file" in err[0]

    assert cli(capsys, "predict", run_dir, "--input", source, "--output", out, "--overwrite")[0] == 0
    assert out.read_bytes() == first and json.loads(progress.read_text())["model_id"] == recorded["model_id"]


def test_a_changed_input_is_refused_on_resume(run_dir, sst2_small, tmp_path, capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=40)
    out = tmp_path / "out.jsonl"
    assert cli(capsys, "predict", run_dir, "--input", source, "--output", out, "--batch-size", "8")[0] == 0
    progress = tmp_path / "out.jsonl.progress"
    recorded = json.loads(progress.read_text())
    kept = b"".join(out.read_bytes().splitlines(keepends=True)[:16])
    out.write_bytes(kept)  # as if killed after two batches
    progress.write_text(json.dumps({**recorded, "input_line": 16, "output_lines": 16, "complete": False}))
    write_input(source, sst2_small, n=40, bad={3})  # a line the first run answered is now blank
    status, _, err = cli(capsys, "predict", run_dir, "--input", source, "--output", out, "--resume",
                         "--batch-size", "8", "--on-error", "skip")
    assert status == 2 and "the input has changed" in err[-1] and out.read_bytes() == kept


def descendants(pid: int) -> set[int]:
    """The processes under `pid`: its children (the fork server, multiprocessing's resource tracker) and theirs (the
    workers, forked by the server)."""
    found = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                found |= {int(child) for child in open(f"/proc/{pid}/task/{task}/children").read().split()}
    for child in list(found):
        found |= descendants(child)
    return found


def alive(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the worker processes from /proc")
def test_a_killed_process_leaves_no_workers_and_resumes_to_the_uninterrupted_output(run_dir, sst2_small, tmp_path,
                                                                                      capsys):
    source = write_input(tmp_path / "in.jsonl", sst2_small, n=750)
    common = ["predict", run_dir, "--input", source, "--batch-size", "2"]
    assert cli(capsys, *common, "--output", tmp_path / "whole.jsonl")[0] == 0
    whole = (tmp_path / "whole.jsonl").read_bytes()
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen([sys.executable, "-c", "from attentive.cli import run; run()",
                                *map(str, common), "--jobs", "2", "--output", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while not (out.exists() and out.read_bytes().count(b"\n") > 0) and time.monotonic() < deadline:
            workers |= descendants(process.pid)
            time.sleep(0.005)
        workers |= descendants(process.pid)
        process.kill()
        process.wait()
        assert process.returncode == -signal.SIGKILL
        assert 0 < out.read_bytes().count(b"\n") < 750 and len(workers) >= 3  # the server and two workers
        deadline = time.monotonic() + 20
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(pid) for pid in workers)
    finally:
        for pid in workers | {process.pid}:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert cli(capsys, *common, "--jobs", "2", "--output", out, "--resume")[0] == 0
    assert out.read_bytes() == whole
