"""The default as users deploy it, on every visible dataset (issue 45, "Done when": int8 size, `predict`'s texts/s
against TF-IDF + LR's and fastText's, p50): one model of the shipped recipe, its int8 export timed beside the peers in
one process on the same test texts, threads pinned, exactly as the deployable table times its systems
(benchmarks/product/deploy/deployable.py `timings`: `predict` with its top five words and `predict_proba`, batches of
128 on 2
threads, p50 of one sentence on 1 thread).

    python -m benchmarks.product.deploy.shipped --dataset r8 [--train-only] [--runs runs/shipped]

The model is `attentive train --recipe default` with seed 0, saved in RUNS/DATASET/default-s0 (trained there unless
it is there: `--train-only` trains it and stops, so that several can train in one-thread lanes and the timing runs
later on a quiet machine). Its accuracy over three seeds is the defaults table's (`benchmarks.harness.run --recipe
default
--variant defaults`); this run adds the timed model's own test accuracy, by PyTorch and by its int8 graph. Writes
results/shipped-DATASET.json, `"kind": "shipped"`. Nothing else may run beside the timing.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import attentive
from benchmarks.harness.baselines import split_xy
from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.product.deploy.deployable import int8_accuracy, model_predicted, show, timings, trained

RECIPE = "default"
SEED = 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--runs", type=Path, default=Path("runs/shipped"))
    parser.add_argument("--train-only", action="store_true", help="train the model and stop (no timing)")
    parser.add_argument("--n", type=int, default=5000, help="the test texts timed")
    parser.add_argument("--repeats", type=int, default=300, help="calls of one sentence for the p50")
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.api.resolve_dataset(args.dataset)
    folder = args.runs / data.name / f"{RECIPE}-s{SEED}"
    model, train_s = trained(folder, lambda out: attentive.train(data, RECIPE, out, [f"train.seed={SEED}"],
                                                                 show_progress=False))
    if args.train_only:
        return 0
    texts, gold = split_xy(data, "test")
    accuracy = round(float((np.array(model_predicted(model, texts)) == np.array(gold)).mean()), 4)
    measured, sizes = timings({"default": folder}, data, texts[: args.n], args.repeats)
    systems = {name: {**measured[name], **sizes[name]} for name in measured}
    systems["default"].update(test_accuracy=accuracy, int8_test_accuracy=int8_accuracy([folder], data)["mean"],
                              train_s=train_s, prior=model.config.get("prior"))
    payload = {"kind": "shipped", "dataset": data.name, "recipe": RECIPE, "seed": SEED,
               "n_texts": len(texts[: args.n]), "systems": systems}
    path = write_result(f"shipped-{data.name}", payload)
    show({name: {"accuracy": {"mean": values.get("test_accuracy", float("nan")), "std": 0.0},
                 "train_s": values.get("train_s", 0.0), **values} for name, values in systems.items()}, path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
