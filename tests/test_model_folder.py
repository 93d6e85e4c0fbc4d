"""A model folder is never lost or mixed: training refuses to replace a model unless asked, a save killed at any
point leaves the old or the new model (never a mix), the metrics log is appended, results about an older model are
marked stale, and a damaged or hostile folder is a one-line error before anything large is allocated."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import safetensors.torch

import attentive
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.training.log import read_metrics_log

from .conftest import tiny_overrides

OVERRIDES = tiny_overrides("lama_ctx")


@pytest.fixture(scope="module")
def run(sst2_small, tmp_path_factory):
    out = tmp_path_factory.mktemp("folder") / "run"
    attentive.train(sst2_small, "lama_ctx", out, overrides=OVERRIDES, show_progress=False)
    return out


def copy_of(run, tmp_path):
    return shutil.copytree(run, tmp_path / "copy")


def test_training_into_a_model_folder_is_refused_without_overwrite(run, sst2_small, tmp_path):
    folder = copy_of(run, tmp_path)
    before = (folder / "model.safetensors").read_bytes()
    with pytest.raises(AttentiveError, match="already holds a model: give --overwrite"):
        attentive.train(sst2_small, "lama_ctx", folder, overrides=OVERRIDES, show_progress=False)
    assert (folder / "model.safetensors").read_bytes() == before
    first_log = (folder / "metrics.jsonl").read_text()

    attentive.train(sst2_small, "lama_ctx", folder, overrides=OVERRIDES + ["train.seed=5"], show_progress=False,
                    overwrite=True)
    log = (folder / "metrics.jsonl").read_text()
    assert log.startswith(first_log), "the old run's log is kept, the new run appended"
    assert [r["epoch"] for r in read_metrics_log(folder)] == [1, 2]
    assert not (folder / "checkpoint").exists(), "a finished run leaves no checkpoint behind"


def test_an_untrained_model_is_never_saved(sst2_small, tmp_path):
    with pytest.raises(AttentiveError, match="train.epochs must be an integer ≥ 1"):
        attentive.train(sst2_small, "lama_ctx", tmp_path / "m", overrides=OVERRIDES + ["train.epochs=0"])
    assert not (tmp_path / "m").exists()


def test_an_evaluation_of_an_older_model_is_marked_stale(run, sst2_small, tmp_path, capsys):
    folder = copy_of(run, tmp_path)
    assert main(["evaluate", str(folder), "--dataset", "sst2_sample", "--split", "dev"]) == 0
    result = folder / "eval-sst2_sample-dev.json"
    assert "stale" not in json.loads(result.read_text())
    attentive.train(sst2_small, "lama_ctx", folder, overrides=OVERRIDES, show_progress=False, overwrite=True)
    marked = json.loads(result.read_text())
    assert "now holds model" in marked["stale"] and marked["model_id"] != attentive.load(folder).config["model_id"]


KILLED_SAVE = """
import os, signal, sys
import attentive
from attentive import saved

folder, kill_at = sys.argv[1], int(sys.argv[2])
model = attentive.load(folder)
model.network.embedder.table.weight.data *= 2
model.config["generation"] = "new"
calls = 0
real_replace = os.replace

def replace(source, target):
    global calls
    calls += 1
    if calls == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, target)

os.replace = replace
model.save(folder)
"""


@pytest.mark.parametrize("kill_at", [1, 2, 3, 4, 5])
def test_a_save_killed_between_its_writes_leaves_the_old_or_the_new_model(run, tmp_path, kill_at):
    folder = copy_of(run, tmp_path)
    old = safetensors.torch.load_file(str(folder / "model.safetensors"))["embedder.table.weight"].numpy()
    done = subprocess.run([sys.executable, "-c", KILLED_SAVE, str(folder), str(kill_at)], capture_output=True)
    # os.replace runs 4 times in a save (the commit, then each of the 3 files): kill_at 5 lets it finish
    assert done.returncode == (-9 if kill_at <= 4 else 0), done.stderr.decode()[-500:]
    model = attentive.load(folder)
    weights = model.network.embedder.table.weight.detach().numpy()
    if kill_at == 1:  # killed before the commit: the old model, untouched
        assert "generation" not in model.config and np.array_equal(weights, old)
    else:  # killed after it: the load finishes the save, and the new model is whole
        assert model.config["generation"] == "new" and np.array_equal(weights, old * 2)
    assert not (folder / ".written").exists()


def test_a_damaged_folder_is_a_one_line_error(run, tmp_path, capsys):
    folder = copy_of(run, tmp_path)
    weights = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(weights[: len(weights) // 2])
    assert main(["predict", str(folder), "a fine film"]) == 2
    assert "model.safetensors: tensor embedder.table.weight ends at byte 101,472 of the data, but the file holds" \
        in capsys.readouterr().err

    (folder / "model.safetensors").write_bytes(weights)
    (folder / "tokenizer.json").write_text((run / "tokenizer.json").read_text()[:100])
    assert main(["predict", str(folder), "a fine film"]) == 2
    assert "tokenizer.json: unreadable tokenizer" in capsys.readouterr().err


@pytest.mark.parametrize("change, message", [
    (lambda c: c.pop("labels"), "no 'labels' entry"),
    (lambda c: c.update(labels="positive"), "'labels' must be a list of at least two different strings"),
    (lambda c: c.update(vocab_size=10**10), "does not match the weights (embedder.table.weight: config gives "
                                             "(10000000000,"),
    (lambda c: c["recipe"]["pooler"].update(heads=10**6), "does not match the weights"),
])
def test_a_hostile_config_is_refused_before_anything_is_allocated(run, tmp_path, capsys, change, message):
    folder = copy_of(run, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    change(config)
    (folder / "config.json").write_text(json.dumps(config))
    assert main(["predict", str(folder), "a fine film"]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()) and len(err.strip().splitlines()) == 1
