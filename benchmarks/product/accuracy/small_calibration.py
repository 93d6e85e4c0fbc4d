"""Confidence on a small set: the default trained on 300 SST-2 rows (30 of them dev), scored on the full test split:
accuracy, ECE and how sure its wrong answers were.

    python -m benchmarks.product.accuracy.small_calibration --seeds 0 1 2"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

import attentive
from attentive import Dataset
from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.harness.formatting import fmt_mean_std, md_head, md_row

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


def calibration_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a small-set result)."""
    small = sorted((r for r in results if r.get("kind") == "small_calibration"), key=lambda r: r["seed"])
    if not small:
        return []
    full: dict[str, list[dict]] = {}
    for run in results:
        if run.get("kind") == "model" and run.get("recipe") == "default" and run.get("variant") == "defaults" \
                and "ece" in run["test"]:
            full.setdefault(run["dataset"], []).append(run)
    first = small[0]
    lines = ["## Confidence on held-out data", "",
             "The default's expected calibration error on each test split (Guo et al. 2017, 15 bins; lower is "
             "better), mean ± std over seeds. Its temperature is fitted on dev, never below 1 where dev holds under "
             "200 texts or under 10 wrong answers, and left at 1 where dev is answered all right "
             "(attentive/training/calibration.py); every full set below has a dev split of several hundred texts or "
             "more, where the rule fits as before. The small set is SST-2 cut to 300 rows, 30 of them dev "
             f"(`{first['command']}`, commit {first['git_commit']}).", "",
             *md_head(["set", "train / dev", "seeds", "test accuracy", "test ECE (%)", "wrong answers at p ≥ 0.999",
                       "largest p of a wrong answer"], "llrrrrr")]
    lines.append(md_row(["SST-2, 300 rows", f"{first['rows'] - first['dev_n']} / {first['dev_n']}", str(len(small)),
                         *(fmt_mean_std([r[key] for r in small]) for key in ("test_accuracy", "test_ece")),
                         f"{sum(r['wrong_at_0999'] for r in small)} of {sum(r['wrong'] for r in small)}",
                         f"{max(r['max_p_wrong'] for r in small):.3f}"]))
    for dataset, runs in sorted(full.items()):
        lines.append(f"| {dataset} | the set's own | {len(runs)} | "
                     f"{fmt_mean_std([r['test']['accuracy'] for r in runs])} | "
                     f"{fmt_mean_std([r['test']['ece'] for r in runs])} | — | — |")
    return lines + [""]


if __name__ == "__main__":
    main()
