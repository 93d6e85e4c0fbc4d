"""Scoring IMDB's 25,000 test reviews with one exported model three ways: `attentive predict --jobs 1`, `--jobs 2`, and
Ray Data on 2 actors of 1 thread; checks the three give the same labels in the same order, and times each.

    python -m benchmarks.product.scale.ray_predict [--repeats 3]

The model (random vectors, one capped epoch) is only a workload: its accuracy is not measured."""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness.common import REPO_ROOT, write_result

WORK = REPO_ROOT / "runs" / "ray-predict"
OVERRIDES = ["embedder.vectors=random", "embedder.dim=64", "train.epochs=1", "train.batches_per_epoch=300",
             "train.seed=0"]
BATCH_SIZE = 256  # attentive predict's default


def data_dir() -> Path:
    return Path(os.environ.get("ATTENTIVE_DATA", REPO_ROOT.parent / "shared" / "data"))


def exported_model() -> Path:
    """The exported student (trained and exported on the first run, reused after)."""
    import attentive
    from attentive.onnx_format.write import export

    run, onnx = WORK / "student", WORK / "onnx"
    if not (onnx / "config.json").exists():
        model = (attentive.load(run) if (run / "config.json").exists() else
                 attentive.train("imdb", "default", run, overrides=OVERRIDES, show_progress=False))
        export(model, onnx)
    return onnx


def write_input() -> tuple[Path, int]:
    """IMDB's test reviews as predict's JSONL input: {"id", "text"} (their labels left out)."""
    path = WORK / "imdb-test-all.jsonl"
    with gzip.open(data_dir() / "imdb" / "imdb_test.jsonl.gz", "rt", encoding="utf-8") as source:
        rows = [json.loads(line) for line in source if line.strip()]
    path.write_text("".join(json.dumps({"id": row["id"], "text": row["text"]}, ensure_ascii=False) + "\n"
                            for row in rows), encoding="utf-8")
    return path, len(rows)


def predict_jobs(onnx: Path, source: Path, jobs: int, out: Path) -> float:
    """Seconds of `attentive predict --jobs N` (a process of its own, each worker one thread)."""
    command = [sys.executable, "-m", "attentive", "predict", str(onnx), "--input", str(source), "--jobs", str(jobs),
               "--threads", "1", "--batch-size", str(BATCH_SIZE), "--output", str(out), "--overwrite"]
    start = time.perf_counter()
    subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return time.perf_counter() - start


def answers(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n")[:-1]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    onnx = exported_model()
    source, count = write_input()

    seconds: dict[str, list[float]] = {"jobs1": [], "jobs2": [], "ray": []}
    for _ in range(args.repeats):
        for jobs in (1, 2):
            seconds[f"jobs{jobs}"].append(predict_jobs(onnx, source, jobs, WORK / f"jobs{jobs}.jsonl"))

    import ray

    from attentive.scoring import ray_batch as batch

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - start
    try:
        for _ in range(args.repeats):
            start = time.perf_counter()
            batch.predict(source, onnx, output=WORK / "ray.jsonl", overwrite=True, batch_size=BATCH_SIZE,
                          concurrency=2, threads=1)
            seconds["ray"].append(time.perf_counter() - start)
    finally:
        ray.shutdown()

    one, two, by_ray = (answers(WORK / name) for name in ("jobs1.jsonl", "jobs2.jsonl", "ray.jsonl"))
    labels = list(one[0]["probabilities"])
    same_bytes = (WORK / "jobs1.jsonl").read_bytes() == (WORK / "jobs2.jsonl").read_bytes()
    same_labels = ([a["label"] for a in one] == [a["label"] for a in two] == [a["label"] for a in by_ray]
                   and [a["id"] for a in one] == [a["id"] for a in by_ray])
    differences = [abs(a["probabilities"][k] - b["probabilities"][k]) for a, b in zip(one, by_ray) for k in labels]
    identical = sum(a["probabilities"] == b["probabilities"] for a, b in zip(one, by_ray))
    if not (same_bytes and same_labels and len(one) == len(by_ray) == count):
        raise SystemExit(f"outputs differ: jobs 2 same bytes {same_bytes}, same labels in order {same_labels}")

    def speed(times: list[float]) -> dict:
        rates = [count / t for t in times]
        return {"seconds": times, "texts_per_s": rates, "texts_per_s_mean": statistics.mean(rates),
                "texts_per_s_std": statistics.stdev(rates) if len(rates) > 1 else 0.0}

    path = write_result("ray-predict-imdb", {
        "kind": "throughput", "recipe": "student", "dataset": "imdb", "split": "test", "texts": count,
        "limited_to": None, "seed": 0, "seeds": [0], "repeats": args.repeats, "overrides": OVERRIDES,
        "batch_size": BATCH_SIZE, "wall_time_s": sum(map(sum, seconds.values())) + ray_start,
        "load_average_at_end": os.getloadavg(),
        "predict_jobs1": speed(seconds["jobs1"]), "predict_jobs2": speed(seconds["jobs2"]),
        "ray": {**speed(seconds["ray"]), "ray_init_s": ray_start, "num_cpus": 2, "actors": 2, "threads": 1},
        "checks": {"jobs2_same_bytes_as_jobs1": same_bytes, "same_labels_in_order": same_labels,
                   "ray_rows_with_identical_probabilities": identical,
                   "ray_max_abs_probability_difference": max(differences, default=0.0)},
    })
    print(json.dumps({k: v for k, v in json.loads(path.read_text()).items()
                      if k in ("predict_jobs1", "predict_jobs2", "ray", "checks")}, indent=1))


if __name__ == "__main__":
    main()
