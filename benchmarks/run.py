"""Train and test named (recipe, dataset, seed) combinations; one result JSON per run (schema: benchmarks/common.py).

    python -m benchmarks.run --recipe lama_ctx --dataset imdb --seeds 0 1 2 [--set pooler.heads=5] [--variant m5]

The epoch is chosen on dev (the training loop keeps the best dev epoch); test is evaluated once, on that model.

`--held-out-dev F` (for sweeps) keeps a stratified fraction F of dev away from training: the epoch is chosen on the
rest, and the result's `held_dev` is the accuracy on the held part. The dev accuracy at the chosen epoch is the best
of every dev measurement a run made, so it rises with their number (more epochs) even where
the model does not improve; the held part, which chose nothing, compares candidates that measure dev differently.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import torch

import attentive
from attentive import Dataset
from attentive.api import resolve_dataset
from attentive.data.splits import carve_dev
from benchmarks.common import RESULTS_DIR, commit_at_start, variant_names, write_result


def result_name(recipe: str, dataset: str, seed: int, variant: str | None) -> str:
    return "-".join([recipe, dataset] + ([variant] if variant else []) + [f"s{seed}"])


REDUNDANCY_SAMPLE = 2000
HELD_SEED = 29  # the held part of dev is the same for every candidate and seed


def with_held_out_dev(dataset: Dataset, fraction: float) -> Dataset:
    """The dataset with `fraction` of its dev split (stratified by label) moved to a split named "held"."""
    selection, held = carve_dev(dataset.splits["dev"], fraction, seed=HELD_SEED)
    return Dataset(dataset.name, {**dataset.splits, "dev": selection, "held": held}, dataset.labels)


def attention_redundancy(model, examples) -> float | None:
    """Mean off-diagonal entry of A A^T over the test texts (Lin et al. §4.4: how much the hops overlap), or None
    for models without multi-head attention. Large test sets are measured on the seeded sample of REDUNDANCY_SAMPLE
    texts that `--analyze` reads too, which keeps IMDB's 25,000 from costing a second full pass. The sample and the
    measure are the analysis' own (private imports), so that the number is the one `attentive analyze` reports."""
    from attentive.explain.corpus import head_redundancy
    from attentive.explain.report import sample

    examples = sample(examples, REDUNDANCY_SAMPLE)
    pairs = [ex.text_pair for ex in examples] if model.is_pair else None
    aspects = [ex.aspect for ex in examples] if model.uses_aspect else None
    redundancy = head_redundancy(model.explain([ex.text for ex in examples], pairs, top_k=0, aspects=aspects,
                                               with_polarity=False))
    return None if redundancy is None else redundancy["mean_offdiag"]


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
    dev, test = model.evaluate(dataset, "dev"), model.evaluate(dataset, "test")
    training = model.config["training"]
    payload = {
        "kind": "model", "recipe": recipe, "dataset": dataset.name, "seed": seed,
        "wall_time_s": round(time.perf_counter() - started, 1),
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
    if dataset.splits.get("held"):
        payload["held_dev"] = model.evaluate(dataset, "held")
    if report_root is not None:  # the analysis measures the redundancy on the same sample
        payload["analysis"] = analysis(model, dataset, report_root / name)
        redundancy = payload["analysis"].get("mean_offdiag")
    else:
        redundancy = attention_redundancy(model, dataset.splits["test"])
    if redundancy is not None:
        payload["attention_offdiag_mean"] = redundancy
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
    parser.add_argument("--held-out-dev", type=float, default=0.0, metavar="F",
                        help="choose the epoch on 1 - F of dev and report the accuracy on the held fraction F")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--skip-existing", action="store_true",
                        help="leave out the seeds whose result file is already there (to resume a table)")
    args = parser.parse_args(argv)
    commit_at_start()  # the code that runs is the code at start, whatever is committed meanwhile
    dataset = resolve_dataset(args.dataset, args.data_dir)
    if args.held_out_dev:
        dataset = with_held_out_dev(dataset, args.held_out_dev)
    for seed in args.seeds:
        names = [result_name(args.recipe, dataset.name, seed, v)
                 for v in variant_names(args.recipe, dataset.name, args.variant)]
        done = [n for n in names if (Path(args.results_dir or RESULTS_DIR) / f"{n}.json").exists()]
        if args.skip_existing and done:
            print(f"{names[0]}: result already there{'' if done[0] == names[0] else f' as {done[0]}'}, skipped",
                  flush=True)
            continue
        run_one(args.recipe, dataset, seed, args.overrides, args.variant, args.device, args.save_models,
                args.results_dir, not args.no_progress, args.analyze)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
