"""Data-parallel training under torchrun (attentive/training/distributed.py; issue 36 item 1): two gloo ranks on
the CPU train one model with identical parameters, rank 0 alone writes the folder, `attentive train --nproc 2`
launches the same, a rank that fails stops the whole job with its error instead of leaving the others hanging, a
killed run resumes to the model an unbroken run trains, and each rank draws its own dropout stream."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

import attentive
from attentive.cli import main
from attentive.cli import training as training_cli
from attentive.folders.metrics_log import LOG
from attentive.folders.saved import MODEL_FILES
from attentive.training import distributed

from ..helpers import free_port, tiny_overrides

pytestmark = pytest.mark.slow  # torchrun processes

OVERRIDES = tiny_overrides("lama_ctx")
MODEL_FOLDER = {*MODEL_FILES, LOG, ".attentive-manifest.json"}  # the three files, the log and their manifest
TIMEOUT = 240  # seconds: a hang fails the test instead of the suite

# Run by torchrun in each rank: train through the public API (rank 0 writes OUT, the other ranks write nothing),
# then write this rank's parameter digest beside, as a file of the test's own.
SCRIPT = textwrap.dedent("""
    import glob, hashlib, json, os, signal, sys
    import torch
    import attentive

    rank = int(os.environ["RANK"])
    out, digests, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    overrides = json.loads(os.environ["DDP_TEST_OVERRIDES"])

    def fail_on_rank_1(record):
        if rank == 1:
            raise RuntimeError("rank 1 fails on purpose after epoch 1")

    def kill_rank_0(record):  # called once the epoch's checkpoint is written
        if rank == 0 and record["epoch"] == 1:
            os.kill(os.getpid(), signal.SIGKILL)

    def threads():  # the names of this process's threads
        return [open(task).read().strip() for task in glob.glob("/proc/self/task/*/comm")]

    on_epoch = {"fail": fail_on_rank_1, "kill": kill_rank_0}.get(mode)
    model = attentive.train(train=os.environ["DDP_TEST_TRAIN"], dev=os.environ["DDP_TEST_DEV"], recipe="lama_ctx",
                            out=out, overrides=overrides, show_progress=False, on_epoch=on_epoch,
                            resume=mode == "resume")
    digest = hashlib.sha256()
    for name, tensor in sorted(model.network.state_dict().items()):
        digest.update(name.encode() + tensor.detach().cpu().contiguous().numpy().tobytes())
    with open(os.path.join(digests, f"rank{rank}.json"), "w") as f:
        json.dump({"digest": digest.hexdigest(), "training": model.config["training"],
                   "dropout_seed": torch.initial_seed(),  # the seed of the stream the last epoch drew from
                   "gloo_threads": [name for name in threads() if "gloo" in name]}, f)  # the group's, left running
""")


def network_digest(network) -> str:
    import hashlib

    digest = hashlib.sha256()
    for name, tensor in sorted(network.state_dict().items()):
        digest.update(name.encode() + tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def files(tmp_path_factory, sst2_small) -> dict[str, Path]:
    """300 training and 100 dev rows of the bundled SST-2 sample, as JSONL files."""
    folder = tmp_path_factory.mktemp("ddp_data")
    paths = {"train": folder / "train.jsonl", "dev": folder / "dev.jsonl"}
    for split, count in (("train", 300), ("dev", 100)):
        rows = [json.dumps({"text": ex.text, "label": ex.label}) for ex in sst2_small.splits[split][:count]]
        paths[split].write_text("\n".join(rows) + "\n", encoding="utf-8")
    return paths


def torchrun_env(tmp_path: Path, files: dict[str, Path], overrides: list[str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    env.update(OMP_NUM_THREADS="1", ATTENTIVE_THREADS="1", ATTENTIVE_CACHE=str(tmp_path / "cache"),
               DDP_TEST_TRAIN=str(files["train"]), DDP_TEST_DEV=str(files["dev"]),
               DDP_TEST_OVERRIDES=json.dumps(overrides),
               PYTHONPATH=os.pathsep.join([str(Path(attentive.__file__).parent.parent),
                                           *filter(None, [os.environ.get("PYTHONPATH")])]))
    return env


def run_script(tmp_path: Path, files: dict[str, Path], mode: str, overrides: list[str], out: str = "model",
               digests: str = "digests"):
    script, digests, out = tmp_path / "train_rank.py", tmp_path / digests, tmp_path / out
    script.write_text(SCRIPT, encoding="utf-8")
    digests.mkdir()
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-addr",
               "127.0.0.1", "--master-port", str(free_port()), str(script), str(out), str(digests), mode]
    result = subprocess.run(command, env=torchrun_env(tmp_path, files, overrides), capture_output=True, text=True,
                            timeout=TIMEOUT, cwd=tmp_path)
    return result, out, digests


# word2vec vectors: rank 0 trains and caches them, rank 1 reads them once it is done; three epochs, so that the run is
# also the unbroken one a killed and resumed run must end at; the linear model fitted after training (`wide.prior`),
# which rank 0 fits and the other ranks take from it
UNBROKEN = [o for o in OVERRIDES if not o.startswith("embedder.vectors")] + [
    "embedder.vectors=word2vec", "train.epochs=3", "train.patience=3", "wide.type=ngrams", "wide.buckets=4096",
    "wide.prior=true"]


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory, files):
    """An unbroken two-rank run (UNBROKEN), made once for the module: its folder, its ranks' digests, its cache."""
    tmp_path = tmp_path_factory.mktemp("unbroken")
    result, out, digests = run_script(tmp_path, files, "train", UNBROKEN)
    assert result.returncode == 0, result.stderr[-3000:]
    return tmp_path, out, digests


def test_two_ranks_train_one_model_with_identical_parameters_written_once(unbroken):
    tmp_path, out, digests = unbroken
    ranks = {path.name: json.loads(path.read_text()) for path in digests.iterdir()}
    assert set(ranks) == {"rank0.json", "rank1.json"}
    seeds = [rank.pop("dropout_seed") for rank in ranks.values()]
    assert seeds[0] != seeds[1]  # each rank drew dropout from a stream of its own
    # the process group is gone once training returns: a thread of it left running aborted a rank at exit now and
    # then (attentive/training/distributed.py, average_gradients)
    assert [rank.pop("gloo_threads") for rank in ranks.values()] == [[], []]
    for rank in ranks.values():
        del rank["training"]["epoch_seconds"]  # each rank's own clock
    assert ranks["rank0.json"] == ranks["rank1.json"]  # same weights, same best epoch and dev accuracy
    assert {path.name for path in out.iterdir()} == MODEL_FOLDER  # no lock, checkpoint or staging left behind
    records = [json.loads(line) for line in (out / LOG).read_text().splitlines() if line.strip()]
    assert [r["epoch"] for r in records if "epoch" in r] == [1, 2, 3]  # logged once, by rank 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cache", "digests", "model", "train_rank.py"]
    model = attentive.load(out)
    assert network_digest(model.network) == ranks["rank0.json"]["digest"]  # the folder holds the ranks' weights
    assert model.config["prior"]["weight"] >= 0  # rank 1's rows took rank 0's fitted linear model (same digest)
    [answer] = model.predict("a gorgeous , witty film")
    assert answer.label in ("negative", "positive")


def test_train_nproc_launches_torchrun_with_the_same_options(tmp_path, files, monkeypatch, capfd):
    for key, value in torchrun_env(tmp_path, files, []).items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "model"
    status = main(["train", "--nproc", "2", "--out", str(out), "--train", str(files["train"]), "--dev",
                   str(files["dev"]), "--recipe", "lama_ctx", *[part for o in OVERRIDES for part in ("--set", o)]])
    assert status == 0
    assert {path.name for path in out.iterdir()} == MODEL_FOLDER
    assert attentive.load(out).config["training"]["epochs_run"] == 2
    # a second launch into the same folder is refused with the usual line, before torchrun starts any rank
    monkeypatch.setattr(training_cli, "_launch_torchrun", lambda *args: pytest.fail("torchrun was started"))
    status = main(["train", "--nproc", "2", "--out", str(out), "--train", str(files["train"]), "--dev",
                   str(files["dev"]), "--recipe", "lama_ctx", *[part for o in OVERRIDES for part in ("--set", o)]])
    assert status != 0
    assert "--overwrite" in capfd.readouterr().err


def test_a_failing_rank_stops_the_job_with_its_error_instead_of_hanging(tmp_path, files):
    result, out, digests = run_script(tmp_path, files, "fail", OVERRIDES)  # TIMEOUT bounds a hang
    assert result.returncode != 0
    assert "rank 1 fails on purpose after epoch 1" in result.stderr
    assert not list(digests.iterdir())  # no rank finished


def test_a_killed_run_resumes_to_the_model_an_unbroken_run_trains(tmp_path, files, unbroken):
    unbroken_path, _, unbroken_digests = unbroken
    expected = json.loads((unbroken_digests / "rank0.json").read_text())
    assert expected["training"]["epochs_run"] == 3
    shutil.copytree(unbroken_path / "cache", tmp_path / "cache")  # the same word2vec vectors, not trained again

    # rank 0 is killed (SIGKILL: no cleanup) right after epoch 1's checkpoint; torchrun then ends rank 1
    result, out, digests = run_script(tmp_path, files, "kill", UNBROKEN, "model", "killed_digests")
    assert result.returncode != 0 and not list(digests.iterdir())
    assert json.loads((out / "checkpoint" / "state.json").read_text())["epoch"] == 1

    result, out, digests = run_script(tmp_path, files, "resume", [], "model", "resumed_digests")
    assert result.returncode == 0, result.stderr[-3000:]
    ranks = {path.name: json.loads(path.read_text()) for path in digests.iterdir()}
    assert set(ranks) == {"rank0.json", "rank1.json"}
    assert ranks["rank0.json"]["digest"] == ranks["rank1.json"]["digest"] == expected["digest"]
    assert {path.name for path in out.iterdir()} == MODEL_FOLDER  # one model folder: no checkpoint or lock left
    records = [json.loads(line) for line in (out / LOG).read_text().splitlines() if line.strip()]
    assert [r["epoch"] for r in records if "epoch" in r] == [1, 2, 3]
    assert [r.get("resumed_after_epoch") for r in records if r.get("event") == "start"] == [None, 1]
    assert network_digest(attentive.load(out).network) == expected["digest"]


def test_each_rank_seeds_its_dropout_from_the_epochs_batches_and_its_rank():
    batches = [np.array([3, 1, 2]), np.array([0, 4])]
    assert distributed.rank_seed(batches, 0) == distributed.rank_seed([b.copy() for b in batches], 0)
    assert distributed.rank_seed(batches, 0) != distributed.rank_seed(batches, 1)
    assert distributed.rank_seed(batches, 0) != distributed.rank_seed(batches[::-1], 0)  # another epoch
    assert distributed.rank_seed([np.array([3, 1]), np.array([2, 0, 4])], 0) != distributed.rank_seed(batches, 0)
    draws = []
    for rank in (0, 1, 0):
        distributed.seed_rank_stream(batches, rank)
        draws.append(torch.nn.functional.dropout(torch.ones(64), 0.5).tolist())
    assert draws[0] == draws[2] != draws[1]
