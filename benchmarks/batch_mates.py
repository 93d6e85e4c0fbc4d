"""Does an export answer a text the same whichever texts share its batch? ONNX Runtime's int8 graph
(`attentive export --int8`: dynamic quantisation) multiplies each layer's input by int8 weights after scaling the
input to int8 by the range of the whole batch (one scale per tensor), so a text's probabilities can move with its
batch-mates; the fp32 graph's should not, beyond rounding.

    python -m benchmarks.batch_mates --dataset sst2 [--runs runs/shipped]

The shipped default of `benchmarks.shipped` (RUNS/DATASET/default-s0), exported fp32 and int8, answers the test texts
(up to 5,000) one call of one text each and in calls of 128 in the test set's order (as the timing tables call it),
one thread: per graph, the largest and the mean change of a probability, how many predicted labels differ, and the
test accuracy either way. Writes results/batch-mates-DATASET.json, `"kind": "batch_mates"`.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import attentive
from attentive import runtime
from attentive.export import export
from benchmarks.baselines import split_xy
from benchmarks.common import commit_at_start, write_result
from benchmarks.shipped import RECIPE, SEED

CALL = 128  # texts a call, as benchmarks/deploy_speed.py times them


def compared(folder: Path, int8: bool, texts: list[str], gold: list[str]) -> dict:
    """One graph's answers alone and in calls of CALL texts, set side by side."""
    model = runtime.load(folder, int8=int8, threads=1)
    alone = np.vstack([model.predict_proba([text]) for text in texts])
    batched = np.vstack([model.predict_proba(texts[i:i + CALL], batch_size=CALL) for i in range(0, len(texts), CALL)])
    change = np.abs(alone - batched)
    labels = np.array(model.labels)
    return {"max_probability_change": float(change.max()), "mean_probability_change": float(change.mean()),
            "labels_changed": int((alone.argmax(1) != batched.argmax(1)).sum()),
            "accuracy_alone": round(float((labels[alone.argmax(1)] == np.array(gold)).mean()), 4),
            "accuracy_batched": round(float((labels[batched.argmax(1)] == np.array(gold)).mean()), 4)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--runs", type=Path, default=Path("runs/shipped"))
    parser.add_argument("--n", type=int, default=5000, help="the test texts answered")
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.api.resolve_dataset(args.dataset)
    folder = args.runs / data.name / f"{RECIPE}-s{SEED}"
    if not (folder / "config.json").exists():
        parser.error(f"{folder} holds no model: train it with `python -m benchmarks.shipped --dataset {data.name} "
                     "--train-only`")
    texts, gold = (values[: args.n] for values in split_xy(data, "test"))
    with tempfile.TemporaryDirectory() as scratch:
        exported = export(attentive.load(folder, device="cpu"), Path(scratch) / "export", int8=True)
        graphs = {name: compared(exported, name == "int8", texts, gold) for name in ("fp32", "int8")}
    path = write_result(f"batch-mates-{data.name}", {"kind": "batch_mates", "dataset": data.name,
                                                      "n_texts": len(texts), "call": CALL, "graphs": graphs})
    print(path, graphs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
