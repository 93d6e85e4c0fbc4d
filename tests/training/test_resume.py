"""A training run killed with SIGKILL mid-epoch continues from its last checkpoint (`train --resume RUN`) and ends
with the same metrics, epoch by epoch, as the run that was never interrupted."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from attentive.cli import main
from attentive.folders.metrics_log import read_metrics_log

from ..helpers import tiny_overrides

pytestmark = pytest.mark.slow  # trains runs, kills them and trains them again

ARGS = ["train", "--dataset", "sst2_sample", "--recipe", "lama_ctx",
        *[arg for item in tiny_overrides("lama_ctx") + ["train.epochs=5", "train.patience=5"]
          for arg in ("--set", item)]]


def wait_for_checkpoint(run, process: subprocess.Popen, timeout: float = 120.0) -> None:
    """Until the run has committed its first checkpoint (after epoch 1)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (run / "checkpoint" / "state.json").exists():
            return
        assert process.poll() is None, "the run ended before it could be killed"
        time.sleep(0.01)
    pytest.fail(f"no checkpoint within {timeout} s")


def test_a_run_killed_mid_epoch_resumes_to_the_same_result(tmp_path):
    killed = tmp_path / "killed"
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-c", "from attentive.cli import run; run()", *ARGS,
                                "--out", str(killed)], env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_for_checkpoint(killed, process)
    process.send_signal(signal.SIGKILL)  # during epoch 2, far from the fifth
    process.wait()
    assert process.returncode == -signal.SIGKILL
    assert [r["epoch"] for r in read_metrics_log(killed)] in ([1], [1, 2])  # far from finished

    assert main(["train", "--resume", str(killed)]) == 0  # the data and recipe come from the checkpoint
    assert main([*ARGS, "--out", str(tmp_path / "whole")]) == 0
    resumed, whole = read_metrics_log(killed), read_metrics_log(tmp_path / "whole")
    assert [r["epoch"] for r in resumed] == [1, 2, 3, 4, 5]
    for a, b in zip(resumed, whole):
        assert a["dev_accuracy"] == b["dev_accuracy"]
        assert a["train_loss"] == pytest.approx(b["train_loss"], rel=1e-6)
    first, second = (json.loads((folder / "config.json").read_text())["training"] for folder in
                     (killed, tmp_path / "whole"))
    assert first["best_epoch"] == second["best_epoch"] and first["dev_accuracy"] == second["dev_accuracy"]
    assert not (killed / "checkpoint").exists()


def test_resume_without_a_checkpoint_and_resume_with_set_are_one_line_errors(tmp_path, capsys):
    assert main(["train", "--resume", str(tmp_path)]) == 2
    assert "no checkpoint to resume from" in capsys.readouterr().err
    assert main(["train", "--resume", str(tmp_path), "--set", "train.lr=0.1"]) == 2
    assert "drop --set" in capsys.readouterr().err
