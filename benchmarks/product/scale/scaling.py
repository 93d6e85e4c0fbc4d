"""Training on this machine's cores three ways: one process of 2 threads, two torchrun processes of 1 thread, and two
1-thread lanes side by side; SST-2 and an IMDB sample (its epoch scaled to the full split), each training in its own
process. Nothing else may run beside it.

    python -m benchmarks.product.scale.scaling"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import attentive
from attentive.api import resolve_dataset
from benchmarks.harness.common import REPO_ROOT, write_result
from benchmarks.harness.formatting import fmt_summary, md_head
from benchmarks.harness.results_io import machine_short

WORK = REPO_ROOT / "runs" / "scaling"
DEV_FRACTION = 0.1  # the stratified tenth `attentive train --train FILE` carves for dev
IMDB_TEXTS, EPOCHS = 4000, 2


def command(out: Path, data: list[str], threads: int, nproc: int, seed: int, epochs: int) -> list[str]:
    settings = [part for entry in (f"train.seed={seed}", f"train.epochs={epochs}", "train.patience=100")
                for part in ("--set", entry)]
    return [sys.executable, "-m", "attentive", "train", *data, "--out", str(out), *settings, "--overwrite",
            "--threads", str(threads), *(["--nproc", str(nproc)] if nproc > 1 else [])]


def epoch_seconds(out: Path) -> float:
    return statistics.fmean(attentive.load(out).config["training"]["epoch_seconds"])


def train(name: str, data: list[str], threads: int, nproc: int = 1, seed: int = 0, epochs: int = 2) -> float:
    out = WORK / name
    subprocess.run(command(out, data, threads, nproc, seed, epochs), check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    return epoch_seconds(out)


def side_by_side(names: list[str], data: list[str], threads: int, epochs: int) -> list[float]:
    """Trainings started together, one per name (seeds 0, 1, ...); each one's mean epoch seconds."""
    running = [subprocess.Popen(command(WORK / name, data, threads, 1, seed, epochs), stdout=subprocess.DEVNULL,
                                env={**os.environ, "OMP_NUM_THREADS": str(threads)})
               for seed, name in enumerate(names)]
    if any(process.wait() for process in running):
        raise SystemExit(f"a side-by-side training failed: {names}")
    return [epoch_seconds(WORK / name) for name in names]


def imdb_sample(texts: int) -> tuple[Path, int]:
    """A seeded sample of IMDB's train split as a JSONL file; and the split's full size."""
    rows = list(resolve_dataset("imdb").splits["train"])
    chosen = random.Random(0).sample(rows, texts)
    path = WORK / f"imdb-{texts}.jsonl"  # JSON lines: reviews hold tabs, which a TSV field may not
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"text": row.text, "label": row.label}) + "\n" for row in chosen),
                    encoding="utf-8")
    return path, len(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    start = time.perf_counter()
    sample, imdb_rows = imdb_sample(IMDB_TEXTS)
    sample_train = IMDB_TEXTS - round(IMDB_TEXTS * DEV_FRACTION)  # train carves its dev from the file
    sets = {"sst2": (["--dataset", "sst2"], 1.0),
            "imdb": (["--train", str(sample)], imdb_rows / sample_train)}  # the sample's epoch, scaled to all
    epochs = {}
    for name, (data, scale) in sets.items():
        single = train(f"{name}-1x1", data, threads=1, epochs=EPOCHS) * scale
        one = train(f"{name}-1x2", data, threads=2, epochs=EPOCHS) * scale
        two = train(f"{name}-2x1", data, threads=1, nproc=2, epochs=EPOCHS) * scale
        epochs[name] = {"one_process_1_thread_s": round(single, 1), "one_process_2_threads_s": round(one, 1),
                        "two_processes_1_thread_s": round(two, 1),
                        "threads_efficiency": round(single / one / 2, 2), "ddp_efficiency": round(single / two / 2, 2),
                        "measured_on": "the whole train split" if scale == 1.0 else
                        f"a seeded sample of {IMDB_TEXTS} reviews ({sample_train} trained on), scaled to "
                        f"{imdb_rows}"}
        print(name, epochs[name], flush=True)
    sst2 = ["--dataset", "sst2"]
    alone = train("lane-alone", sst2, threads=1, epochs=1)
    pinned = side_by_side(["lane-a", "lane-b"], sst2, threads=1, epochs=1)
    crowded = side_by_side(["crowded-a", "crowded-b"], sst2, threads=2, epochs=1)
    lanes = {"alone_1_thread_s": round(alone, 1), "two_lanes_1_thread_s": [round(s, 1) for s in pinned],
             "two_lanes_slowdown": round(max(pinned) / alone, 2),
             "two_jobs_2_threads_s": [round(s, 1) for s in crowded],
             "two_jobs_2_threads_slowdown": round(max(crowded) / alone, 2)}
    print(lanes, flush=True)
    write_result("scaling", {"kind": "scaling", "recipe": "default", "epochs": EPOCHS, "cores": os.cpu_count(),
                             "wall_time_s": round(time.perf_counter() - start, 1), "epoch_time": epochs,
                             "lanes": lanes})
    return 0


TITLE = "Scaling out: threads, torchrun processes, lanes, batch scoring"


def scaling_section(results: list[dict]) -> list[str]:
    """The latest `scaling` result, data-parallel accuracy and batch scoring (Ray against `predict --jobs`)."""
    scaling = [r for r in results if r.get("kind") == "scaling"]
    rest = _ddp_lines([r for r in results if r.get("kind") == "ddp_accuracy"]) + \
        _scoring_lines([r for r in results if r.get("kind") == "throughput"])
    if not scaling and not rest:
        return []
    return [f"## {TITLE}", ""] + (_epoch_lines(max(scaling, key=lambda r: r.get("date", ""))) if scaling else []) + rest


def _epoch_lines(result: dict) -> list[str]:
    lines = [
             f"The default recipe, mean epoch seconds over {result['epochs']} epochs, on {machine_short(result)} "
             f"([{result['name']}](benchmarks/results/{result['file']})). Efficiency: the 1-thread time "
             "over twice the 2-core time (1.0 perfect; 0.5: the second core bought nothing).", "",
             *md_head(["dataset", "1 process × 1 thread", "1 process × 2 threads", "2 processes × 1 thread (torchrun)",
                       "threads' efficiency", "torchrun's efficiency", "measured on"], "lrrrrrl")]
    for dataset, row in result["epoch_time"].items():
        lines.append(f"| {dataset} | {row['one_process_1_thread_s']:.1f} s | {row['one_process_2_threads_s']:.1f} s | "
                     f"{row['two_processes_1_thread_s']:.1f} s | {row['threads_efficiency']:.2f} | "
                     f"{row['ddp_efficiency']:.2f} | {row['measured_on']} |")
    lanes = result["lanes"]
    lines += ["", f"Lanes (SST-2, one epoch): alone with 1 thread {lanes['alone_1_thread_s']:.1f} s; two 1-thread "
                  f"lanes at once {' and '.join(f'{s:.1f} s' for s in lanes['two_lanes_1_thread_s'])} "
                  f"(slowdown {lanes['two_lanes_slowdown']:.2f}×, target ≤ 2×); two 2-thread jobs at once "
                  f"{' and '.join(f'{s:.1f} s' for s in lanes['two_jobs_2_threads_s'])} "
                  f"(slowdown {lanes['two_jobs_2_threads_slowdown']:.2f}×: what the thread defaults prevent).", ""]
    return lines


def _ddp_lines(results: list[dict]) -> list[str]:
    lines = []
    for result in results:
        one, two, checks = result["one_process"], result["two_processes"], result["checks"]
        verdict = "within" if checks["two_process_test_mean_within_spread"] else "outside"
        lines += [f"Data-parallel accuracy ({result['dataset']}, recipe `{result['recipe']}`, seeds "
                  f"{', '.join(map(str, result['seeds']))}; [{result['name']}](benchmarks/results/"
                  f"{result['file']})): one process dev {fmt_summary(one['dev_accuracy'])}, test "
                  f"{fmt_summary(one['test_accuracy'])}; two torchrun processes dev "
                  f"{fmt_summary(two['dev_accuracy'])}, test {fmt_summary(two['test_accuracy'])}: {verdict} the "
                  "one-process runs' mean ± 2 std.", ""]
    return lines


def _scoring_lines(results: list[dict]) -> list[str]:
    lines = []
    for result in results:
        checks = result["checks"]
        speeds = {name: result[key] for name, key in (("`predict --jobs 1`", "predict_jobs1"),
                                                      ("`predict --jobs 2`", "predict_jobs2"), ("Ray Data", "ray"))}
        shown = ", ".join(f"{name} {cell['texts_per_s_mean']:,.0f} ± {cell['texts_per_s_std']:,.0f} texts/s"
                          for name, cell in speeds.items())
        lines += [f"Batch scoring of {result['texts']:,} {result['dataset']} {result['split']} texts by an exported "
                  f"`{result['recipe']}` model ({result['repeats']} repeats; [{result['name']}](benchmarks/"
                  f"results/{result['file']})): {shown} (Ray: {result['ray']['actors']} actors of "
                  f"{result['ray']['threads']} thread, after {result['ray']['ray_init_s']:.1f} s of `ray.init`). "
                  f"`--jobs 2` wrote the same bytes as `--jobs 1`: {checks['jobs2_same_bytes_as_jobs1']}; Ray gave "
                  f"the same labels in order: {checks['same_labels_in_order']}. The machine was not quiet (load "
                  f"average {result['load_average_at_end'][0]:.1f} on 2 cores at the end), and `predict` also "
                  f"computes each text's top words: the speeds are not a fair comparison.", ""]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
