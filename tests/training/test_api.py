"""Training on small real data: the loss falls, the best dev epoch is kept, save -> load is exact."""
from __future__ import annotations

import json

import numpy as np
import pytest

import attentive
from attentive.errors import AttentiveError
from attentive.folders.metrics_log import read_metrics_log

from ..helpers import tiny_overrides


@pytest.fixture(scope="module")
def trained(sst2_small, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    model = attentive.train(sst2_small, "lama_ctx", out, overrides=tiny_overrides("lama_ctx") + ["train.epochs=3"],
                            show_progress=False)
    return model, out


def test_training_lowers_the_loss_and_logs_every_epoch(trained):
    model, out = trained
    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert lines[0]["event"] == "start"
    log = read_metrics_log(out)
    assert log == lines[1:] and [row["epoch"] for row in log] == [1, 2, 3]
    assert log[-1]["train_loss"] < log[0]["train_loss"]
    best = max(log, key=lambda row: row["dev_accuracy"])
    assert model.config["training"]["best_epoch"] == best["epoch"]


def test_saved_folder_holds_json_safetensors_and_tokenizer(trained):
    _, out = trained
    config = json.loads((out / "config.json").read_text())
    assert config["labels"] == ["negative", "positive"]
    assert config["recipe"]["pooler"]["type"] == "lama" and config["vocab_size"] > 100
    assert {"attentive", "torch", "tokenizers"} <= set(config["versions"])
    assert (out / "model.safetensors").stat().st_size > 0 and (out / "tokenizer.json").exists()
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temporary files


def test_save_then_load_gives_identical_probabilities(trained, sst2_small):
    model, out = trained
    texts = [ex.text for ex in sst2_small.splits["test"][:20]]
    before = [p.probabilities for p in model.predict(texts)]
    after = [p.probabilities for p in attentive.load(out).predict(texts)]
    assert before == after


def test_predict_reports_probabilities_and_top_attended_words(trained):
    model, _ = trained
    [prediction] = model.predict("a gorgeous , witty , seductive movie .", top_k=3)
    assert prediction.label in ("negative", "positive")
    assert abs(sum(prediction.probabilities.values()) - 1) < 1e-5
    assert len(prediction.top_words) == 3
    assert all(word in "a gorgeous , witty , seductive movie ." for word, _ in prediction.top_words)
    weights = [weight for _, weight in prediction.top_words]
    assert weights == sorted(weights, reverse=True)


def test_explain_words_keep_the_original_spelling(trained):
    model, _ = trained
    [explanation] = model.explain(["Gorgeous FILM, truly!"])
    assert explanation.words == ["Gorgeous", "FILM", ",", "truly", "!"]
    assert np.isclose(explanation.summed.sum(), 1.0)


def test_explain_tokenises_each_text_once(trained, monkeypatch):
    model, _ = trained
    calls = []

    class CountingTokenizer:
        def __getattr__(self, name):
            return getattr(tokenizer, name)

        def encode_batch(self, texts, **kwargs):
            calls.append(list(texts))
            return tokenizer.encode_batch(texts, **kwargs)

    tokenizer = model.tokenizer
    monkeypatch.setattr(model, "tokenizer", CountingTokenizer())
    [explanation] = model.explain(["a gorgeous film"])
    assert calls == [["a gorgeous film"]] and explanation.words == ["a", "gorgeous", "film"]


def test_evaluate_reports_the_metrics(trained, sst2_small):
    model, _ = trained
    metrics = model.evaluate(sst2_small, "test")
    assert metrics["n"] == 150 and 0 <= metrics["accuracy"] <= 1
    assert set(metrics["per_class"]) == {"negative", "positive"}
    assert sum(map(sum, metrics["confusion"])) == 150


def test_empty_text_is_refused(trained):
    model, _ = trained
    with pytest.raises(AttentiveError, match="empty"):
        model.predict(["fine", "   "])


def test_unknown_label_at_evaluation_is_refused(trained, sst2_small):
    from attentive.data.example import Dataset, Example

    model, _ = trained
    odd = Dataset("odd", {"train": [], "dev": [], "test": [Example("meh", "neutral")]}, ["neutral"])
    with pytest.raises(AttentiveError, match="'neutral' unknown"):
        model.evaluate(odd, "test")


def test_pair_data_is_refused_rather_than_silently_reduced_to_one_text():
    from attentive.data.example import Dataset, Example

    pairs = [Example("a man sleeps", "NEUTRAL", text_pair="a person rests"),
             Example("a man sleeps", "CONTRADICTION", text_pair="a man runs")] * 2
    data = Dataset("pairs", {"train": pairs, "dev": pairs, "test": []}, ["CONTRADICTION", "NEUTRAL"])
    with pytest.raises(AttentiveError, match="classifies single texts"):
        attentive.train(data, "lama_ctx", overrides=tiny_overrides("lama_ctx"), show_progress=False)


def test_weights_that_do_not_match_the_config_are_a_clear_error(trained, tmp_path):
    import shutil

    _, out = trained
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    config = json.loads((broken / "config.json").read_text())
    config["recipe"]["encoder"]["hidden"] += 1
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(AttentiveError, match="config.json: does not match the weights"):
        attentive.load(broken)


def test_max_updates_cuts_the_epochs_of_large_data_only():
    from attentive.recipes.types import Train
    from attentive.training.loop import epoch_count

    cfg = Train(epochs=10, batch_size=64, max_updates=10_000)
    assert epoch_count(cfg, 338_088) == 2  # News: 5,283 batches an epoch
    assert epoch_count(cfg, 22_500) == 10  # IMDB: 352 batches, ten epochs stay below the budget
    assert epoch_count(cfg.model_copy(update={"max_updates": 100}), 1_000_000) == 1
    assert epoch_count(cfg.model_copy(update={"max_updates": None}), 1_000_000) == 10


def test_a_run_with_an_update_budget_stops_after_its_epochs(sst2_small, tmp_path):
    overrides = tiny_overrides("lama_ctx") + ["train.epochs=5", "train.patience=5", "train.batch_size=64",
                                              "train.max_updates=15"]  # 600 texts: 10 batches an epoch
    model = attentive.train(sst2_small, "lama_ctx", tmp_path / "run", overrides=overrides, show_progress=False)
    assert [row["epoch"] for row in read_metrics_log(tmp_path / "run")] == [1, 2]
    assert model.config["training"]["epochs_run"] == 2
