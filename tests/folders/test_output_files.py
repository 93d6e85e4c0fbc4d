"""One rule for every file a command writes under a name the user gives (issue 43, item 1;
attentive/folders/output_file.py): an existing file is replaced only with --overwrite; never the input file, a file
of the model read or of any other model folder, a folder, a device or a FIFO; a missing folder is an error, not
created. Every Path option of every command is classified here, so that a new one fails until it is."""
from __future__ import annotations

import inspect
import json
import os
import shutil
import typing
from pathlib import Path

import pytest

import attentive
from attentive.cli import app, main

from ..helpers import copy_of_tiny_run, tiny_model

# Every Path option (or argument, by its parameter's name in capitals) of every command: what it names.
PATH_OPTIONS = {
    ("train", "--out"): "output-folder", ("train", "--train"): "input", ("train", "--dev"): "input",
    ("train", "--test"): "input", ("train", "--resume"): "output-folder", ("train", "--data-dir"): "input",
    ("distill", "TEACHERS"): "input", ("distill", "--out"): "output-folder", ("distill", "--train"): "input",
    ("distill", "--dev"): "input", ("distill", "--test"): "input", ("distill", "--data-dir"): "input",
    ("evaluate", "RUN"): "input", ("evaluate", "--file"): "input", ("evaluate", "--output"): "output-file",
    ("evaluate", "--data-dir"): "input",
    ("abstain", "RUN"): "input", ("abstain", "--oos-dev"): "input", ("abstain", "--in-scope-dev"): "input",
    ("predict", "RUN"): "input", ("predict", "--input"): "input", ("predict", "--output"): "output-file",
    ("explain", "RUN"): "input", ("explain", "--input"): "input", ("explain", "--html"): "output-file",
    ("explain", "--png"): "output-file",
    ("export", "RUN"): "input", ("export", "--out"): "output-folder",
    ("serve", "RUN"): "input",
    ("analyze", "RUN"): "input", ("analyze", "--out"): "output-folder", ("analyze", "--file"): "input",
    ("analyze", "--compare"): "input", ("analyze", "--data-dir"): "input",
    ("cv", "--out"): "output-folder", ("cv", "--train"): "input", ("cv", "--data-dir"): "input",
    ("tune", "--out"): "output-folder", ("tune", "--train"): "input", ("tune", "--dev"): "input",
    ("tune", "--data-dir"): "input",
    ("datasets", "--data-dir"): "input",
    ("demo", "--out"): "output-folder",
    ("suggest", "RUN"): "input", ("suggest", "--unlabelled"): "input", ("suggest", "--output"): "output-file",
}

# How each output-file option is given on a command line: {run}, {data} (a labelled TSV), {target} are filled in.
OUTPUT_FILE_COMMANDS = {
    ("evaluate", "--output"): ["evaluate", "{run}", "--file", "{data}", "--output", "{target}"],
    ("predict", "--output"): ["predict", "{run}", "a gorgeous film", "--output", "{target}"],
    ("explain", "--html"): ["explain", "{run}", "a gorgeous film", "--html", "{target}"],
    ("explain", "--png"): ["explain", "{run}", "a gorgeous film", "--png", "{target}"],
    ("suggest", "--output"): ["suggest", "{run}", "--unlabelled", "{data}", "--label-column", "to_label", "--output",
                              "{target}"],  # a label column the file lacks: its labelled rows are all offered
}


def path_options() -> set[tuple[str, str]]:
    """(command, option) for every parameter of every command whose type is a Path (alone, optional or a list)."""
    found = set()
    for command in app.registered_commands:
        callback = command.callback
        hints = typing.get_type_hints(callback)
        for name, parameter in inspect.signature(callback).parameters.items():
            hint = hints[name]
            kinds = {hint, *typing.get_args(hint)}
            kinds |= {inner for kind in list(kinds) for inner in typing.get_args(kind)}
            if Path in kinds:
                decls = getattr(parameter.default, "param_decls", None)
                found.add((command.name or callback.__name__, decls[0] if decls else name.upper()))
    return found


def test_every_path_option_of_every_command_is_classified():
    found = path_options()
    assert ("explain", "--html") in found and ("distill", "TEACHERS") in found  # the introspection sees them
    assert found - PATH_OPTIONS.keys() == set(), "classify the new option (input, output-file or output-folder)"
    assert PATH_OPTIONS.keys() - found == set(), "an option classified here is gone"
    outputs = {key for key, kind in PATH_OPTIONS.items() if kind == "output-file"}
    assert outputs == OUTPUT_FILE_COMMANDS.keys(), "give each output-file option a command line to test"


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("output_files") / "run")


@pytest.fixture(scope="module")
def data(run):
    path = run.parent / "test.tsv"
    examples = attentive.load_dataset("sst2_sample").splits["test"][:40]
    path.write_text("text\tlabel\n" + "".join(f"{ex.text}\t{ex.label}\n" for ex in examples))
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def cli(capsys, args: list) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    return status, capsys.readouterr().err.strip().splitlines()


def command_line(key, run, data, target, *extra) -> list:
    return [part.format(run=run, data=data, target=target) for part in OUTPUT_FILE_COMMANDS[key]] + list(extra)


@pytest.mark.parametrize("key", sorted(OUTPUT_FILE_COMMANDS))
def test_each_output_file_option_replaces_an_existing_file_only_with_overwrite(key, run, data, tmp_path, capsys):
    target = tmp_path / "mine.out"
    target.write_bytes(b"my own notes\n")
    status, err = cli(capsys, command_line(key, run, data, target))
    assert status == 2 and len(err) == 1, err
    assert f"{key[1]} {target} exists" in err[0] and "--overwrite" in err[0]
    assert target.read_bytes() == b"my own notes\n"
    status, err = cli(capsys, command_line(key, run, data, target, "--overwrite"))
    assert status == 0, err
    assert target.read_bytes() != b"my own notes\n" and target.stat().st_size > 0


@pytest.mark.parametrize("key", sorted(OUTPUT_FILE_COMMANDS))
@pytest.mark.parametrize("name", ["config.json", "model.safetensors", "notes.txt"])
def test_no_option_writes_into_the_model_it_reads_even_with_overwrite(key, name, run, data, capsys):
    before = snapshot(run)
    status, err = cli(capsys, command_line(key, run, data, run / name, "--overwrite"))
    assert status == 2 and len(err) == 1, err
    assert f"{key[1]} {run / name} is inside the folder of the model it reads" in err[0]
    assert snapshot(run) == before
    attentive.load(run)


@pytest.mark.parametrize("key", sorted(OUTPUT_FILE_COMMANDS))
def test_no_option_writes_into_another_model_folder(key, run, data, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(run, other)
    before = snapshot(other)
    status, err = cli(capsys, command_line(key, run, data, other / "config.json", "--overwrite"))
    assert status == 2 and len(err) == 1 and f"inside {other}, which holds a saved model" in err[0], err
    assert snapshot(other) == before


@pytest.mark.parametrize("key", sorted(OUTPUT_FILE_COMMANDS))
def test_a_folder_a_fifo_a_device_or_a_missing_folder_is_refused(key, run, data, tmp_path, capsys):
    fifo, device = tmp_path / "fifo", tmp_path / "null"
    os.mkfifo(fifo)
    device.symlink_to("/dev/null")  # a link: code without the rule replaces the link, never the device itself
    for target, problem in [(tmp_path, "is a folder"), (Path("."), "is a folder"), (fifo, "is a FIFO"),
                            (device, "is a device"), (tmp_path / "no" / "such" / "x.out", "does not exist")]:
        status, err = cli(capsys, command_line(key, run, data, target, "--overwrite"))
        assert status == 2 and len(err) == 1 and problem in err[0] and key[1] in err[0], (target, err)
    assert fifo.is_fifo() and not (tmp_path / "no").exists()


@pytest.mark.parametrize("key", sorted(OUTPUT_FILE_COMMANDS))
def test_a_link_is_followed_and_the_rule_applies_to_its_target(key, run, data, tmp_path, capsys):
    link = tmp_path / "link.out"
    link.symlink_to(run / "config.json")
    before = snapshot(run)
    status, err = cli(capsys, command_line(key, run, data, link, "--overwrite"))
    assert status == 2 and f"(a link to {(run / 'config.json').resolve()})" in err[0], err
    assert snapshot(run) == before and link.is_symlink()

    mine = tmp_path / "mine.out"
    mine.write_bytes(b"notes\n")
    link.unlink()
    link.symlink_to(mine)
    assert cli(capsys, command_line(key, run, data, link))[0] == 2 and mine.read_bytes() == b"notes\n"
    assert cli(capsys, command_line(key, run, data, link, "--overwrite"))[0] == 0
    assert link.is_symlink() and mine.read_bytes() != b"notes\n", "the link's target is written, the link kept"


def test_the_input_file_is_never_the_output(run, data, tmp_path, capsys):
    before = data.read_bytes()
    status, err = cli(capsys, ["evaluate", run, "--file", data, "--output", data, "--overwrite"])
    assert status == 2 and "is the input file" in err[0] and data.read_bytes() == before
    lines = tmp_path / "in.jsonl"
    lines.write_text('{"text": "a fine film"}\n')
    hard = tmp_path / "hard.jsonl"
    os.link(lines, hard)  # the same file under another name
    for option in ("--html", "--png"):
        status, err = cli(capsys, ["explain", run, "--input", lines, option, hard, "--overwrite"])
        assert status == 2 and "is the input file" in err[0], err
    assert lines.read_text() == '{"text": "a fine film"}\n'


def test_html_and_png_are_not_one_file(run, tmp_path, capsys):
    status, err = cli(capsys, ["explain", run, "a fine film", "--html", tmp_path / "x", "--png", tmp_path / "x"])
    assert status == 2 and "--png" in err[0] and "is the --html file too" in err[0]
    assert not (tmp_path / "x").exists()


def test_evaluate_writes_its_own_results_into_the_model_folder_and_nothing_else(run, tmp_path, capsys):
    folder = tmp_path / "model"
    shutil.copytree(run, folder)
    args = ["evaluate", folder, "--dataset", "sst2_sample", "--split", "dev"]
    assert cli(capsys, args)[0] == 0
    result = folder / "eval-sst2_sample-dev.json"
    assert cli(capsys, args)[0] == 0 and json.loads(result.read_text())["n"] > 0  # evaluating again replaces it
    named = folder / "eval-sst2_sample-test.json"  # the default name, holding no result of evaluate: kept
    named.write_text('{"my": "notes"}\n')
    status, err = cli(capsys, [*args[:-1], "test"])
    assert status == 2 and "is inside the folder of the model it reads" in err[0]
    assert named.read_text() == '{"my": "notes"}\n'
    named.unlink()
    explicit = tmp_path / "eval.json"  # a file the user names: replaced only with --overwrite
    assert cli(capsys, [*args, "--output", explicit])[0] == 0
    first = explicit.read_bytes()
    status, err = cli(capsys, [*args, "--output", explicit])
    assert status == 2 and f"--output {explicit} exists: give --overwrite" in err[0] and explicit.read_bytes() == first
    assert cli(capsys, [*args, "--output", explicit, "--overwrite"])[0] == 0

    mine = folder / "eval-mine.json"  # a file of the user's with evaluate's kind of name: never replaced or marked
    mine.write_text('{"my": "notes"}\n')
    status, err = cli(capsys, [*args, "--output", mine, "--overwrite"])
    assert status == 2 and "is inside the folder of the model it reads" in err[0]
    tiny_model(folder, overwrite=True)  # a new model: the earlier results are marked stale
    assert mine.read_text() == '{"my": "notes"}\n', "mark_stale_results marks evaluate's results only"
    assert "stale" in json.loads(result.read_text())


def test_predict_output_dot_is_one_line(run, capsys):
    status, err = cli(capsys, ["predict", run, "a fine film", "--output", "."])
    assert status == 2 and err == ["error: --output . is a folder: name a file"]
