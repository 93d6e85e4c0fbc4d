"""Each class's dev F1 in every epoch's record of metrics.jsonl (`dev_class_f1`, class-id order), beside the
accuracy and macro-F1 training already reported there."""
from __future__ import annotations

import json

import pytest

import attentive

from ..helpers import tiny_overrides


def test_every_epoch_records_each_classs_dev_f1_and_macro_f1_is_their_mean(sst2_small, tmp_path):
    out = tmp_path / "run"
    model = attentive.train(sst2_small, "lama_ctx", out, overrides=tiny_overrides("lama_ctx") + ["train.epochs=1"],
                            show_progress=False)
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    epochs = [r for r in records if "epoch" in r]
    assert epochs and all(len(r["dev_class_f1"]) == len(model.labels) for r in epochs)
    for record in epochs:
        assert sum(record["dev_class_f1"]) / len(model.labels) == pytest.approx(record["dev_macro_f1"], abs=1e-9)
    metrics = model.evaluate(sst2_small, "dev")
    assert epochs[0]["dev_class_f1"] == pytest.approx([metrics["per_class"][label]["f1"] for label in model.labels],
                                                      abs=1e-9)
