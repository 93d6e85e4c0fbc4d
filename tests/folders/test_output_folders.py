"""No command deletes what it did not write (issue 31, findings 1 and 4): `export`, `train` and `analyze` refuse an
output folder holding anything they did not write unless `--overwrite`, and then replace only their own files; they
never write over the input model or a folder holding it or the working directory, even with `--overwrite`; a
failed run leaves nothing behind; and a second writer to a folder exits 2 naming the first."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.folders.manifest import MANIFEST
from attentive.folders.output import LOCK, locked
from attentive.training import pipeline

from ..helpers import copy_of_tiny_run, tiny_overrides

OVERRIDES = tiny_overrides("lama_ctx") + ["train.epochs=1"]
TRAIN = ["train", "--dataset", "sst2_sample", "--recipe", "lama_ctx",
         *[arg for item in OVERRIDES for arg in ("--set", item)]]


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    """The session's tiny model (trained with OVERRIDES), in a folder of this module's own."""
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("models") / "run")


def users_folder(path, **files):
    """A folder of the user's own files (notes.txt unless told), returned with a snapshot of them."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {"notes.txt": "my notes"}).items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    return path, snapshot(path)


def snapshot(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_export_into_a_folder_of_user_files_is_refused_and_the_files_survive(run, tmp_path, capsys):
    folder, before = users_folder(tmp_path / "mine")
    assert main(["export", str(run), "--out", str(folder)]) == 2
    err = error_line(capsys)
    assert "notes.txt" in err and "--overwrite" in err
    assert snapshot(folder) == before and sorted(os.listdir(tmp_path)) == ["mine"]


def test_export_over_the_input_model_is_refused_even_with_overwrite_and_the_model_is_intact(run, capsys):
    before = snapshot(run)
    for out in (run, run.parent):  # the model itself, a folder holding it
        for overwrite in ([], ["--overwrite"]):
            assert main(["export", str(run), "--out", str(out), *overwrite]) == 2
            assert "input model" in error_line(capsys)
    assert snapshot(run) == before and attentive.load(run).predict("a film")


@pytest.mark.parametrize("out", [".", ".."])
def test_export_into_the_working_directory_or_above_it_is_refused_even_with_overwrite(out, run, tmp_path,
                                                                                       monkeypatch, capsys):
    above, before = users_folder(tmp_path / "above", **{"notes.txt": "mine", "work/draft.txt": "mine too"})
    monkeypatch.chdir(above / "work")
    for overwrite in ([], ["--overwrite"]):
        assert main(["export", str(run), "--out", out, *overwrite]) == 2
        assert "working directory" in error_line(capsys)
    assert snapshot(above) == before and sorted(os.listdir(above)) == ["notes.txt", "work"]


def test_export_to_a_file_is_one_line_and_leaves_no_staging_folder(run, tmp_path, capsys):
    target = tmp_path / "model.bin"
    target.write_text("not a folder")
    for overwrite in ([], ["--overwrite"]):
        status = main(["export", str(run), "--out", str(target), *overwrite])
        assert sorted(os.listdir(tmp_path)) == ["model.bin"] and target.read_text() == "not a folder"
        assert status == 2 and "is a file, not a folder" in error_line(capsys)


def test_export_overwrite_replaces_an_earlier_export_and_keeps_the_users_files(run, tmp_path, capsys):
    out = tmp_path / "onnx"
    assert main(["export", str(run), "--out", str(out), "--int8"]) == 0
    (out / "notes.txt").write_text("my notes")
    (out / ".attentive-scratch-of-a-killed-export").mkdir()
    assert main(["export", str(run), "--out", str(out)]) == 2  # an earlier export is replaced only when asked
    assert "already holds an export: give --overwrite" in error_line(capsys)

    assert main(["export", str(run), "--out", str(out), "--overwrite"]) == 0
    assert sorted(os.listdir(out)) == [MANIFEST, "config.json", "model.onnx", "notes.txt", "tokenizer.json"]  # int8
    assert (out / "notes.txt").read_text() == "my notes"                           # graph and the scratch were ours
    assert json.loads((out / "config.json").read_text())["graphs"] == ["model.onnx"]
    assert onnx_backend.load(out).predict("a gorgeous film")[0].label in ("negative", "positive")


def test_export_never_writes_over_a_trained_model(run, tmp_path, capsys):
    other = shutil.copytree(run, tmp_path / "other_run")
    before = snapshot(other)
    for overwrite in ([], ["--overwrite"]):
        assert main(["export", str(run), "--out", str(other), *overwrite]) == 2
        assert "holds a trained model" in error_line(capsys)
    assert snapshot(other) == before


def test_a_failed_export_leaves_nothing_behind(run, tmp_path, monkeypatch):
    import torch

    from attentive.onnx_format.write import export

    def broken(*args, **kwargs):
        raise RuntimeError("the exporter broke")

    monkeypatch.setattr(torch.onnx, "export", broken)
    model = attentive.load(run)
    with pytest.raises(RuntimeError, match="the exporter broke"):
        export(model, tmp_path / "new" / "onnx")
    assert not (tmp_path / "new").exists(), "folders the export created are removed again"
    folder, before = users_folder(tmp_path / "mine")
    with pytest.raises(RuntimeError, match="the exporter broke"):
        export(model, folder, overwrite=True)
    assert snapshot(folder) == before and sorted(os.listdir(folder)) == ["notes.txt"]


def test_train_into_a_folder_of_user_files_is_refused(tmp_path, capsys):
    folder, before = users_folder(tmp_path / "mine")
    assert main([*TRAIN, "--out", str(folder)]) == 2
    assert "notes.txt" in error_line(capsys)
    assert snapshot(folder) == before and sorted(os.listdir(folder)) == ["notes.txt"]


def test_train_leaves_a_users_own_checkpoint_folder_alone(tmp_path, capsys):
    folder, before = users_folder(tmp_path / "P", **{"checkpoint/weights.txt": "my own checkpoint"})
    for overwrite in ([], ["--overwrite"]):
        assert main([*TRAIN, "--out", str(folder), *overwrite]) == 2
        assert "checkpoint" in error_line(capsys)
        assert snapshot(folder) == before


def test_training_holds_the_lock_all_run_and_with_overwrite_writes_beside_the_users_files(sst2_small, tmp_path,
                                                                                           monkeypatch):
    folder, before = users_folder(tmp_path / "mine")
    write, probed = pipeline.write_checkpoint, []

    def write_then_probe(out, state, tokenizer_json):
        write(out, state, tokenizer_json)
        with pytest.raises(AttentiveError, match=rf"being written by attentive train \(pid {os.getpid()}"):
            with locked(out, "probe"):
                pass
        probed.append(state.epoch)

    monkeypatch.setattr(pipeline, "write_checkpoint", write_then_probe)
    attentive.train(sst2_small, "lama_ctx", folder, overrides=OVERRIDES, show_progress=False, overwrite=True)
    assert probed == [1]
    assert sorted(os.listdir(folder)) == [MANIFEST, "config.json", "metrics.jsonl", "model.safetensors", "notes.txt",
                                          "tokenizer.json"]  # no lock file, no checkpoint left behind
    assert (folder / "notes.txt").read_bytes() == before["notes.txt"]


HOLD_THE_LOCK = """
import sys, time
from attentive.folders.output import locked

with locked(sys.argv[1], "train"):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("command", ["train", "export", "analyze"])
def test_a_second_writer_exits_2_naming_the_first(command, run, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    first = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "held"
        second = {"train": [*TRAIN, "--out", str(out)], "export": ["export", str(run), "--out", str(out)],
                  "analyze": ["analyze", str(run), "--out", str(out), "--dataset", "sst2_sample", "--split", "dev",
                              "--limit", "20", "--no-deletion"]}[command]
        assert main(second) == 2
        assert f"being written by attentive train (pid {first.pid}" in capsys.readouterr().err
        assert os.listdir(out) == [LOCK], "the second writer wrote nothing"
    finally:
        first.kill()
        first.wait()
    with locked(out, "next"):  # a killed writer's lock is gone with it
        pass
    assert os.listdir(out) == []


def test_analyze_refuses_a_folder_of_user_files_unless_overwrite_and_then_keeps_them(run, tmp_path, capsys):
    folder, before = users_folder(tmp_path / "mine")
    analyze = ["analyze", str(run), "--dataset", "sst2_sample", "--split", "dev", "--limit", "40", "--no-deletion",
               "--out", str(folder)]
    assert main(analyze) == 2
    assert "notes.txt" in error_line(capsys)
    assert snapshot(folder) == before

    assert main([*analyze, "--overwrite"]) == 0
    assert (folder / "index.html").exists() and (folder / "notes.txt").read_bytes() == before["notes.txt"]
    (folder / "notes.txt").unlink()
    assert main(analyze) == 0, "an earlier report is replaced without being asked"
    assert [name for name in os.listdir(folder) if name.startswith(".")] == [MANIFEST]  # no lock, no scratch
