"""Export to ONNX and the torch-free runtime: for every recipe family (biGRU, LSTM, CNN, self-attention encoders, the
n-gram channel, aspect and pair inputs) ONNX Runtime gives the PyTorch model's probabilities and attention within
1e-5 on ragged batches, the runtime imports no PyTorch, --int8 writes a smaller graph, and the CLI predicts from an
exported folder."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import attentive
from attentive.answer import onnx_backend
from attentive.cli import main
from attentive.data.example import Dataset
from attentive.data.registry import load_dataset
from attentive.onnx_format.write import export

from ..helpers import ANSWERED_TEXTS, assert_same_answers, copy_of_tiny_run, tiny_overrides


def small(name: str, size: int = 300) -> Dataset:
    data = load_dataset(name)
    return Dataset(name, {"train": data.splits["train"][:size], "dev": data.splits["dev"][:60], "test": []},
                   data.labels)


@pytest.mark.parametrize("recipe", ["lama_ctx", "lstm", "cnn", "te", "ssan_rpr", "default"])
def test_single_text_families_answer_the_same_in_onnx_runtime(sst2_small, recipe, tmp_path):
    model = attentive.train(sst2_small, recipe, overrides=tiny_overrides(recipe) + ["train.epochs=1"],
                            show_progress=False)
    assert_same_answers(model, onnx_backend.load(export(model, tmp_path / "onnx")), ANSWERED_TEXTS * 3)


def test_aspect_models_answer_the_same_in_onnx_runtime(tmp_path):
    data = small("semeval14_category")
    model = attentive.train(data, "atae_lstm", overrides=tiny_overrides("atae_lstm") + ["train.epochs=1"],
                            show_progress=False)
    exported = onnx_backend.load(export(model, tmp_path / "onnx"))
    assert_same_answers(model, exported, ANSWERED_TEXTS[:3], aspects=["food", "service", "price"])
    assert len(exported.predict(ANSWERED_TEXTS[0])) == len(model.aspects)  # no aspect: one answer per category


def test_pair_models_answer_the_same_in_onnx_runtime(tmp_path):
    model = attentive.train(small("sick"), "lama_pair",
                            overrides=tiny_overrides("lama_pair") + ["train.epochs=1"], show_progress=False)
    exported = onnx_backend.load(export(model, tmp_path / "onnx"))
    assert_same_answers(model, exported, ANSWERED_TEXTS[:3],
                        pairs=["a man plays", "nobody is here", "the actors are good"])


def test_an_export_of_many_classes_stores_only_the_bigram_rows_training_reached(tmp_path):
    """Banking77's 77 intents: the dense table of 2^18 buckets would be 20 MB in int8; the export keeps the rows its
    training bigrams reached and answers as the model does."""
    data = small("banking77", size=400)
    model = attentive.train(data, "default", overrides=tiny_overrides("default") + ["train.epochs=1"],
                            show_progress=False)
    folder = export(model, tmp_path / "onnx", int8=True)
    rows = json.loads((folder / "config.json").read_text())["bigram_rows"]
    assert rows["buckets"] == model.network.wide.buckets and 0 < rows["kept"] < 10_000
    assert (folder / "model.int8.onnx").stat().st_size < 2e6  # 77 x 2^18 one-byte scores alone are 20 MB
    assert_same_answers(model, onnx_backend.load(folder, int8=False), ANSWERED_TEXTS)


@pytest.mark.slow  # trains a MiniLM model (a pretrained encoder of 22M weights): the quick loop's longest test
def test_the_pretrained_encoder_recipes_export_too(sst2_small, tmp_path):
    data = Dataset("tiny", {"train": sst2_small.splits["train"][:96], "dev": sst2_small.splits["dev"][:32],
                            "test": []}, sst2_small.labels)
    model = attentive.train(data, "minilm_frozen", overrides=["train.epochs=1", "tokenizer.max_length=32"],
                            show_progress=False)
    assert_same_answers(model, onnx_backend.load(export(model, tmp_path / "onnx")), ANSWERED_TEXTS)


@pytest.fixture(scope="module")
def exported_run(tiny_run, tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    copy_of_tiny_run(tiny_run, folder / "run")
    assert main(["export", str(folder / "run"), "--out", str(folder / "onnx"), "--int8"]) == 0
    return folder


def test_the_runtime_runs_without_pytorch(exported_run):
    script = ("import sys, attentive.answer.onnx_backend as r; m = r.load(sys.argv[1]); "
              "[p] = m.predict('a gorgeous film'); "
              "assert 'torch' not in sys.modules, 'torch imported'; print(p.label)")
    done = subprocess.run([sys.executable, "-c", script, str(exported_run / "onnx")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.strip() in ("negative", "positive")
    command_line = ("import sys; from attentive.cli import main; status = main(['predict', sys.argv[1], 'a film']); "
                    "assert status == 0 and 'torch' not in sys.modules, 'torch imported'")
    done = subprocess.run([sys.executable, "-c", command_line, str(exported_run / "onnx")], capture_output=True,
                          text=True)
    assert done.returncode == 0 and '"label"' in done.stdout, done.stderr[-600:]


def test_int8_graph_is_smaller_and_answers(exported_run):
    folder = exported_run / "onnx"
    assert (folder / "model.int8.onnx").stat().st_size < (folder / "model.onnx").stat().st_size
    quantised, full = onnx_backend.load(folder, int8=True), onnx_backend.load(folder, int8=False)
    agree = (quantised.predict_proba(ANSWERED_TEXTS).argmax(1) == full.predict_proba(ANSWERED_TEXTS).argmax(1)).mean()
    assert agree >= 0.75


def test_the_cli_predicts_and_explains_from_an_exported_folder(exported_run, capsys):
    folder = exported_run / "onnx"
    capsys.readouterr()
    assert main(["predict", str(folder), "a gorgeous , witty film", "dull", "--fp32"]) == 0  # the int8 graph's
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # answers are close, not equal
    torch_lines = attentive.load(exported_run / "run").predict(["a gorgeous , witty film", "dull"])
    assert [line["label"] for line in lines] == [p.label for p in torch_lines]
    assert main(["explain", str(folder), "a gorgeous , witty film"]) == 0
    assert "gorgeous" in capsys.readouterr().out
