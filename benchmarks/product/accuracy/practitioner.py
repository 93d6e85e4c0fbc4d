"""`attentive cv` and `attentive tune` measured, seed by seed, on the default recipe.

    python -m benchmarks.product.accuracy.practitioner cv --dataset sst2 [--folds 10] [--seeds 0 1 2] [--jobs 2]
    python -m benchmarks.product.accuracy.practitioner tune --dataset sst2 [--budget 10m] [--seeds 0 1 2]

cv: per seed the folds' accuracy and macro-F1, out-of-fold accuracy and suspected label errors. tune: the best trial
by dev accuracy scored on test beside the same seed's default model; a seed whose folder holds its record is read
back. Nothing is chosen on test."""
from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import attentive
from benchmarks.harness.common import write_result
from benchmarks.harness.formatting import fmt_summary, md_head
from benchmarks.product.accuracy.class_weights import summary
from benchmarks.product.deploy.deployed import trained

RECORD = "benchmark-record"  # a finished seed's row, written into its tune folder with the commit and machine


def cross_validated(data, folder: Path, seed: int, args) -> tuple[dict, list[dict]]:
    """cv.json's summary and label-error rows of the cross-validation in `folder`, run unless finished there."""
    if (folder / "cv.json").exists():
        with open(folder / "label_errors.csv", newline="", encoding="utf-8") as handle:
            return json.loads((folder / "cv.json").read_text()), list(csv.DictReader(handle))
    result = attentive.cv(data, "default", folder, folds=args.folds, overrides=[f"train.seed={seed}"], seed=seed,
                          jobs=args.jobs, threads=args.threads, overwrite=True)
    return result.summary, result.label_errors


def run_cv(args) -> int:
    data = attentive.api.resolve_dataset(args.dataset)
    per_seed = []
    for seed in args.seeds:
        start = time.perf_counter()
        found, errors = cross_validated(data, args.runs / data.name / f"cv{args.folds}-s{seed}", seed, args)
        per_seed.append({"seed": seed, "wall_time_s": round(time.perf_counter() - start, 1),
                         "accuracy": found["accuracy"], "macro_f1": found["macro_f1"],
                         "out_of_fold": found["out_of_fold"], "suspects": found["label_errors"]["suspects"],
                         "most_suspect": [{"text": row["text"], "given": row["given"], "suggested": row["suggested"],
                                           "self_confidence": float(row["self_confidence"])} for row in errors[:10]],
                         "per_fold": found["per_fold"]})
        print(f"seed {seed}: accuracy {found['accuracy']['mean']:.4f} ± {found['accuracy']['std']:.4f}, "
              f"{found['label_errors']['suspects']} suspects", flush=True)
    payload = {"kind": "cv", "dataset": data.name, "recipe": "default", "folds": args.folds, "seeds": args.seeds,
               "rows": len(data.splits["train"]), "jobs": args.jobs, "threads": args.threads,
               "accuracy": summary([run["accuracy"]["mean"] for run in per_seed]),
               "macro_f1": summary([run["macro_f1"]["mean"] for run in per_seed]),
               "out_of_fold_accuracy": summary([run["out_of_fold"]["accuracy"] for run in per_seed]),
               "suspects": summary([run["suspects"] for run in per_seed]),
               "selected_on": "each fold's own dev rows (epochs); never a fold's test rows", "per_seed": per_seed}
    write_result(f"cv-{data.name}", payload)
    return 0


def run_tune(args) -> int:
    data = attentive.api.resolve_dataset(args.dataset)
    per_seed = []
    for seed in args.seeds:
        default_dir = args.runs / data.name / f"default-s{seed}"
        default, _ = trained(default_dir, lambda out: attentive.train(data, "default", out, [f"train.seed={seed}"],
                                                                     show_progress=False))
        tune_dir = args.runs / data.name / f"tune-s{seed}"
        record_file = tune_dir / f"{RECORD}.json"
        if record_file.exists():  # a seed finished by an earlier call (the study's record, with its own commit)
            per_seed.append(json.loads(record_file.read_text()))
            print(f"seed {seed}: {per_seed[-1]} (finished earlier)", flush=True)
            continue
        start = time.perf_counter()
        result = attentive.tune(data, "default", tune_dir, budget=args.budget,
                                overrides=[f"train.seed={seed}"], seed=seed, threads=args.threads, overwrite=True)
        completed = [row for row in result.trials if row.get("state") == "complete"]
        per_seed.append({"seed": seed, "wall_time_s": round(time.perf_counter() - start, 1),
                         "trials": len(result.trials), "completed": len(completed),
                         "best_trial": result.best_trial, "best_params": result.best_params,
                         "tuned": {"dev_accuracy": round(result.best_dev_accuracy, 4),
                                   "test_accuracy": round(result.model.evaluate(data, "test")["accuracy"], 4)},
                         "default": {"dev_accuracy": round(default.config["training"]["dev_accuracy"], 4),
                                     "test_accuracy": round(default.evaluate(data, "test")["accuracy"], 4)}})
        write_result(RECORD, per_seed[-1], tune_dir)
        print(f"seed {seed}: {per_seed[-1]}", flush=True)
    payload = {"kind": "tune", "dataset": data.name, "recipe": "default", "budget": args.budget, "seeds": args.seeds,
               "threads": args.threads,
               "tuned_dev": summary([run["tuned"]["dev_accuracy"] for run in per_seed]),
               "tuned_test": summary([run["tuned"]["test_accuracy"] for run in per_seed]),
               "default_dev": summary([run["default"]["dev_accuracy"] for run in per_seed]),
               "default_test": summary([run["default"]["test_accuracy"] for run in per_seed]),
               "selected_on": "dev accuracy (trials and epochs); test only reported", "per_seed": per_seed}
    write_result(f"tune-{data.name}", payload)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("cv", "tune"))
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path("runs/deployable"))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1, help="cv: folds trained at once (one thread each with 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--budget", default="10m")
    args = parser.parse_args(argv)
    return run_cv(args) if args.what == "cv" else run_tune(args)


TITLE = "Cross-validation and autotune"


def _table_head(result: dict, title: str, columns: list[str]) -> list[str]:
    """A result's lead paragraph (`title`, then a link to its file) and the head of its table."""
    return [f"{title}; [{result['name']}](benchmarks/results/{result['file']})).", "",
            *md_head(columns, "l" * len(columns))]


def _cv(result: dict) -> list[str]:
    lines = _table_head(result, f"**`attentive cv --folds {result['folds']}` on {result['dataset']}'s train split** "
                                f"({result['rows']:,} texts; the default recipe; each fold's epoch chosen on a dev "
                                f"tenth of its own training rows",
                        ["seed", "accuracy over folds", "macro-F1 over folds", "out-of-fold accuracy",
                         "suspected label errors"])
    for run in result["per_seed"]:
        lines.append(f"| {run['seed']} | {fmt_summary(run['accuracy'])} | {fmt_summary(run['macro_f1'])} | "
                     f"{100 * run['out_of_fold']['accuracy']:.2f} | {run['suspects']:,} |")
    lines.append(f"| mean ± std over seeds | {fmt_summary(result['accuracy'])} | {fmt_summary(result['macro_f1'])} | "
                 f"{fmt_summary(result['out_of_fold_accuracy'])} | {result['suspects']['mean']:,.0f} ± "
                 f"{result['suspects']['std']:,.0f} |")
    first = result["per_seed"][0]["most_suspect"][:5]
    if first:
        lines += ["", "The five most suspect rows of the first seed (given label → the one cross-validation "
                      "suggests, the given label's out-of-fold probability):", ""]
        lines += [f"- {row['given']} → {row['suggested']} ({row['self_confidence']:.3f}): “{row['text']}”"
                  for row in first]
    return lines + [""]


OWN_FIRST = "12bd312"  # the commit from which a new study's first trial is the recipe's own settings


def _tune(result: dict) -> list[str]:
    lines = _table_head(result, f"**`attentive tune --budget {result['budget']}` on {result['dataset']}** (the "
                                f"default recipe's `tune:` space, Optuna TPE with median pruning, one study per seed, "
                                f"its first trial the recipe itself in studies begun since commit {OWN_FIRST}; the "
                                f"best trial by dev accuracy, then scored on test",
                        ["seed", "trials (completed)", "tuned dev", "tuned test", "default dev", "default test",
                         "best settings"])
    for run in result["per_seed"]:
        settings = ", ".join(f"{key}={value:.3g}" if isinstance(value, float) else f"{key}={value}"
                             for key, value in run["best_params"].items())
        lines.append(f"| {run['seed']} | {run['trials']} ({run['completed']}) | "
                     f"{100 * run['tuned']['dev_accuracy']:.2f} | {100 * run['tuned']['test_accuracy']:.2f} | "
                     f"{100 * run['default']['dev_accuracy']:.2f} | {100 * run['default']['test_accuracy']:.2f} | "
                     f"{settings} |")
    lines.append(f"| mean ± std | | {fmt_summary(result['tuned_dev'])} | {fmt_summary(result['tuned_test'])} | "
                 f"{fmt_summary(result['default_dev'])} | {fmt_summary(result['default_test'])} | |")
    return lines + [""]


def practitioner_section(results: list[dict]) -> list[str]:
    """The section's lines; [] without a cv or tune result."""
    cv = sorted((r for r in results if r.get("kind") == "cv"), key=lambda r: r["dataset"])
    tune = sorted((r for r in results if r.get("kind") == "tune"), key=lambda r: r["dataset"])
    if not cv and not tune:
        return []
    lines = [f"## {TITLE}", ""]
    for result in cv:
        lines += _cv(result)
    for result in tune:
        lines += _tune(result)
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
