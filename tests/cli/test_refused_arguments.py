"""Arguments that would be ignored or misread are refused in one line (exit status 2) before any work: --fp32 given
a saved (PyTorch) model, a run to --compare that is no training run, a missing --unlabelled file, an analysis
`limit` below 1 given to the Python API."""
from __future__ import annotations

import pytest

import attentive
from attentive.cli import main

from ..helpers import copy_of_tiny_run, free_port


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("refused") / "run")


def refused(capsys, args: list[str]) -> str:
    """The one line the command exits 2 with."""
    capsys.readouterr()
    status = main(args)
    captured = capsys.readouterr()
    said = (captured.out + captured.err).strip()
    assert status == 2 and len(said.splitlines()) == 1 and "internal error" not in said, said
    return said


@pytest.mark.parametrize("command", [["predict", "RUN", "a fine film"], ["explain", "RUN", "a fine film"],
                                     ["evaluate", "RUN", "--split", "dev", "--output", "OUT"],
                                     ["serve", "RUN", "--port", "PORT"]])
def test_fp32_with_a_saved_model_is_refused(run, tmp_path, capsys, monkeypatch, command):
    import uvicorn

    def served(*args, **kwargs):
        raise AssertionError("serve started serving with --fp32")

    monkeypatch.setattr(uvicorn.Server, "run", served)  # a regression fails here rather than serving forever
    given = {"RUN": str(run), "OUT": str(tmp_path / "eval.json"), "PORT": str(free_port())}
    args = [given.get(arg, arg) for arg in command]
    said = refused(capsys, [*args, "--fp32"])
    assert f"--fp32 chooses between an export's int8 and float graphs; {run} is a saved PyTorch model" in said
    assert not (tmp_path / "eval.json").exists()


def test_a_run_to_compare_that_is_missing_or_no_run_is_refused(run, tmp_path, capsys):
    analyze = ["analyze", str(run), "--out", str(tmp_path / "report"), "--split", "dev", "--no-deletion"]
    missing, empty = tmp_path / "no-such-run", tmp_path / "empty"
    empty.mkdir()
    assert f"{missing}: no such folder to compare" in refused(capsys, [*analyze, "--compare", str(missing)])
    assert f"{empty}: not a training run to compare (no metrics.jsonl" in \
        refused(capsys, [*analyze, "--compare", str(run), "--compare", str(empty)])
    assert not (tmp_path / "report").exists()


def test_a_missing_unlabelled_file_is_said_to_be_missing(run, tmp_path, capsys):
    said = refused(capsys, ["distill", str(run), "--out", str(tmp_path / "student"), "--dataset", "sst2_sample",
                            "--unlabelled", str(tmp_path / "missing.jsonl")])
    assert said == f"error: {tmp_path / 'missing.jsonl'}: file not found"
    assert not (tmp_path / "student").exists()


@pytest.mark.parametrize("limit", [-5, 0, 2.5, True])
def test_an_analysis_limit_below_one_is_a_value_error_naming_it(run, sst2_small, tmp_path, limit):
    with pytest.raises(ValueError, match=r"^limit=.*: must be an integer ≥ 1, or None for every text"):
        attentive.load(run).analyze(sst2_small, tmp_path / "report", "dev", limit=limit, deletion=False)
    assert not (tmp_path / "report").exists()
