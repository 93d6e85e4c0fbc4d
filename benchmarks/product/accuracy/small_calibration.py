"""Confidence on a small set: the default trained on SST-2 cut to 300 rows (270 to train, 30 to choose on), scored on
the full test split, one result file a seed (kind "small_calibration"): accuracy, the expected calibration error, and
how sure its wrong answers were (the largest probability of a wrong answer, and how many were at 0.999 or more), with
the calibration rule config.json records (attentive/training/calibration.py).

    python -m benchmarks.product.accuracy.small_calibration --seeds 0 1 2
"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

import attentive
from attentive import Dataset
from benchmarks.harness.common import commit_at_start, write_result

ROWS, DEV = 300, 30


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    commit_at_start()
    data = attentive.load_dataset("sst2")
    test = list(data.splits["test"])
    for seed in args.seeds:
        rows = random.Random(seed).sample(list(data.splits["train"]), ROWS)
        cut = Dataset("sst2-300", {"train": rows[DEV:], "dev": rows[:DEV], "test": test}, list(data.labels))
        began = time.perf_counter()
        model = attentive.train(cut, "default", overrides=[f"train.seed={seed}"], show_progress=False)
        seconds = time.perf_counter() - began
        metrics = model.evaluate(cut, "test")
        probabilities = model.predict_proba([ex.text for ex in test])
        gold = np.array([model.labels.index(ex.label) for ex in test])
        wrong = probabilities.argmax(1) != gold
        sure = probabilities.max(1)[wrong]
        write_result(f"small_calibration-sst2-300-s{seed}",
                     {"kind": "small_calibration", "dataset": "sst2", "rows": ROWS, "dev_n": DEV, "seed": seed,
                      "wall_time_s": seconds, "test_accuracy": metrics["accuracy"], "test_ece": metrics["ece"],
                      "wrong": int(wrong.sum()), "wrong_at_0999": int((sure >= 0.999).sum()),
                      "max_p_wrong": float(sure.max()) if len(sure) else None,
                      "calibration": model.config.get("calibration")})


if __name__ == "__main__":
    main()
