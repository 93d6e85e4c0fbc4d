"""A folder is a command's own by what it holds, not by its files' names (attentive/folders/manifest.py): files with
the command's own names and other content, another tool's export, a model trained for another folder, or a saved
model inside tune's trials/ and best/ or cv's folds/ are refused in one line before any work starts unless
--overwrite, and with it only the command's own files change; nothing is ever removed that the command cannot show
it wrote. Also: tune's study file must be tune's own and of this Optuna's schema, `--compact` claims its folders
before training, and a killed `cv --jobs 2` leaves no process and writes nothing more."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from attentive.cli import main
from attentive.explain.report import REPORT_FILES
from attentive.folders.manifest import MANIFEST, Owner, foreign_entries, owns_file, record, remove_owned
from attentive.onnx_format.write import EXPORT
from attentive.selection.cv import CV_FILES
from attentive.training.pipeline import TRAINING_RUN

from ..helpers import TINY, copy_of_tiny_run, tiny_overrides

SET = [arg for item in TINY + ["train.epochs=1"] for arg in ("--set", item)]
DEFAULT_SET = [arg for item in tiny_overrides("default") + ["train.epochs=1"] for arg in ("--set", item)]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under `folder` (relative path: bytes), the manifest and lock left out."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name not in (MANIFEST, ".attentive.lock")}


def refused(capsys, args) -> str:
    """The one error line of `attentive ARGS` (exit 2; the data report's lines may come before it)."""
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    lines = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert status == 2 and len(errors) == 1 and lines[-1] == errors[0], (status, lines)
    return errors[0]


def commands(run: Path) -> dict[str, tuple[list, frozenset[str]]]:
    """Each command that writes a folder: its arguments before --out, and the names of the files it writes."""
    sample = ["--dataset", "sst2_sample"]
    return {
        "train": (["train", *sample, "--recipe", "lama_ctx", *SET], TRAINING_RUN.files),
        "export": (["export", run], EXPORT.files),
        "analyze": (["analyze", run, *sample, "--split", "dev", "--limit", "40", "--no-deletion"], REPORT_FILES),
        "cv": (["cv", *sample, "--folds", "2", *DEFAULT_SET], CV_FILES),
        "tune": (["tune", *sample, "--budget", "30s", "--trials", "1", *DEFAULT_SET],
                 frozenset({"study.db", "trials.json", "tune.png"})),
        "distill": (["distill", run, *sample, "--augment", "0", *DEFAULT_SET], TRAINING_RUN.files),
    }


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory) -> Path:
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("ownership") / "run")


@pytest.mark.parametrize("command", ["train", "export", "analyze", "cv", "tune", "distill"])
@settings(max_examples=3, deadline=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_commands_own_names_with_other_content_are_refused(run, capsys, command, data):
    args, names = commands(run)[command]
    chosen = data.draw(st.lists(st.sampled_from(sorted(names)), min_size=1, unique=True))
    out = Path(tempfile.mkdtemp()) / "out"
    out.mkdir()
    for name in chosen:
        (out / name).write_bytes(data.draw(st.binary(max_size=64)))
    before = snapshot(out)
    error = refused(capsys, [*args, "--out", out])
    assert "did not write" in error and "--overwrite" in error
    assert snapshot(out) == before
    shutil.rmtree(out.parent)


@pytest.mark.slow  # trains and analyzes
@pytest.mark.parametrize("command", ["train", "export", "analyze"])
def test_with_overwrite_only_the_commands_files_change(run, tmp_path, capsys, command):
    args, names = commands(run)[command]
    out = tmp_path / "out"
    out.mkdir()
    for name in sorted(names)[:2]:
        (out / name).write_bytes(b"the user's own " + name.encode())
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    assert main([str(arg) for arg in [*args, "--out", out, "--overwrite"]]) == 0
    after = snapshot(out)
    assert set(before) <= set(after), "nothing was removed"
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed <= names and "notes.txt" not in changed  # only the command's own files were written
    assert all(owns_file(out, name, Owner.of(command, out)) for name in changed)


@pytest.mark.parametrize("files, command", [
    (["config.json", "tokenizer.json", "model.onnx"], "export"),  # another tool's ONNX folder
    (["config.json"], "export"),
    (["metrics.jsonl"], "train"),
    (["tokenizer.json", "model.safetensors"], "train"),
    (["index.html"], "analyze"),
    (["oof.jsonl"], "cv"),
])
def test_the_reviews_folders_are_refused_byte_for_byte(run, tmp_path, capsys, files, command):
    out = tmp_path / "theirs"
    out.mkdir()
    for name in files:
        (out / name).write_text(f"another tool's {name}")
    before = snapshot(out)
    refused(capsys, [*commands(run)[command][0], "--out", out])
    assert snapshot(out) == before and sorted(os.listdir(out)) == sorted(files)


def test_compact_claims_its_export_folder_before_training(tmp_path, capsys):
    theirs = tmp_path / "m-int8"
    theirs.mkdir()
    for name in ("config.json", "tokenizer.json", "model.onnx"):
        (theirs / name).write_text(f"another tool's {name}")
    before = snapshot(theirs)
    refused(capsys, ["train", "--dataset", "sst2_sample", "--recipe", "default", *DEFAULT_SET, "--out",
                     tmp_path / "m", "--compact"])
    assert not (tmp_path / "m").exists(), "the refusal comes before training: nothing is left behind"
    assert snapshot(theirs) == before


def test_a_manifest_proves_content_and_folder_not_names(tmp_path):
    owner = Owner.of("train", tmp_path)
    (tmp_path / "metrics.jsonl").write_text('{"event": "start"}\n')
    record(tmp_path, owner, growing=["metrics.jsonl"])
    assert owns_file(tmp_path, "metrics.jsonl", owner)
    with open(tmp_path / "metrics.jsonl", "a") as log:
        log.write('{"epoch": 1}\n')
    assert owns_file(tmp_path, "metrics.jsonl", owner), "a growing file stays ours as it is appended to"
    (tmp_path / "metrics.jsonl").write_text('{"epoch": 9}\n{"event": "start"}\n')
    assert not owns_file(tmp_path, "metrics.jsonl", owner), "its beginning changed"
    assert not owns_file(tmp_path, "metrics.jsonl", Owner.of("train", tmp_path / "elsewhere"))
    (tmp_path / "mine.txt").write_text("mine")
    assert foreign_entries(tmp_path, owner) == ["metrics.jsonl", "mine.txt"]
    remove_owned(tmp_path, owner)
    assert sorted(os.listdir(tmp_path)) == [MANIFEST, "metrics.jsonl", "mine.txt"]


@pytest.mark.slow  # cv trains its folds
def test_cv_never_removes_a_saved_model_under_its_folds(run, tmp_path, capsys):
    out = tmp_path / "cv"
    users = copy_of_tiny_run(run, out / "folds" / "7")
    before = snapshot(users)
    args = [*commands(run)["cv"][0], "--out", out]
    error = refused(capsys, args)
    assert "folds holds files attentive cv did not write ('7/" in error and snapshot(users) == before
    assert main([str(arg) for arg in [*args, "--overwrite"]]) == 0
    assert snapshot(users) == before, "--overwrite replaces cv's own files; a model it did not write stays"
    assert sorted(os.listdir(out / "folds")) == ["1", "2", "7"]


@pytest.mark.slow  # tune trains a trial
def test_tune_never_removes_or_replaces_a_saved_model_in_trials_or_best(run, tmp_path, capsys):
    out = tmp_path / "tune"
    for where in ("trials/3", "best"):
        users = copy_of_tiny_run(run, out / where)
        before = snapshot(users)
        error = refused(capsys, [*commands(run)["tune"][0], "--out", out])
        assert f"{where.split('/')[0]} holds files attentive tune did not write" in error
        assert snapshot(users) == before
        shutil.rmtree(users)
    args = [*commands(run)["tune"][0], "--out", out]
    users = copy_of_tiny_run(run, out / "trials" / "3")
    before = snapshot(users)
    assert main([str(arg) for arg in [*args, "--overwrite"]]) == 0
    assert snapshot(users) == before, "a trial folder tune did not write is left as it is"


def _optuna_study(path: Path) -> None:
    import optuna

    storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
    optuna.create_study(study_name="attentive-tune", storage=storage)
    storage.engine.dispose()


def test_a_study_tune_did_not_make_is_refused_and_left_as_it_is(run, tmp_path, capsys):
    out = tmp_path / "tune"
    out.mkdir()
    _optuna_study(out / "study.db")  # a real Optuna study, but not one tune recorded there
    before = snapshot(out)
    error = refused(capsys, [*commands(run)["tune"][0], "--out", out])
    assert "study.db" in error and snapshot(out) == before


def test_a_study_of_another_optuna_schema_is_refused_before_optuna_writes(run, tmp_path, capsys):
    out = tmp_path / "tune"
    out.mkdir()
    _optuna_study(out / "study.db")
    connection = sqlite3.connect(out / "study.db")
    connection.execute("update alembic_version set version_num = 'v2.6.0.a'")
    connection.commit()
    connection.close()
    record(out, Owner.of("tune", out), live=["study.db"])  # tune's own, written by an older Optuna
    before = snapshot(out)
    error = refused(capsys, [*commands(run)["tune"][0], "--out", out])
    assert "another Optuna version (schema v2.6.0.a" in error and "optuna storage upgrade" in error
    assert snapshot(out) == before


def _session_processes(session: int) -> list[int]:
    """The pids of the processes of `session` (a session id), from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[3]) == session:  # after the state: ppid, pgrp, session
            pids.append(int(entry))
    return pids


@pytest.mark.slow  # starts cv with two worker processes and kills it
def test_a_killed_cv_leaves_no_process_and_writes_nothing_more(tmp_path):
    out = tmp_path / "cv"
    command = [sys.executable, "-m", "attentive", "cv", "--dataset", "sst2_sample", "--folds", "4", "--jobs", "2",
               "--out", str(out), *[str(arg) for arg in DEFAULT_SET]]
    cv = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_session_processes(cv.pid)) < 4:  # cv, fork server, two workers
            time.sleep(0.2)
        assert len(_session_processes(cv.pid)) >= 4, "the workers never started"
    finally:
        os.kill(cv.pid, signal.SIGKILL)
        cv.wait()
    written = snapshot(out) if out.exists() else {}
    time.sleep(5)
    left = _session_processes(cv.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "processes of the killed cv still run"
    assert (snapshot(out) if out.exists() else {}) == written, "a file was written after cv was killed"


def test_an_export_where_a_saved_model_folder_is_needed_is_said_in_one_line(tmp_path):
    from attentive.errors import AttentiveError
    from attentive.folders.config import EXPORT_FORMAT, check_not_exported

    with pytest.raises(AttentiveError, match="an exported model: it answers .* but this needs the saved model folder"):
        check_not_exported(tmp_path / "config.json", {"format": EXPORT_FORMAT})
