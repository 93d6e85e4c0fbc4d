"""`attentive train --compact` (attentive/distill/compact.py): one command from a file to a deployable model: the
model trained, a student distilled from it and exported int8 beside it, both measured side by side."""
import json

import pytest

from attentive.cli import main

from ..helpers import tiny_overrides, write_tsv

pytestmark = pytest.mark.slow  # trains a model, then distils and exports a student


def test_train_compact_trains_distils_exports_and_compares(sst2_small, tmp_path, capsys):
    files = {split: write_tsv(tmp_path / f"{split}.tsv", sst2_small.splits[split][:300]) for split in ("train", "dev")}
    overrides = [arg for item in tiny_overrides("default") + ["train.epochs=1"] for arg in ("--set", item)]
    out = tmp_path / "runs" / "m"
    assert main(["train", "--train", str(files["train"]), "--dev", str(files["dev"]), "--out", str(out),
                 "--compact", *overrides]) == 0
    printed = capsys.readouterr().out
    student, exported = tmp_path / "runs" / "m-student", tmp_path / "runs" / "m-student-int8"
    assert (out / "model.safetensors").is_file() and (student / "model.safetensors").is_file()
    assert (exported / "model.int8.onnx").is_file()
    assert json.loads((student / "config.json").read_text())["distillation"]["teachers"] == [str(out)]
    lines = printed.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("model ") and "texts/s" in line)
    assert lines[header + 1].split()[0] == "default" and lines[header + 2].split()[0] == "compact"
    assert lines[header + 2].rstrip().endswith(str(exported)) and " MB " in lines[header + 2]
    assert lines[header + 3].startswith("the compact: ") and "x smaller" in lines[header + 3]
    assert f"attentive serve {exported}" in printed


def test_compact_with_several_processes_is_one_line(tmp_path, capsys):
    assert main(["train", "--dataset", "sst2_sample", "--out", str(tmp_path / "m"), "--compact", "--nproc", "2"]) == 2
    assert "--compact distils and measures in this process" in capsys.readouterr().err
