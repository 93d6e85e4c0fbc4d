"""A model folder is never lost or mixed: training refuses to replace a model unless asked, a save killed at any
point leaves the old or the new model (never a mix), the metrics log is appended, results about an older model are
marked stale, and a damaged or hostile folder is a one-line error before anything large is allocated."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
import safetensors.torch

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.folders import reading as folder_reading
from attentive.folders import saved
from attentive.folders.metrics_log import read_metrics_log
from attentive.onnx_format.read import is_exported
from attentive.util.atomic import atomic_write_json
from attentive.util.processes import worker_context

from ..helpers import copy_of_tiny_run, edit_config, memory_bound, rewrite_weights, tiny_overrides

OVERRIDES = tiny_overrides("lama_ctx")


@pytest.fixture(scope="module")
def run(tiny_run, tmp_path_factory):
    """The session's tiny lama_ctx model, in a folder of this module's own (each test works on a copy of it)."""
    return copy_of_tiny_run(tiny_run, tmp_path_factory.mktemp("folder") / "run")


def copy_of(run, tmp_path):
    return shutil.copytree(run, tmp_path / "copy")


def test_training_into_a_model_folder_is_refused_without_overwrite(run, sst2_small, tmp_path):
    folder = copy_of(run, tmp_path)  # a model trained for another folder is not this folder's earlier output
    before = (folder / "model.safetensors").read_bytes()
    with pytest.raises(AttentiveError, match="did not write .*--overwrite"):
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


def killed_save(folder: str, kill_at: int) -> None:
    """Save a changed model into `folder`, killing this process (SIGKILL: no cleanup) at the `kill_at`th
    os.replace of the save; run in a process of its own."""
    model = attentive.load(folder)
    model.network.embedder.table.weight.data *= 2
    model.config["generation"] = "new"
    calls = 0
    real_replace = os.replace

    def replace(source, target):
        nonlocal calls
        calls += 1
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        real_replace(source, target)

    os.replace = replace
    model.save(folder)


@pytest.mark.slow  # five processes killed mid-save
@pytest.mark.parametrize("kill_at", [1, 2, 3, 4, 5, 6])
def test_a_save_killed_between_its_writes_leaves_the_old_or_the_new_model(run, tmp_path, kill_at):
    folder = copy_of(run, tmp_path)
    old = safetensors.torch.load_file(str(folder / "model.safetensors"))["embedder.table.weight"].numpy()
    # forked from a server that has imported attentive (attentive/util/processes.py), not a new interpreter each
    process = worker_context(["attentive.answer.torch_backend"]).Process(target=killed_save,
                                                                         args=(str(folder), kill_at))
    process.start()
    process.join(120)
    # os.replace runs 5 times in a save (the commit, then each of the 3 files and the manifest): kill_at 6 lets it
    # finish
    assert process.exitcode == (-signal.SIGKILL if kill_at <= 5 else 0)
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
    (lambda c: c["recipe"]["pooler"].update(heads=10**6), "recipe.pooler.heads must be an integer ≥ 1 and ≤ 65536"),
])
def test_a_hostile_config_is_refused_before_anything_is_allocated(run, tmp_path, capsys, change, message):
    folder = copy_of(run, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    change(config)
    (folder / "config.json").write_text(json.dumps(config))
    assert main(["predict", str(folder), "a fine film"]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()) and len(err.strip().splitlines()) == 1


# Hostile and damaged folders (issue 31): every file read is a regular file inside the folder, config.json and
# tokenizer.json are capped, the weights' header is checked against the file before anything is allocated, and
# config.json's entries are checked; each failure is one line with exit status 2.

def refused(folder, capsys, *message: str) -> str:
    """`attentive predict` on `folder` exits 2 with one line holding each of `message`; the line."""
    with memory_bound():
        status = main(["predict", str(folder), "a fine film"])
    err = " ".join(capsys.readouterr().err.split())
    assert status == 2, err
    assert all(m in err for m in message), err
    assert "internal error" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json"])
def test_a_file_linked_to_dev_zero_is_refused_before_it_is_read(run, tmp_path, capsys, name):
    folder = copy_of(run, tmp_path)
    (folder / name).unlink()
    (folder / name).symlink_to("/dev/zero")
    refused(folder, capsys, f"{name}: a link to /dev/zero, outside the model folder")


@pytest.mark.slow  # starts a process (a FIFO read in this one would wait for ever)
def test_a_fifo_is_refused_rather_than_waited_on(run, tmp_path):
    folder = copy_of(run, tmp_path)
    (folder / "config.json").unlink()
    os.mkfifo(folder / "config.json")
    cli = "import sys; from attentive.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", cli, "predict", str(folder), "a fine film"],
                          capture_output=True, timeout=120)  # code that opens the FIFO waits for a writer forever
    err = done.stderr.decode()
    assert done.returncode == 2 and "config.json: not a regular file (a FIFO)" in err and len(err.splitlines()) == 1


def test_a_config_over_its_cap_is_refused_before_it_is_read(run, tmp_path, capsys, monkeypatch):
    folder = copy_of(run, tmp_path)
    os.truncate(folder / "config.json", folder_reading.CONFIG_CAP + 1)  # a hole: takes no disk
    monkeypatch.setattr(folder_reading.os, "fdopen", lambda *a: pytest.fail("opened for reading"))
    refused(folder, capsys, "config.json: 16,777,217 bytes, more than the 16,777,216 a config.json may hold")


def test_a_link_leaving_the_folder_is_refused_even_to_a_good_file(run, tmp_path, capsys):
    folder = copy_of(run, tmp_path)
    outside = tmp_path / "elsewhere.safetensors"
    (folder / "model.safetensors").rename(outside)
    (folder / "model.safetensors").symlink_to(outside)
    refused(folder, capsys, f"model.safetensors: a link to {outside}, outside the model folder")
    (folder / "model.safetensors").unlink()
    outside.rename(folder / "real.safetensors")
    (folder / "model.safetensors").symlink_to("real.safetensors")  # a link that stays inside is followed
    assert attentive.load(folder).predict("a fine film")[0].label in ("positive", "negative")


def test_a_sparse_weights_file_claiming_a_huge_tensor_is_refused_before_allocating(run, tmp_path, capsys):
    """The header and config.json agree on a 4 GB embedding table, and the file has that size, but as a hole
    (`truncate -s`): loading it would allocate 4 GB (twice) for zeros."""
    folder = copy_of(run, tmp_path)
    path = folder / "model.safetensors"
    data = path.read_bytes()
    header = json.loads(data[8:8 + int.from_bytes(data[:8], "little")])
    metadata = header.pop("__metadata__")  # the label order, kept as it is
    rows = 4 * 2**30 // (4 * header["embedder.table.weight"]["shape"][1])
    grown = rows * 4 * header["embedder.table.weight"]["shape"][1] - header["embedder.table.weight"]["data_offsets"][1]
    for name, entry in header.items():
        if name == "embedder.table.weight":
            entry["shape"][0], entry["data_offsets"][1] = rows, entry["data_offsets"][1] + grown
        else:
            entry["data_offsets"] = [offset + grown for offset in entry["data_offsets"]]
    raw = json.dumps({"__metadata__": metadata, **header}).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw)
    os.truncate(path, 8 + len(raw) + max(entry["data_offsets"][1] for entry in header.values()))
    edit_config(folder, lambda c: (c.update(vocab_size=rows), c.pop("checksums", None)))
    refused(folder, capsys, "model.safetensors: a sparse file")


def test_a_header_pointing_past_the_end_is_refused(run, tmp_path, capsys):
    folder = copy_of(run, tmp_path)
    path = folder / "model.safetensors"
    data = path.read_bytes()
    length = int.from_bytes(data[:8], "little")
    path.write_bytes((length + 10**9).to_bytes(8, "little") + data[8:])
    refused(folder, capsys, "model.safetensors: the header claims 1,000,00")


def test_an_int64_embedding_table_is_refused_naming_the_tensor(run, tmp_path, capsys):
    folder = copy_of(run, tmp_path)
    rewrite_weights(folder, lambda t: t.update({"embedder.table.weight": t["embedder.table.weight"].long()}))
    refused(folder, capsys, "tensor embedder.table.weight is I64, but the model keeps it as F32")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_non_finite_weight_is_refused_naming_the_tensor(run, tmp_path, capsys, value):
    folder = copy_of(run, tmp_path)
    rewrite_weights(folder, lambda t: t["pooler.Q"].view(-1).__setitem__(3, value))
    refused(folder, capsys, "model.safetensors: tensor pooler.Q holds NaN or infinite values")


def test_weights_changed_since_the_save_are_refused(run, tmp_path, capsys):
    """A flipped sign (or any byte) in a weight: the SHA-256 saved in config.json no longer matches."""
    folder = copy_of(run, tmp_path)
    tensors = safetensors.torch.load_file(str(folder / "model.safetensors"))
    tensors["head.net.4.weight"] = -tensors["head.net.4.weight"]
    safetensors.torch.save_file(tensors, str(folder / "model.safetensors"))
    refused(folder, capsys, "model.safetensors: its bytes are not the ones saved with config.json")


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(labels=["negative", "negative"]), "'labels' must be a list of at least two different"),
    (lambda c: c["recipe"]["tokenizer"].update(max_length=-1),
     "'recipe.tokenizer.max_length' must be an integer ≥ 1 or null, not -1"),
    (lambda c: c["recipe"]["tokenizer"].update(max_length="400"),
     "'recipe.tokenizer.max_length' must be an integer ≥ 1 or null, not '400'"),
    (lambda c: c["recipe"].pop("tokenizer"), "no 'recipe.tokenizer' entry"),
    (lambda c: c["recipe"].update(encoder=[1, 2]), "'recipe.encoder' must be an object, not [1, 2]"),
    (lambda c: c["recipe"]["aspect"].pop("type"), "no 'recipe.aspect.type' entry"),
    (lambda c: c.update(vocab_size="1057"), "'vocab_size' must be a positive integer"),
    (lambda c: c.update(aspects=["a", "a"]), "'aspects' must be a list of different strings"),
    (lambda c: c["recipe"]["pooler"].update(heads="many"), "config.json: "),
    (lambda c: c["recipe"]["pooler"].update(score_scale=None), "recipe.pooler.score_scale must be a number, not None"),
])
def test_a_damaged_config_entry_is_one_line(run, tmp_path, capsys, change, message):
    folder = copy_of(run, tmp_path)
    edit_config(folder, change)
    refused(folder, capsys, "config.json", message)


@pytest.mark.parametrize("text, message", [
    ('{"labels": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested deeper than 32 levels"),
    ('{"recipe": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}", "JSON nested deeper than 32 levels"),
    ('{"vocab_size": NaN}', "invalid JSON (NaN is not a number JSON allows)"),
    ('{"vocab_size": ' + "9" * 5000 + "}", "invalid JSON"),
    ("[1, 2]", "expected a JSON object, not list"),
])
def test_a_malformed_config_is_one_line(run, tmp_path, capsys, text, message):
    folder = copy_of(run, tmp_path)
    (folder / "config.json").write_text(text)
    refused(folder, capsys, "config.json", message)


def test_a_load_that_fails_while_a_save_replaces_the_model_reads_it_again(run, tmp_path, monkeypatch):
    """A load that reads one file of the old model and one of the new (here: fails as such a mix does) while a save
    replaces them is retried, not reported."""
    folder = copy_of(run, tmp_path)
    newer = attentive.load(folder)
    newer.network.head.net[4].bias.data += 1
    real_read, calls = saved._read, []

    def read_during_a_save(path):
        calls.append(path)
        if len(calls) == 1:
            newer.save(folder)  # the writer commits while the reader is between its files
            raise AttentiveError(f"{path}/model.safetensors: unreadable weights (size mismatch)")
        return real_read(path)

    monkeypatch.setattr(saved, "_read", read_during_a_save)
    loaded = attentive.load(folder)
    assert len(calls) == 2 and loaded.config["model_id"] == newer.config["model_id"]


def test_a_damaged_folder_that_stays_still_is_not_read_again(run, tmp_path, monkeypatch):
    folder = copy_of(run, tmp_path)
    (folder / "tokenizer.json").write_text("{")
    real_read, calls = saved._read, []
    monkeypatch.setattr(saved, "_read", lambda path: calls.append(path) or real_read(path))
    with pytest.raises(AttentiveError, match="unreadable tokenizer"):
        attentive.load(folder)
    assert len(calls) == 1


def test_loading_never_moves_files_in_from_outside_the_folder(run, tmp_path):
    """A `.written` (an interrupted save's files) that is a link to another folder is not a save to finish."""
    folder = copy_of(run, tmp_path)
    elsewhere = tmp_path / "documents"
    elsewhere.mkdir()
    (elsewhere / "letter.txt").write_text("mine")
    (folder / ".written").symlink_to(elsewhere)
    attentive.load(folder)
    assert (elsewhere / "letter.txt").read_text() == "mine" and not (folder / "letter.txt").exists()


def test_json_results_never_hold_nan(tmp_path):
    with pytest.raises(AttentiveError, match=r"eval\.json: metrics\.per_class\[1\]\.f1 is nan, which JSON cannot"):
        atomic_write_json(tmp_path / "eval.json", {"metrics": {"per_class": [{"f1": 1.0}, {"f1": float("nan")}]}})
    assert not (tmp_path / "eval.json").exists()
    atomic_write_json(tmp_path / "eval.json", {"accuracy": 0.5})
    assert json.loads((tmp_path / "eval.json").read_text()) == {"accuracy": 0.5}


# Exported folders: the same checks of config.json, and the graph run once at load.

@pytest.fixture(scope="module")
def exported(run, tmp_path_factory):
    from attentive.onnx_format.write import export

    return export(attentive.load(run), tmp_path_factory.mktemp("exported") / "onnx")


def exported_copy(exported, tmp_path):
    return shutil.copytree(exported, tmp_path / "exported")


def test_an_export_read_while_an_overwriting_export_replaces_it_is_read_again(run, exported, tmp_path, monkeypatch):
    """An export is committed file by file into its folder, like a save: a load that fails on a mix of the old and
    the new export's files is retried, not reported."""
    from attentive.onnx_format import read as exported_folder
    from attentive.onnx_format.write import export

    folder = exported_copy(exported, tmp_path)
    real_read, calls = exported_folder._read_exported, []

    def read_during_an_export(*args):
        calls.append(args)
        if len(calls) == 1:
            export(attentive.load(run), folder, int8=False, overwrite=True)  # the writer commits meanwhile
            raise AttentiveError(f"{folder}/model.onnx: the graph fails on a test batch (a mix of two exports)")
        return real_read(*args)

    monkeypatch.setattr(exported_folder, "_read_exported", read_during_an_export)
    assert onnx_backend.load(folder).labels == attentive.load(run).labels and len(calls) == 2

def truncate_graph(folder):
    data = (folder / "model.onnx").read_bytes()
    (folder / "model.onnx").write_bytes(data[: len(data) // 3])


def truncate_graph_without_digest(folder):
    """A cut-short graph in a folder exported before digests were recorded: onnxruntime's reading finds it."""
    truncate_graph(folder)
    edit_config(folder, lambda c: c.pop("checksums"))


@pytest.mark.parametrize("damage, message", [
    (lambda f: (f / "model.onnx").unlink(), "model.onnx: missing"),
    (truncate_graph, "model.onnx does not match the digest config.json records"),
    (truncate_graph_without_digest, "model.onnx: not a graph onnxruntime can run"),
    (lambda f: edit_config(f, lambda c: c.pop("graphs")), "config.json: no 'graphs' entry"),
    (lambda f: (f / "tokenizer.json").unlink(), "tokenizer.json: missing"),
    (lambda f: edit_config(f, lambda c: c.update(labels=["a", "b", "c"])),
     "the graph answers (2, 2) probabilities for 2 texts, but config.json gives 3 labels"),
    (lambda f: edit_config(f, lambda c: c.update(max_length="400")), "'max_length' must be an integer ≥ 1 or null"),
    (lambda f: edit_config(f, lambda c: c.pop("is_pair")), "config.json: no 'is_pair' entry"),
    (lambda f: edit_config(f, lambda c: c.update(labels=["a", "a"])), "'labels' must be a list of at least two"),
])
def test_a_damaged_exported_folder_is_one_line(exported, tmp_path, capsys, damage, message):
    folder = exported_copy(exported, tmp_path)
    damage(folder)
    refused(folder, capsys, message)


def test_an_exported_config_linked_to_dev_zero_is_not_read(exported, tmp_path, capsys):
    folder = exported_copy(exported, tmp_path)
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to("/dev/zero")
    with memory_bound():
        assert not is_exported(folder)
    refused(folder, capsys, "config.json: a link to /dev/zero")


def test_an_exported_folder_recording_digests_is_checked_against_them(exported, tmp_path, capsys):
    folder = exported_copy(exported, tmp_path)
    digests = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
               for name in ("model.onnx", "tokenizer.json")}
    edit_config(folder, lambda c: c.update(checksums=digests))
    assert onnx_backend.load(folder).predict("a fine film")[0].label in ("positive", "negative")
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    tokenizer["model"]["vocab"]["film"], tokenizer["model"]["vocab"]["fine"] = (tokenizer["model"]["vocab"]["fine"],
                                                                                tokenizer["model"]["vocab"]["film"])
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))  # still a tokenizer, but with two words swapped
    refused(folder, capsys, "tokenizer.json does not match the digest config.json records: the folder was changed "
                            "after export; export again")
