"""`opinion` (the biGRU model, the default until commit a798496) with a pruned vocabulary beside it as it ships
(issue 33: "the default model's folder shrinks with pruning at equal dev accuracy"; the compact default prunes).

    python -m benchmarks.pruned_default --dataset sst2 [--seeds 0 1 2]

`tokenizer.prune_pieces=true` keeps only the MiniLM pieces the training texts use (the student's setting); the
default as it ships keeps all 30,522 of them, whose 306-float rows are most of its folder. Both are trained with the
same seeds (the shipped one is reused from runs/deployable/DATASET/default-sN, as benchmarks/deployable.py trained
it), and both folders are measured as this version saves them (the n-gram table by its nonzero rows,
attentive/folders/row_sparse.py): the older folder is saved again first. Reported per side: dev accuracy (which chose
each run's epoch), test accuracy, the saved folder and the int8 ONNX export, in MB.
Writes results/pruned-default-DATASET.json.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import attentive
from attentive.export import export
from benchmarks.common import write_result
from benchmarks.deployable import folder_mb, summary, trained

SAVED = ("model.safetensors", "tokenizer.json", "config.json")
PRUNED = ["tokenizer.prune_pieces=true"]


def measured(model: attentive.Model, data, tmp: Path, name: str) -> dict:
    saved = tmp / f"{name}-saved"
    model.save(saved)
    exported = export(model, tmp / f"{name}-onnx", int8=True)
    return {"dev_accuracy": round(model.config["training"]["dev_accuracy"], 4),
            "test_accuracy": round(model.evaluate(data, "test")["accuracy"], 4),
            "folder_mb": folder_mb(saved, SAVED),
            "int8_mb": folder_mb(exported, ("model.int8.onnx", "tokenizer.json", "config.json")),
            "vocab_size": model.config["vocab_size"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path("runs/deployable"))
    args = parser.parse_args(argv)
    data = attentive.api.resolve_dataset(args.dataset)
    sides: dict[str, list[dict]] = {"default": [], "pruned": []}
    for seed in args.seeds:
        for side, extra in (("default", []), ("pruned", PRUNED)):
            folder = args.runs / data.name / f"{'default' if side == 'default' else 'default_pruned'}-s{seed}"
            model, seconds = trained(folder, lambda out, extra=extra: attentive.train(
                data, "opinion", out, [f"train.seed={seed}", *extra], show_progress=False))
            with tempfile.TemporaryDirectory() as tmp:
                sides[side].append({**measured(model, data, Path(tmp), side), "train_s": seconds})
        print(f"seed {seed}: " + ", ".join(f"{side} {runs[-1]}" for side, runs in sides.items()), flush=True)
    keys = ("dev_accuracy", "test_accuracy", "folder_mb", "int8_mb", "vocab_size", "train_s")
    payload = {"kind": "pruned_default", "dataset": data.name, "seeds": args.seeds, "pruned_overrides": PRUNED,
               "selected_on": "dev (each run's epoch); test only reported",
               "systems": {side: {key: summary([run[key] for run in runs]) for key in keys}
                           for side, runs in sides.items()}}
    write_result(f"pruned-default-{data.name}", payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
