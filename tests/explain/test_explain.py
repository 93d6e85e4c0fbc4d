"""The deletion test finds the word a decision rests on; the corpus analyses write every file they promise."""
from __future__ import annotations

import json

import numpy as np
import torch

from attentive.answer.deletion import removal_count
from attentive.cli import main
from attentive.data.batching import Item
from attentive.explain.deletion import deletion_test

from ..helpers import KEY, hand_built_model, tiny_overrides, write_tsv


def test_deletion_test_ranks_the_deciding_word_first():
    model = hand_built_model()
    items = [Item([2, 3, KEY, 4, 6, 7, 8, 9]), Item([KEY, 2, 3, 4, 6, 7, 8, 9]), Item([2, 3, 4, 6, 7, 8, 9, KEY])]
    out = model(torch.tensor([item.ids for item in items]), torch.ones(3, 8, dtype=torch.bool))
    attention = [row[0].detach().numpy() for row in out.attention]
    assert all(int(np.argmax(weights)) == item.ids.index(KEY) for weights, item in zip(attention, items))
    result = deletion_test(model, items, attention, steps=(1,), seed=0)
    flips = {row["ranking"]: row["flip_rate"] for row in result["rows"]}
    assert flips["attention"] == 1.0 and flips["gradient"] == 1.0  # removing KEY always flips class 1 -> 0
    assert flips["random"] < 1.0
    assert result["verdict"].startswith("attention ranks words better than random")


def test_removal_counts_never_empty_a_text():
    assert [removal_count(step, 30) for step in (1, 2, 5, "10%")] == [1, 2, 5, 3]
    assert removal_count(5, 3) == 2 and removal_count("10%", 4) == 1


def test_analyze_writes_every_promised_file(tmp_path, capsys, sst2_small):
    files = {split: write_tsv(tmp_path / f"{split}.tsv", sst2_small.splits[split][:200]) for split in ("train", "dev")}
    run = tmp_path / "run"
    overrides = [arg for item in tiny_overrides("lama_ctx") for arg in ("--set", item)]
    assert main(["train", "--train", str(files["train"]), "--dev", str(files["dev"]), "--recipe", "lama_ctx",
                 "--out", str(run), *overrides]) == 0
    report = tmp_path / "report"
    assert main(["analyze", str(run), "--file", str(files["dev"]), "--out", str(report), "--min-count", "2"]) == 0
    promised = ["top_words", "word_weights", "redundancy", "polarity", "training_curves", "deletion", "length"]
    for name in promised:
        assert (report / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
    page = (report / "index.html").read_text()
    assert all(f'src="{name}.png"' in page for name in promised)
    summary = json.loads((report / "summary.json").read_text())
    assert summary["texts"] == len(sst2_small.splits["dev"]) and 0.0 <= summary["mean_offdiag"] <= 1.0
    assert {row["ranking"] for row in summary["deletion"]["rows"]} == {"attention", "random", "gradient"}
    top = (report / "top_words.csv").read_text().splitlines()
    assert top[0] == "class,rank,word,mean_weight,count" and len(top) > 1
    by_length = summary["accuracy_by_length"]  # every text in one quartile and one side of the mean
    assert [row["bucket"] for row in by_length["quartiles"]] == ["Q1", "Q2", "Q3", "Q4"]
    for split in ("quartiles", "mean"):
        assert sum(row["texts"] for row in by_length[split]) == summary["texts"]
    assert "accuracy by length: Q1 (" in capsys.readouterr().out
    assert (report / "length.csv").read_text().startswith("split,bucket,min_words,max_words,texts,accuracy")
