"""Every option given a value out of its range, on every command that takes it, is refused before any work starts:
exit status 2 and one line naming the option, never "internal error"."""
from __future__ import annotations

import pytest
import typer

from attentive.cli import app, main

from ..helpers import copy_of_tiny_run


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("ranges") / "run")


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


NO_CUDA = pytest.mark.skipif(_cuda_available(), reason="this machine has CUDA: --device cuda is valid here")

# each command's arguments but the option tried (RUN: the tiny model, OUT: a fresh folder)
COMMANDS = {
    "train": ["train", "--out", "OUT", "--dataset", "sst2_sample"],
    "distill": ["distill", "RUN", "--out", "OUT", "--dataset", "sst2_sample"],
    "cv": ["cv", "--out", "OUT", "--dataset", "sst2_sample"],
    "tune": ["tune", "--out", "OUT", "--dataset", "sst2_sample"],
    "analyze": ["analyze", "RUN", "--out", "OUT", "--split", "dev"],
    "predict": ["predict", "RUN", "a fine film"],
    "evaluate": ["evaluate", "RUN", "--split", "dev", "--output", "OUT/eval.json"],
    "explain": ["explain", "RUN", "a fine film"],
    "export": ["export", "RUN", "--out", "OUT"],
    "serve": ["serve", "RUN", "--port", "0"],
    "abstain": ["abstain", "RUN", "--below", "0.1"],
    "suggest": ["suggest", "RUN", "--unlabelled", "POOL", "--output", "OUT/suggested.csv"],
}


def taking(option: str) -> set[str]:
    """The commands of the CLI that take `option`."""
    commands = typer.main.get_command(app).commands
    return {name for name, command in commands.items() if any(option in param.opts for param in command.params)}


def takers(option: str) -> list[str]:
    """The commands of COMMANDS that take `option`, in its order."""
    return [name for name in COMMANDS if name in taking(option)]


BAD = {"--device": ["tpu", "cuda:99", ""], "--threads": ["0", "-2"]}  # the options several commands take

CASES = [
    *((command, option, value) for option, values in BAD.items() for command in takers(option) for value in values),
    *(pytest.param(command, "--device", "cuda", marks=NO_CUDA) for command in takers("--device")),
    ("analyze", "--limit", "-5"),
    ("cv", "--folds", "1"),
    ("cv", "--folds", "0"),
    ("cv", "--folds", "-3"),
    ("cv", "--jobs", "0"),
    ("cv", "--jobs", "-1"),
    ("predict", "--jobs", "0"),
    ("tune", "--budget", "0s"),
    ("tune", "--budget", "-1m"),
    ("tune", "--budget", "soon"),
    ("train", "--budget", "0s"),
    ("train", "--budget", "soon"),
    ("predict", "--top-k", "-1"),
]


@pytest.mark.parametrize("command,option,value", CASES)
def test_an_option_out_of_range_is_one_line_naming_it(run, tmp_path, capsys, command, option, value):
    out = tmp_path / "out"
    pool = tmp_path / "pool.csv"
    pool.write_text("text\na fine film\na dull film\n")
    args = [str(run) if arg == "RUN" else str(pool) if arg == "POOL" else arg.replace("OUT", str(out))
            for arg in COMMANDS[command]]
    capsys.readouterr()
    status = main([*args, option, value])
    captured = capsys.readouterr()
    said = (captured.out + captured.err).strip()
    assert status == 2, said
    assert len(said.splitlines()) == 1 and option in said and "internal error" not in said, said
    assert not out.exists(), f"{command} wrote {out} before refusing {option} {value}"


@pytest.mark.parametrize("option", ["--device", "--threads", "--limit", "--folds", "--jobs", "--budget", "--top-k"])
def test_every_command_taking_an_option_is_tried(option):
    tried = {command for command, flag, _ in (getattr(case, "values", case) for case in CASES) if flag == option}
    assert taking(option) <= tried, f"add {sorted(taking(option) - tried)} to COMMANDS (and a bad {option} to CASES)"
