"""Does data-parallel training keep the accuracy? The bundled SST-2 sample trained three seeds in one process of 2
threads and three in two torchrun processes of 1 thread; is the two-process mean within the one-process mean ± 2 std.

    python -m benchmarks.product.scale.ddp_accuracy [--recipe lama_ctx]"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import attentive
from benchmarks.harness.common import REPO_ROOT, write_result

WORK = REPO_ROOT / "runs" / "ddp-accuracy"
DATASET = "sst2_sample"
SEEDS = (0, 1, 2)


def train_one(recipe: str, seed: int, nproc: int) -> dict:
    """Train into WORK (replacing an earlier run there) as `attentive train` does; its numbers."""
    out = WORK / f"{recipe}-nproc{nproc}-s{seed}"
    settings = ["--set", f"train.seed={seed}"]
    command = [sys.executable, "-m", "attentive", "train", "--dataset", DATASET, "--recipe", recipe, "--out",
               str(out), *settings, "--overwrite", "--threads", str(2 // nproc)]
    if nproc > 1:
        command += ["--nproc", str(nproc)]
    start = time.perf_counter()
    subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": str(2 // nproc)},
                   stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    model = attentive.load(out)
    training = model.config["training"]
    return {"seed": seed, "dev_accuracy": training["dev_accuracy"], "best_epoch": training["best_epoch"],
            "epochs_run": training["epochs_run"], "epoch_seconds": training["epoch_seconds"],
            "test_accuracy": model.evaluate(DATASET, split="test")["accuracy"], "wall_time_s": seconds}


def summary(runs: list[dict]) -> dict:
    out = {}
    for key in ("dev_accuracy", "test_accuracy", "wall_time_s"):
        values = [run[key] for run in runs]
        out[key] = {"mean": statistics.mean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0,
                    "min": min(values), "max": max(values)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipe", default="lama_ctx")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    arms = {nproc: [train_one(args.recipe, seed, nproc) for seed in SEEDS] for nproc in (1, 2)}
    one, two = summary(arms[1]), summary(arms[2])
    spread = (one["test_accuracy"]["mean"] - 2 * one["test_accuracy"]["std"],
              one["test_accuracy"]["mean"] + 2 * one["test_accuracy"]["std"])
    path = write_result(f"ddp-accuracy-{DATASET}", {
        "kind": "ddp_accuracy", "recipe": args.recipe, "dataset": DATASET, "seeds": list(SEEDS), "overrides": [],
        "selected_on": "dev (each run's best epoch); test only measured",
        "wall_time_s": time.perf_counter() - start, "load_average_at_end": os.getloadavg(),
        "one_process": {"threads": 2, "runs": arms[1], **one},
        "two_processes": {"threads_each": 1, "runs": arms[2], **two},
        "checks": {"one_process_test_spread_mean_2std": list(spread),
                   "two_process_test_mean_within_spread": spread[0] <= two["test_accuracy"]["mean"] <= spread[1],
                   "two_process_runs_within_one_process_range": all(
                       one["test_accuracy"]["min"] <= run["test_accuracy"] <= one["test_accuracy"]["max"]
                       for run in arms[2])},
    })
    record = json.loads(path.read_text())
    print(json.dumps({key: record[key] for key in ("checks",)}, indent=1))
    for name in ("one_process", "two_processes"):
        print(name, {key: round(record[name][key]["mean"], 4) for key in ("dev_accuracy", "test_accuracy")},
              "test std", round(record[name]["test_accuracy"]["std"], 4))


if __name__ == "__main__":
    main()
