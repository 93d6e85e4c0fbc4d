"""Train and test named (recipe, dataset, seed) combinations; one result JSON per run (schema:
benchmarks/harness/common.py).

    python -m benchmarks.harness.run --recipe lama_ctx --dataset imdb --seeds 0 1 2 [--set pooler.heads=5] [--variant
    m5]

The epoch is chosen on dev (the training loop keeps the best dev epoch); test is evaluated once, on that model.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import torch

import attentive
from attentive.api import linear_part_accuracy, resolve_dataset
from benchmarks.harness.common import RESULTS_DIR, commit_at_start, variant_names, write_result
from benchmarks.harness.results_io import read_stored


def result_name(recipe: str, dataset: str, seed: int, variant: str | None) -> str:
    return "-".join([recipe, dataset] + ([variant] if variant else []) + [f"s{seed}"])


REDUNDANCY_SAMPLE = 2000  # the test texts `--analyze` reads


def analysis(model, dataset, report: Path) -> dict:
    """The `attentive analyze` report of a seeded sample of the test texts, written under `report`, and the numbers
    BENCHMARKS.md shows: attention entropy, head redundancy and the deletion test."""
    summary = model.analyze(dataset, report, "test", REDUNDANCY_SAMPLE)
    keep = ("texts", "mean_normalised_entropy", "mean_offdiag", "deletion")
    return {key: summary[key] for key in keep if key in summary}


def run_one(recipe: str, dataset, seed: int, overrides: Sequence[str], variant: str | None, device: str | None,
            out_root: Path | None, results_dir: Path | None, progress: bool, report_root: Path | None = None) -> Path:
    name = result_name(recipe, dataset.name, seed, variant)
    started = time.perf_counter()
    model = attentive.train(dataset, recipe, out_root / name if out_root else None,
                            overrides=[*overrides, f"train.seed={seed}"], device=device, show_progress=progress,
                            overwrite=True)
    trained = time.perf_counter()
    dev, test = model.evaluate(dataset, "dev"), model.evaluate(dataset, "test")
    training = model.config["training"]
    payload = {
        "kind": "model", "recipe": recipe, "dataset": dataset.name, "seed": seed,
        "wall_time_s": round(time.perf_counter() - started, 1),
        "train_s": round(trained - started, 1),  # attentive.train alone: what a user waits for
        "dev": dev, "test": test, "selected_on": "dev accuracy (best epoch)",
        "best_epoch": training["best_epoch"], "epochs_run": training["epochs_run"],
        "epoch_times_s": [round(s, 2) for s in training["epoch_seconds"]],
        "dev_curve": [round(epoch["dev_accuracy"], 5) for epoch in model.history.epochs],  # dev accuracy by epoch
        "params": sum(p.numel() for p in model.network.parameters() if p.requires_grad),
        "device": model.device, "torch_threads": torch.get_num_threads(),
        "hyperparameters": model.config["recipe"], "overrides": list(overrides),
        "vectors": model.config["vectors"],
    }
    if variant:
        payload["variant"] = variant
    if model.config.get("prior"):  # the linear model fitted after training (`wide.prior`): its C and weight
        payload["prior"] = model.config["prior"]
        payload["linear_alone"] = linear_part_accuracy(model, dataset)
    if report_root is not None:
        payload["analysis"] = analysis(model, dataset, report_root / name)
    path = write_result(name, payload, results_dir)
    print(f"{name}: dev {dev['accuracy']:.4f} test {test['accuracy']:.4f} "
          f"(best epoch {training['best_epoch']}, {payload['wall_time_s']} s) -> {path}", flush=True)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipe", required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="recipe override key=value")
    parser.add_argument("--variant", default=None, help="suffix separating runs that must not be averaged together")
    parser.add_argument("--device", default=None)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--save-models", type=Path, default=None, help="keep each trained model under this folder")
    parser.add_argument("--results-dir", type=Path, default=None)
    parser.add_argument("--analyze", type=Path, default=None, metavar="DIR",
                        help="also write each run's `attentive analyze` report of the test split under DIR "
                             "and keep its entropy, redundancy and deletion-test numbers in the result")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--skip-existing", action="store_true",
                        help="leave out the seeds whose result file is already there (to resume a table)")
    args = parser.parse_args(argv)
    commit_at_start()  # the code that runs is the code at start, whatever is committed meanwhile
    dataset = resolve_dataset(args.dataset, args.data_dir)
    stored = read_stored(args.results_dir or RESULTS_DIR)[0] if args.skip_existing else {}
    for seed in args.seeds:
        names = [result_name(args.recipe, dataset.name, seed, v)
                 for v in variant_names(args.recipe, dataset.name, args.variant)]
        done = [n for n in names if n in stored]
        if args.skip_existing and done:
            print(f"{names[0]}: result already there{'' if done[0] == names[0] else f' as {done[0]}'}, skipped",
                  flush=True)
            continue
        run_one(args.recipe, dataset, seed, args.overrides, args.variant, args.device, args.save_models,
                args.results_dir, not args.no_progress, args.analyze)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
