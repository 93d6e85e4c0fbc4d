"""`attentive train --compact` (attentive/distill/compact.py): one command from a file to a deployable model: the
model trained, exported int8 beside it (a model that reads context first distilled into the compact default), both
measured side by side."""
import json
from pathlib import Path

import pytest

from attentive.cli import main
from attentive.distill.compact import size_ratio

from ..helpers import tiny_overrides, write_tsv

pytestmark = pytest.mark.slow  # trains a model, then exports (and distils) it


def compact_run(recipe: str, sst2_small, tmp_path, capsys) -> tuple[Path, list[str]]:
    """`train --recipe RECIPE --compact` on 300 SST-2 sentences, a tiny model, one epoch: OUT and the lines printed."""
    files = {split: write_tsv(tmp_path / f"{split}.tsv", sst2_small.splits[split][:300]) for split in ("train", "dev")}
    overrides = [arg for item in tiny_overrides(recipe) + ["train.epochs=1"] for arg in ("--set", item)]
    out = tmp_path / "runs" / "m"
    assert main(["train", "--train", str(files["train"]), "--dev", str(files["dev"]), "--out", str(out),
                 "--recipe", recipe, "--compact", *overrides]) == 0
    return out, capsys.readouterr().out.splitlines()


def compared(lines: list[str], trained: str, exported) -> None:
    """The side-by-side table: the trained model, then its int8 export, then the line setting one against the other."""
    header = next(i for i, line in enumerate(lines) if line.startswith("model ") and "texts/s" in line)
    assert lines[header + 1].split()[0] == trained and lines[header + 2].split()[0] == "int8"
    assert lines[header + 2].rstrip().endswith(str(exported)) and " MB " in lines[header + 2]
    sizes = [float(lines[header + row].split(" MB ")[0].split()[-1]) for row in (1, 2)]
    said = size_ratio(int(sizes[0] * 1e6), int(sizes[1] * 1e6))
    assert lines[header + 3].startswith("the int8: ") and said.split("x")[-1] in lines[header + 3]
    assert any(line.startswith(f"deploy {exported}: attentive serve {exported}") for line in lines)


def test_the_compact_default_is_exported_int8_and_compared(sst2_small, tmp_path, capsys):
    out, lines = compact_run("default", sst2_small, tmp_path, capsys)
    exported = tmp_path / "runs" / "m-int8"
    assert (out / "model.safetensors").is_file() and (exported / "model.int8.onnx").is_file()
    assert not (tmp_path / "runs" / "m-student").exists()  # nothing distilled: the default is compact already
    compared(lines, "default", exported)


def test_a_model_that_reads_context_is_distilled_into_the_default_then_exported(sst2_small, tmp_path, capsys):
    out, lines = compact_run("opinion", sst2_small, tmp_path, capsys)
    student, exported = tmp_path / "runs" / "m-student", tmp_path / "runs" / "m-student-int8"
    assert (out / "model.safetensors").is_file() and (student / "model.safetensors").is_file()
    assert (exported / "model.int8.onnx").is_file() and not (tmp_path / "runs" / "m-int8").exists()
    config = json.loads((student / "config.json").read_text())
    assert config["distillation"]["teachers"] == [str(out)] and config["recipe"]["encoder"]["type"] == "identity"
    compared(lines, "opinion", exported)
    assert any(f"the student's PyTorch model is in {student}" in line for line in lines)


def test_compact_with_several_processes_is_one_line(tmp_path, capsys):
    assert main(["train", "--dataset", "sst2_sample", "--out", str(tmp_path / "m"), "--compact", "--nproc", "2"]) == 2
    assert "--compact distils and measures in this process" in capsys.readouterr().err


@pytest.mark.parametrize("first, second, said", [(2_000_000, 1_000_000, "2.0x smaller"),
                                                  (930_000, 1_310_000, "1.4x larger"),
                                                  (1_000_000, 1_020_000, "the same size")])
def test_the_size_ratio_is_said_the_way_it_goes(first, second, said):
    assert size_ratio(first, second) == said
