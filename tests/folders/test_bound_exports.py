"""Exports and saved folders bound to their files (issue 43): an export's config.json records the SHA-256 of its
graphs and tokenizer, the graphs and the weights keep the label order they answer in, so another export's graph
dropped into the folder or config.json's labels reordered are one line, not every answer changed without a word;
`predict`, `explain` and `serve` of an export run the int8 graph it was exported with (`--fp32`: model.onnx), and
only the graph that runs is read; an export of a format this version does not read says so. Folders written before
(tests/fixtures/model-format-1, tests/fixtures/export-format-1: no digests, no bound labels) load as they did."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.errors import AttentiveError
from attentive.onnx_format.write import export

from ..helpers import free_port

FIXTURES = Path(__file__).parents[1] / "fixtures"
SAVED_FORMAT_1 = FIXTURES / "model-format-1"  # saved before the labels were bound to the weights
EXPORT_FORMAT_1 = FIXTURES / "export-format-1"  # exported (with --int8) before digests and bound labels
CHANGED = "does not match the digest config.json records: the folder was changed after export; export again"
TEXT = "a gorgeous , witty film"


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    """Two int8 exports of different models: the format-1 fixture's, and the same with one weight moved."""
    root = tmp_path_factory.mktemp("bound")
    ours = attentive.load(SAVED_FORMAT_1, device="cpu")
    other = attentive.load(SAVED_FORMAT_1, device="cpu")
    with torch.no_grad():
        next(other.network.parameters()).add_(0.5)
    return {"ours": export(ours, root / "ours", int8=True), "other": export(other, root / "other", int8=True)}


def copy_of(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / folder.name))


def edit_config(folder: Path, edit) -> None:
    config = json.loads((folder / "config.json").read_text())
    edit(config)
    (folder / "config.json").write_text(json.dumps(config))


def refused(capsys, args: list[str], message: str) -> None:
    """The command exits 2 with one error line holding `message`."""
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def predicted(capsys, args: list[str]) -> list[dict]:
    capsys.readouterr()
    assert main(args) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_an_export_records_the_digest_of_each_of_its_files(exports):
    folder = exports["ours"]
    config = json.loads((folder / "config.json").read_text())
    assert config["checksums"] == {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
                                   for name in ("model.onnx", "model.int8.onnx", "tokenizer.json")}


@pytest.mark.parametrize("graph, option", [("model.int8.onnx", []), ("model.onnx", ["--fp32"])])
def test_another_exports_graph_dropped_into_the_folder_is_one_line(exports, tmp_path, capsys, graph, option):
    folder = copy_of(exports["ours"], tmp_path)
    shutil.copyfile(exports["other"] / graph, folder / graph)  # a graph onnxruntime runs, of another model
    refused(capsys, ["predict", str(folder), TEXT, *option], f"{folder}: {graph} {CHANGED}")
    with pytest.raises(AttentiveError, match=f"{graph} does not match the digest"):
        onnx_backend.load(folder, int8=graph == "model.int8.onnx")


def test_a_tokenizer_changed_after_export_is_one_line(exports, tmp_path, capsys):
    folder = copy_of(exports["ours"], tmp_path)
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    vocab["film"], vocab["dull"] = vocab["dull"], vocab["film"]  # still a tokenizer, two words swapped
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    refused(capsys, ["explain", str(folder), TEXT], f"tokenizer.json {CHANGED}")


@pytest.mark.parametrize("graph, int8", [("model.int8.onnx", None), ("model.onnx", False)])
def test_an_exports_labels_reordered_in_config_json_are_one_line(exports, tmp_path, capsys, graph, int8):
    folder = copy_of(exports["ours"], tmp_path)
    edit_config(folder, lambda config: config["labels"].reverse())
    with pytest.raises(AttentiveError, match=rf"\['positive', 'negative'\] are not the labels {graph} was written "
                                             r"with, in their order \(\['negative', 'positive'\]\)"):
        onnx_backend.load(folder, int8=int8)
    refused(capsys, ["serve", str(folder), "--port", str(free_port()), *([] if int8 is None else ["--fp32"])],
            "config.json was changed since; restore its labels or export again")


def test_a_graphs_label_metadata_that_is_no_label_list_is_one_line(exports, tmp_path):
    import onnx

    folder = copy_of(exports["ours"], tmp_path)
    graph = onnx.load(str(folder / "model.onnx"))
    [entry] = [entry for entry in graph.metadata_props if entry.key == "attentive.labels"]
    entry.value = '{"negative": 0}'
    onnx.save(graph, str(folder / "model.onnx"))
    edit_config(folder, lambda config: config.pop("checksums"))
    with pytest.raises(AttentiveError, match="model.onnx: its metadata's attentive.labels must be a JSON list"):
        onnx_backend.load(folder, int8=False)


def exported_as(tmp_path: Path, name: str, model_id: str, moved: float = 0.0) -> Path:
    """An int8 export of the format-1 fixture's model (one weight moved by `moved`) under the id `model_id`."""
    model = attentive.load(SAVED_FORMAT_1, device="cpu")
    model.config["model_id"] = model_id
    with torch.no_grad():
        next(model.network.parameters()).add_(moved)
    return export(model, tmp_path / name, int8=True)


def test_another_models_graph_with_the_same_labels_is_refused_where_config_json_has_no_digests(tmp_path, capsys):
    import onnx

    ours, other = exported_as(tmp_path, "ours", "ours-id"), exported_as(tmp_path, "other", "other-id", moved=0.5)
    for graph in ("model.onnx", "model.int8.onnx"):
        bound = {entry.key: entry.value for entry in onnx.load(str(ours / graph)).metadata_props}
        assert bound["attentive.model_id"] == "ours-id"
    edit_config(ours, lambda config: config.pop("checksums"))  # as an export made before digests were written
    assert onnx_backend.load(ours).predict_proba([TEXT]).shape == (1, 2)  # its own graphs still load
    for graph, option in (("model.int8.onnx", []), ("model.onnx", ["--fp32"])):
        shutil.copyfile(other / graph, ours / graph)  # same labels, another model
        refused(capsys, ["predict", str(ours), TEXT, *option],
                f"{ours / 'config.json'}: 'model_id' 'ours-id' is not the model {graph} was exported from "
                "('other-id'): the graph or config.json was replaced since; export again")


@pytest.mark.parametrize("temperature", [1e308, 1e-300, 5000, 0])
def test_a_temperature_out_of_bounds_in_config_json_is_one_line(exports, tmp_path, capsys, temperature):
    folder = copy_of(exports["ours"], tmp_path)
    edit_config(folder, lambda config: config.update(calibration={"temperature": temperature}))
    message = (f"{folder / 'config.json'}: 'calibration.temperature' must be a number from 0.001 to 1000, not "
               f"{temperature!r}")
    refused(capsys, ["explain", str(folder), TEXT], message)
    saved = tmp_path / "saved"
    attentive.load(SAVED_FORMAT_1, device="cpu").save(saved)
    edit_config(saved, lambda config: config.update(calibration={"temperature": temperature}))
    refused(capsys, ["predict", str(saved), TEXT], f"{saved / 'config.json'}: 'calibration.temperature' must be")


def test_a_saved_folders_labels_reordered_in_config_json_are_one_line(tmp_path, capsys):
    model = attentive.load(SAVED_FORMAT_1, device="cpu")
    model.save(tmp_path / "saved")
    assert attentive.load(tmp_path / "saved").labels == ["negative", "positive"]
    edit_config(tmp_path / "saved", lambda config: config["labels"].reverse())
    message = ("config.json: 'labels' ['positive', 'negative'] are not the labels model.safetensors was written with, "
               "in their order (['negative', 'positive']): config.json was changed since; restore its labels or train "
               "again")
    with pytest.raises(AttentiveError) as raised:
        attentive.load(tmp_path / "saved")
    assert str(raised.value).endswith(message)
    refused(capsys, ["predict", str(tmp_path / "saved"), TEXT], message)


def test_folders_written_before_the_bindings_load_as_they_did(capsys):
    expected = json.loads((EXPORT_FORMAT_1 / "expected.json").read_text())
    for int8, name in ((None, "int8"), (True, "int8"), (False, "fp32")):
        exported = onnx_backend.load(EXPORT_FORMAT_1, int8=int8)
        assert exported.graph == ("model.onnx" if name == "fp32" else "model.int8.onnx")
        np.testing.assert_allclose(exported.predict_proba(expected["texts"]), expected[name], atol=1e-6)
    lines = predicted(capsys, ["predict", str(EXPORT_FORMAT_1), *expected["texts"]])
    assert [line["probabilities"]["positive"] for line in lines] == pytest.approx(
        [row[1] for row in expected["int8"]], abs=1e-6)
    saved = json.loads((SAVED_FORMAT_1 / "expected.json").read_text())
    model = attentive.load(SAVED_FORMAT_1)
    assert [p.label for p in model.predict(saved["texts"])] == [p["label"] for p in saved["predictions"]]


def test_predict_explain_and_serve_run_the_int8_graph_an_export_has(exports, tmp_path, capsys, monkeypatch):
    """model.onnx replaced by garbage: only the graph that runs is read, and without --fp32 that is the int8 one."""
    folder = copy_of(exports["ours"], tmp_path)
    (folder / "model.onnx").write_bytes(b"not a graph at all")
    int8 = onnx_backend.load(folder)
    assert int8.graph == "model.int8.onnx"
    [line] = predicted(capsys, ["predict", str(folder), TEXT])
    assert line["probabilities"]["positive"] == pytest.approx(float(int8.predict_proba([TEXT])[0, 1]), abs=1e-6)
    capsys.readouterr()
    assert main(["explain", str(folder), TEXT]) == 0 and "film" in capsys.readouterr().out
    lines = predicted(capsys, ["predict", str(folder), TEXT, TEXT, "dull", "--jobs", "2", "--batch-size", "1"])
    assert [line["probabilities"] for line in lines[:1]] == [line["probabilities"] for line in lines[1:2]]
    assert served_info(folder, monkeypatch)["graph"] == "model.int8.onnx"
    for command in (["predict", str(folder), TEXT], ["explain", str(folder), TEXT],
                    ["serve", str(folder), "--port", str(free_port())]):
        refused(capsys, [*command, "--fp32"], f"{folder}: model.onnx {CHANGED}")


def served_info(folder: Path, monkeypatch) -> dict:
    """What `attentive serve FOLDER` answers on GET /info (the app handed to uvicorn, asked in process)."""
    import uvicorn
    from fastapi.testclient import TestClient

    answers = {}

    def run(server, sockets=None):
        with TestClient(server.config.app) as client:
            answers.update(client.get("/info").json())
            answer = client.post("/predict", json={"texts": [TEXT]})
            assert answer.status_code == 200, answer.text

    monkeypatch.setattr(uvicorn.Server, "run", run)
    assert main(["serve", str(folder), "--port", str(free_port())]) == 0
    return answers


def test_a_damaged_int8_graph_is_refused_where_it_would_run(exports, tmp_path, capsys):
    folder = copy_of(exports["ours"], tmp_path)
    data = (folder / "model.int8.onnx").read_bytes()
    (folder / "model.int8.onnx").write_bytes(data[: len(data) // 2])
    edit_config(folder, lambda config: config.pop("checksums"))  # an export written before digests were kept
    refused(capsys, ["predict", str(folder), TEXT], "model.int8.onnx: not a graph onnxruntime can run")
    assert len(predicted(capsys, ["predict", str(folder), TEXT, "--fp32"])) == 1


def test_explicit_graph_choices_still_hold(exports, tmp_path):
    assert onnx_backend.load(exports["ours"], int8=True).graph == "model.int8.onnx"
    assert onnx_backend.load(exports["ours"], int8=False).graph == "model.onnx"
    folder = copy_of(exports["ours"], tmp_path)
    edit_config(folder, lambda config: config.update(graphs=["model.onnx"]))  # as an export without --int8
    assert onnx_backend.load(folder).graph == "model.onnx"
    with pytest.raises(AttentiveError, match="no model.int8.onnx"):
        onnx_backend.load(folder, int8=True)


def test_an_export_of_an_unknown_format_says_so(exports, tmp_path, capsys):
    folder = copy_of(exports["ours"], tmp_path)
    edit_config(folder, lambda config: config.update(format="attentive-onnx-9"))
    message = "config.json: format 'attentive-onnx-9' is not one this version reads (attentive-onnx-1)"
    refused(capsys, ["predict", str(folder), TEXT], message)
    with pytest.raises(AttentiveError, match=r"format 'attentive-onnx-9' is not one this version reads"):
        onnx_backend.load(folder)
    with pytest.raises(AttentiveError, match=r"format 'attentive-onnx-9' is not one this version reads"):
        attentive.load(folder)
    opened = attentive.load(exports["ours"])  # one load for saved folders and exports
    assert type(opened) is type(onnx_backend.load(exports["ours"])) and opened.labels


def test_evaluate_scores_an_export_on_the_graph_it_runs(exports, tmp_path, capsys):
    """`attentive evaluate EXPORT` scores the int8 graph by default and model.onnx with --fp32, as the saved model
    scores itself (the same texts, labels and metrics)."""
    saved = attentive.load(SAVED_FORMAT_1, device="cpu").evaluate("sst2_sample", "dev")
    scores = {}
    for name, option in (("int8", []), ("fp32", ["--fp32"])):
        output = tmp_path / f"{name}.json"
        capsys.readouterr()
        assert main(["evaluate", str(exports["ours"]), "--dataset", "sst2_sample", "--split", "dev", "--output",
                     str(output), *option]) == 0
        scores[name] = json.loads(output.read_text())
        assert scores[name]["n"] == saved["n"] and set(scores[name]["per_class"]) == set(saved["per_class"])
    assert scores["fp32"]["accuracy"] == pytest.approx(saved["accuracy"], abs=2 / saved["n"])
    assert scores["int8"]["accuracy"] == pytest.approx(saved["accuracy"], abs=0.02)
    folder = copy_of(exports["ours"], tmp_path)
    (folder / "model.onnx").write_bytes(b"not a graph at all")
    refused(capsys, ["evaluate", str(folder), "--dataset", "sst2_sample", "--output", str(tmp_path / "x.json"),
                     "--fp32"], f"{folder}: model.onnx {CHANGED}")
