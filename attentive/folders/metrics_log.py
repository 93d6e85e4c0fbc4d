"""The metrics log, `metrics.jsonl` in the model folder: one JSON line per epoch, appended, never emptied.

Each training run first appends a start line ({"event": "start", ...}); a resumed run's start line names the epoch
it resumes after. `read_metrics_log` returns the epochs of the latest run: a fresh start begins a new list, a resume
continues the list it resumes (dropping any epoch the killed run logged after its last checkpoint).

Training writes it and the analysis report (explain/report.py) reads it, so it sits below both (DESIGN.md).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

LOG = "metrics.jsonl"


def start_run(path: Path, resumed_after_epoch: int | None = None) -> None:
    entry = {"event": "start", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if resumed_after_epoch is not None:
        entry["resumed_after_epoch"] = resumed_after_epoch
    append_record(path, entry)


def append_record(path: Path, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
        handle.flush()


def read_metrics_log(run: Path) -> list[dict]:
    """The epoch records of the latest training run in a model folder (or of a log file given directly)."""
    path = run / LOG if run.is_dir() else run
    if not path.exists():
        return []
    epochs: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by a kill
            continue
        if not isinstance(entry, dict):
            continue
        if entry.get("event") == "start":
            kept = entry.get("resumed_after_epoch") or 0
            epochs = [record for record in epochs if record["epoch"] <= kept]
        elif "epoch" in entry:
            epochs = [record for record in epochs if record["epoch"] < entry["epoch"]] + [entry]
    return epochs
