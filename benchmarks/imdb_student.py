"""The compact student on IMDB without the default model as teacher (issue 33: a default model costs about an hour a
seed on IMDB on the 2-core machine, so the deployable table has no IMDB row).

    python -m benchmarks.imdb_student [--seeds 0 1 2] [--runs runs]

1. `hard`: the `student` recipe trained on IMDB's labels alone, one model per seed (runs/imdb-student-hard[-sN]);
2. `ensemble_unsup`: a student per seed distilled (`attentive distill`, Tang et al.'s logit MSE) from those
   hard-label students averaged as one teacher, over the training reviews and IMDB's 50,000 unlabelled reviews
   (`imdb_unsup`, no augmented copies: a review is long) - self-distillation with in-domain transfer text, the part
   of Tang et al. §3.2 this machine can afford (runs/imdb-student-ens-unsup[-sN]).
Each model's dev accuracy chose its epoch; test accuracy is reported beside TF-IDF + LR's and fastText's
(results/tfidf_lr-imdb-s0.json, fasttext-imdb-s0.json) and the default's. Finished folders are read back, not
retrained. Writes results/imdb-student.json.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import attentive
from attentive.distill import Augmentation, Distillation, distill
from benchmarks.common import write_result
from benchmarks.deployable import summary


def hard_folder(runs: Path, seed: int) -> Path:
    """The folder name the first IMDB student had (seed 0), then `-sN`."""
    return runs / ("imdb-student-hard" if seed == 0 else f"imdb-student-hard-s{seed}")


def trained(folder: Path, make) -> attentive.Model:
    """The model in `folder`, trained by `make(folder)` unless it is there."""
    if not (folder / "config.json").exists():
        make(folder)
    return attentive.load(folder, device="cpu")


def scores(model: attentive.Model, data) -> dict:
    """Dev (the chosen epoch's) and test accuracy, and the seconds of the training epochs (metrics.jsonl; building
    the vocabulary and vectors, and a distillation's teacher probabilities, not counted)."""
    records = [json.loads(line) for line in (model.folder / "metrics.jsonl").read_text().splitlines() if line]
    return {"dev_accuracy": round(model.config["training"]["dev_accuracy"], 4),
            "test_accuracy": round(model.evaluate(data, "test")["accuracy"], 4),
            "epoch_seconds": round(sum(r.get("seconds", 0.0) for r in records if "epoch" in r), 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    data = attentive.api.resolve_dataset("imdb")
    hard = {}
    for seed in args.seeds:
        model = trained(hard_folder(args.runs, seed), lambda out, seed=seed: attentive.train(
            data, "default", out, [f"train.seed={seed}"], show_progress=False))
        hard[seed] = scores(model, data)
        print(f"hard seed {seed}: {hard[seed]}", flush=True)
    teachers = [hard_folder(args.runs, seed) for seed in args.seeds]
    distilled = {}
    for seed in args.seeds:
        how = Distillation(augmentation=Augmentation(copies=0), seed=seed)
        folder = args.runs / ("imdb-student-ens-unsup" if seed == 0 else f"imdb-student-ens-unsup-s{seed}")
        model = trained(folder, lambda out, how=how, seed=seed: distill(
            teachers, data, out, how=how, unlabelled="imdb_unsup", overrides=[f"train.seed={seed}"],
            show_progress=False))
        distilled[seed] = scores(model, data)
        print(f"ensemble_unsup seed {seed}: {distilled[seed]}", flush=True)
    payload = {"kind": "imdb_student", "dataset": "imdb", "recipe": "student", "seeds": args.seeds,
               "hard": {"per_seed": hard, "dev_accuracy": summary([r["dev_accuracy"] for r in hard.values()]),
                        "test_accuracy": summary([r["test_accuracy"] for r in hard.values()])},
               "ensemble_unsup": {"per_seed": distilled,
                                  "dev_accuracy": summary([r["dev_accuracy"] for r in distilled.values()]),
                                  "test_accuracy": summary([r["test_accuracy"] for r in distilled.values()]),
                                  "teachers": [str(t) for t in teachers], "unlabelled": "imdb_unsup", "augment": 0,
                                  "loss": how.loss, "soft_weight": how.soft_weight},
               "selected_on": "dev (each model's epoch); test only reported"}
    write_result("imdb-student", payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
