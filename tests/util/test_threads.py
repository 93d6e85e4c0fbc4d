"""Threads (attentive/util/threads.py): the default divides the usable cores among the local processes, --threads
reaches PyTorch and ONNX Runtime, and an oversubscribed machine gets one warning line."""
from __future__ import annotations

import json
import os

import pytest
import torch

from attentive.cli import main
from attentive.cli.app import _load_any
from attentive.util import threads as threads_module
from attentive.util.threads import default_threads, oversubscription_warning, use_threads

from ..helpers import tiny_overrides, write_tsv


@pytest.fixture
def torch_threads_restored():
    """Put PyTorch's thread count back after a test that changes it (conftest sets 1)."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.fixture
def four_cores(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)


def test_default_threads_divides_the_usable_cores_among_the_local_processes(four_cores, monkeypatch):
    assert default_threads() == 4
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert default_threads() == 2
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    assert default_threads() == 1  # at least one
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "not a number")
    assert default_threads() == 4


def test_default_threads_honours_omp_num_threads(four_cores, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as benchmarks/jobs.sh and torchrun pin it
    assert default_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    assert default_threads() == 4


def test_use_threads_sets_torch_s_threads(torch_threads_restored, four_cores):
    assert use_threads(3) == 3 and torch.get_num_threads() == 3
    assert use_threads(None) == 4 and torch.get_num_threads() == 4


@pytest.mark.parametrize("threads, processes, cores, load, warned", [
    (1, 1, 2, 0.1, False),
    (2, 1, 2, 0.3, False),  # all cores of an idle machine
    (2, 1, 2, 2.0, True),  # all cores while another job already keeps both busy
    (1, 1, 2, 2.0, False),  # one thread beside it, as the warning advises
    (2, 1, 2, None, False),  # no load average on this system
    (2, 2, 2, 0.0, True),  # 2 processes x 2 threads on 2 cores
    (1, 2, 2, 0.0, False),
    (4, 1, 2, 0.0, True),
])
def test_oversubscription_warning(threads, processes, cores, load, warned):
    message = oversubscription_warning(threads, processes, cores, load)
    assert (message is not None) == warned
    if warned:
        assert f"{cores} core" in message and "--threads 1" in message and "\n" not in message


def test_the_cli_prints_the_warning_once(run_dir, monkeypatch, capsys, torch_threads_restored):
    monkeypatch.setattr(threads_module, "usable_cores", lambda: 1)
    assert main(["predict", str(run_dir), "--threads", "2", "a film"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "--threads 1" in line]
    assert len(warnings) == 1 and "2 threads on 1 core(s)" in warnings[0]


@pytest.fixture(scope="module")
def run_dir(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("threads")
    files = {split: write_tsv(folder / f"{split}.tsv", sst2_small.splits[split][:200]) for split in ("train", "dev")}
    overrides = [arg for item in tiny_overrides("default") + ["train.epochs=1"] for arg in ("--set", item)]
    before = torch.get_num_threads()
    assert main(["train", "--train", str(files["train"]), "--dev", str(files["dev"]), "--out", str(folder / "run"),
                 "--threads", "1", *overrides]) == 0
    torch.set_num_threads(before)
    return folder / "run"


def test_predict_with_one_thread(run_dir, capsys, torch_threads_restored):
    torch.set_num_threads(2)
    capsys.readouterr()
    assert main(["predict", str(run_dir), "--threads", "1", "a gorgeous film"]) == 0
    assert torch.get_num_threads() == 1
    line = json.loads(capsys.readouterr().out)
    assert line["label"] in ("negative", "positive")


def test_an_exported_model_runs_on_the_threads_given(run_dir, tmp_path, capsys, torch_threads_restored):
    assert main(["export", str(run_dir), "--out", str(tmp_path / "onnx"), "--threads", "1"]) == 0
    model = _load_any(tmp_path / "onnx", 1)
    assert model.session.get_session_options().intra_op_num_threads == 1 and model.lanes.count == 1
    # two lanes of batches, each on one ONNX Runtime thread (attentive/answer/lanes.py)
    two = _load_any(tmp_path / "onnx", 2)
    assert two.session.get_session_options().intra_op_num_threads == 1 and two.lanes.count == 2
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "onnx"), "--threads", "1", "a gorgeous film"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] in ("negative", "positive")


def test_open_model_is_the_one_way_to_a_saved_or_an_exported_model(run_dir, tmp_path, torch_threads_restored):
    """The CLI, predict's workers and distillation's teachers all open a folder through attentive.api.open_model:
    a saved model with PyTorch on the threads given (None: as the process is set), an export on that many lanes."""
    from attentive import Model
    from attentive.answer.onnx_backend import RuntimeModel
    from attentive.distill import load_teacher
    from attentive.opening import open_model
    from attentive.scoring.parallel_predict import load_model

    torch.set_num_threads(2)
    assert isinstance(open_model(run_dir), Model) and torch.get_num_threads() == 2
    assert isinstance(open_model(run_dir, 1), Model) and torch.get_num_threads() == 1
    assert main(["export", str(run_dir), "--out", str(tmp_path / "onnx"), "--int8"]) == 0
    exported = open_model(tmp_path / "onnx", 2)
    assert isinstance(exported, RuntimeModel) and exported.lanes.count == 2 and exported.graph == "model.int8.onnx"
    assert open_model(tmp_path / "onnx", 1, int8=False).graph == "model.onnx"
    assert load_teacher(tmp_path / "onnx").graph == "model.onnx"  # the graph its digest reads
    assert load_model(tmp_path / "onnx", 1, "model.int8.onnx").graph == "model.int8.onnx"
    assert _load_any(tmp_path / "onnx", 1, fp32=True).graph == "model.onnx"
