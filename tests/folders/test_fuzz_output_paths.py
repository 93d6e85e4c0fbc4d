"""Fuzzing the rule for output files (attentive/folders/output_file.py, issue 43, item 1): 2,000 seeded random
targets through `claim_file`, each claimed target then written as a command writes it, and 30 through the real
CLI (evaluate, explain, predict on one tiny trained model). Targets: new names, existing files of the user's, the
model's own files, the input file, links to each of them, a hard link to the input, a FIFO, /dev/null, folders,
missing folders, link loops and names no file system takes. Nothing may raise but an AttentiveError (the CLI: exit 0
or 2), and no byte of a file that was there may change, but the claimed file's, and that one only with overwrite."""
from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path

import pytest

from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.folders.output_file import claim_file
from attentive.util.atomic import atomic_write_bytes

from ..helpers import copy_of_tiny_run

SEED = 20260043
MODEL = {"config.json": b'{"recipe": {}, "labels": ["a", "b"], "model_id": "m"}\n', "model.safetensors": b"\0" * 64,
         "tokenizer.json": b"{}\n"}
EXPORT = {"config.json": b'{"format": "attentive-onnx-1", "recipe": {}, "labels": ["a", "b"]}\n',
          "model.onnx": b"graph"}


def lay_out(root: Path, run: Path | None = None) -> dict[str, Path]:
    """The places targets are drawn from, under `root` (the model `run` read by the command, or a fake one)."""
    places = {}
    if run is None:
        run = root / "run"
        run.mkdir()
        for name, data in MODEL.items():
            (run / name).write_bytes(data)
    places["run"] = run
    for folder, files in (("other", MODEL), ("export", EXPORT)):
        (root / folder).mkdir()
        for name, data in files.items():
            (root / folder / name).write_bytes(data)
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("my own notes\n")
    (root / "mine" / "in.jsonl").write_text('{"text": "a fine film"}\n')
    (root / "mine" / "test.tsv").write_text("text\tlabel\na fine film\tpositive\na dull film\tnegative\n")
    os.link(root / "mine" / "in.jsonl", root / "mine" / "hard.jsonl")
    os.mkfifo(root / "fifo")
    links = {"to_notes": root / "mine" / "notes.txt", "to_config": run / "config.json", "to_other": root / "other",
             "to_null": Path("/dev/null"), "to_fifo": root / "fifo", "to_folder": root / "mine",
             "to_nothing": root / "mine" / "gone.txt", "to_no_folder": root / "no" / "x.json",
             "to_input": root / "mine" / "in.jsonl", "loop_a": root / "loop_b", "loop_b": root / "loop_a"}
    for name, target in links.items():
        (root / name).symlink_to(target)
    return places


def candidates(root: Path, run: Path, device: str) -> list[str]:
    """Target paths as a user could type them (relative to `root`, the working directory, or absolute)."""
    named = ["mine/notes.txt", "mine/in.jsonl", "mine/hard.jsonl", "mine/test.tsv", "mine/new.json", "new.html",
             "fifo", device, "mine", ".", "", "..", "mine/..", "no/such/x.json", "mine/notes.txt/x",
             "other/config.json", "other/new.json", "export/model.onnx", "export/x.png", "other", "export",
             "to_other/model.safetensors", *(f"{link}" for link in ("to_notes", "to_config", "to_null", "to_fifo",
                                                                   "to_folder", "to_nothing", "to_no_folder",
                                                                   "to_input", "loop_a")),
             "to_folder/notes.txt", "to_folder/brand-new.txt", "x" * 300, "mine/a\nb.json", "mine/é ü.json",
             "mine/.hidden", "./mine/../new2.json", "mine/" + "d/" * 3 + "x"]
    inside = [str(run / name) for name in (*MODEL, "notes.txt", "eval-x-test.json", "eval-mine.json", "sub/x")]
    return named + inside + [str(root / name) for name in named[:8]]


def files_under(root: Path) -> dict[str, bytes | str]:
    """Every entry under `root` (links not followed): a regular file's bytes, else what it is."""
    found = {}
    for folder, folders, names in os.walk(root):
        for name in names + folders:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            found[str(path)] = path.read_bytes() if stat.S_ISREG(mode) else stat.S_IFMT(mode)
    return found


def check_writes(before: dict, after: dict, target: Path | None, overwrite: bool, protected: set[str]) -> None:
    """Only the claimed target may be new or changed, an existing one only with overwrite; protected files never."""
    changed = {path for path in before if after.get(path) != before[path]}
    new = set(after) - set(before)
    assert not (changed & protected), changed & protected
    allowed = set() if target is None else {str(target)}
    assert changed <= allowed and new <= allowed, (target, changed, new)
    if changed:
        assert overwrite, f"{target} replaced without overwrite"


def test_two_thousand_random_targets_through_claim_file(tmp_path, monkeypatch):
    root = tmp_path.resolve()
    places = lay_out(root)
    run = places["run"]
    monkeypatch.chdir(root)
    monkeypatch.setattr(os, "fsync", lambda descriptor: None)  # the writes' durability is not what is tested here
    pool = candidates(root, run, "/dev/null")
    generator = random.Random(SEED)
    protected = {str(path) for folder in ("run", "other", "export") for path in (root / folder).iterdir()}
    outcomes = {"claimed": 0, "refused": 0}
    before = files_under(root)  # what is there before each target, kept up to date
    for _ in range(2000):
        path = generator.choice(pool)
        overwrite = generator.random() < 0.6
        inputs = [root / "mine" / "in.jsonl"] if generator.random() < 0.7 else []
        models = [run] if generator.random() < 0.8 else []
        own = (lambda target: target.name.startswith("eval-")) if generator.random() < 0.5 else (lambda target: False)
        try:
            target = claim_file(path, option="--output", overwrite=overwrite, inputs=inputs, models=models, own=own)
        except AttentiveError as exc:
            assert str(exc).startswith("--output ")
            outcomes["refused"] += 1
            assert files_under(root) == before
            continue
        outcomes["claimed"] += 1
        assert root in target.parents, f"{path!r} claimed {target}, outside the test's folder"
        assert target.parent.is_dir() and (not target.exists() or target.is_file())
        if models and run in target.parents:
            assert target.parent == run and own(target)
        if inputs and target.exists():
            assert not os.path.samefile(target, inputs[0]), f"{path!r} is the input file"
        atomic_write_bytes(target, f"written for {path!r}\n".encode("utf-8"))
        after = files_under(root)
        check_writes(before, after, target, overwrite, protected - ({str(target)} if models and own(target) else set()))
        before = after
    assert (root / "fifo").is_fifo() and Path("/dev/null").is_char_device()
    assert outcomes["claimed"] > 200 and outcomes["refused"] > 1000, outcomes


@pytest.fixture(scope="module")
def trained(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("fuzz_output_paths") / "run")


@pytest.mark.slow
def test_thirty_random_targets_through_the_cli(trained, tmp_path, monkeypatch, capsys):
    root = tmp_path.resolve()
    run = root / "run"
    run.mkdir()
    for entry in trained.iterdir():
        if entry.is_file():
            (run / entry.name).write_bytes(entry.read_bytes())
    lay_out(root, run)
    monkeypatch.chdir(root)
    pool = [path for path in candidates(root, run, "to_null") if "\n" not in path]
    generator = random.Random(SEED + 1)
    protected = {str(path) for path in run.iterdir()} | {str(path) for folder in ("other", "export")
                                                         for path in (root / folder).iterdir()}
    statuses = []
    for number in range(30):
        path = generator.choice(pool)
        overwrite = generator.random() < 0.6
        command = generator.choice(["evaluate", "predict", "explain-html", "explain-png"])
        args, inputs = {
            "evaluate": (["evaluate", str(run), "--file", "mine/test.tsv", "--output", path], {"mine/test.tsv"}),
            "predict": (["predict", str(run), "--input", "mine/in.jsonl", "--output", path], {"mine/in.jsonl"}),
            "explain-html": (["explain", str(run), "--input", "mine/in.jsonl", "--html", path], {"mine/in.jsonl"}),
            "explain-png": (["explain", str(run), "--input", "mine/in.jsonl", "--png", path], {"mine/in.jsonl"}),
        }[command]
        before = files_under(root)
        capsys.readouterr()
        status = main(args + (["--overwrite"] if overwrite else []))
        err = capsys.readouterr().err.strip().splitlines()
        statuses.append(status)
        assert status in (0, 2), (number, args, err)
        assert status == 0 or len(err) == 1, (args, err)
        after = files_under(root)
        written = {Path(p) for p in set(after) - set(before) | {p for p in before if after.get(p) != before[p]}}
        written -= {Path(p) for p in after if p.endswith(".progress")}  # predict's own sidecar beside its output
        target = next(iter(written)) if len(written) == 1 else None
        assert len(written) <= 1, (args, written)
        check_writes({p: v for p, v in before.items() if not p.endswith(".progress")},
                     {p: v for p, v in after.items() if not p.endswith(".progress")}, target, overwrite,
                     protected | {str(root / name) for name in inputs})
        json.loads((run / "config.json").read_text())  # the model is still whole
    assert (root / "fifo").is_fifo() and Path("/dev/null").is_char_device()
    assert statuses.count(0) >= 3 and statuses.count(2) >= 10, statuses
