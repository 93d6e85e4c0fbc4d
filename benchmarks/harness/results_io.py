"""Reading the results for BENCHMARKS.md: the result files, their grouping over seeds, the variant dev selects, and the
papers' numbers (``benchmarks/papers/papers.json``). Nothing here formats text."""
from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from benchmarks.harness.common import DEFAULTS_DATASETS, RESULTS_DIR, SAME_SETTINGS, write_text

PAPERS = Path(__file__).resolve().parents[1] / "papers" / "papers.json"
# kind -> results/<family>.jsonl; `python -m benchmarks.harness.results_io --pack` moves loose <name>.json files there.
FAMILIES = {"model": "runs", "baseline": "runs", "long_texts": "long_texts",
            "shipped": "deploy", "opinion_speed": "deploy", "size": "deploy", "student_speed": "deploy",
            "abstain": "accuracy", "few_labels": "accuracy", "active_loop": "accuracy",
            "small_calibration": "accuracy",
            "scaling": "scale", "ddp_accuracy": "scale", "throughput": "scale",
            "parameters": "papers", "characteristics": "papers"}
OWN_SECTION_KINDS = tuple(kind for kind in FAMILIES if kind not in ("model", "baseline"))  # sections of their own

def family_file(result: dict) -> str:
    """The packed file a result belongs in (other.jsonl for a kind no section reads)."""
    return f"{FAMILIES.get(result.get('kind', 'model'), 'other')}.jsonl"


def read_stored(results_dir: str | Path) -> tuple[dict[str, dict], list[str]]:
    """Every result by name (packed *.jsonl lines, then loose *.json, which win), each with its `file`; and problems."""
    found, problems = {}, []
    for path in sorted(Path(results_dir).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                result = json.loads(line)
            except ValueError as error:
                problems.append(f"`{path.name}` line {number}: unreadable ({error})")
                continue
            found[result["name"]] = {**result, "file": path.name}
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problems.append(f"`{path.name}`: unreadable ({error})")
            continue
        result.setdefault("name", path.stem)
        found[result["name"]] = {**result, "file": path.name}
    return found, problems


def pack(results_dir: str | Path) -> list[Path]:
    """Move each loose result file into its family's JSONL, lines in name order; return the files written."""
    results_dir = Path(results_dir)
    found, problems = read_stored(results_dir)
    if problems:
        raise ValueError("; ".join(problems))
    loose = sorted(results_dir.glob("*.json"))
    families: dict[str, list[dict]] = defaultdict(list)
    for name in sorted(found, key=lambda name: name + ".json"):
        result = {key: value for key, value in found[name].items() if key != "file"}
        families[family_file(result)].append(result)
    written = []
    for family, results in families.items():
        text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
                       for r in results)
        write_text(results_dir / family, text)
        written.append(results_dir / family)
    for path in loose:
        path.unlink()
    return written


def load_results(results_dir: str | Path) -> tuple[list[dict], list[str]]:
    """All results in `results_dir` in name order, and notes on those that could not be used."""
    found, problems = read_stored(results_dir)
    results = []
    for name in sorted(found, key=lambda name: name + ".json"):
        result = found[name]
        if result.get("kind") in OWN_SECTION_KINDS:
            results.append(result)
            continue
        missing = [key for key in ("dataset", "test") if key not in result]
        if not (result.get("model") or result.get("recipe")):
            missing.append("model/recipe")
        if missing:
            problems.append(f"`{name}`: missing {', '.join(missing)}")
            continue
        same = SAME_SETTINGS.get((model_name(result), result["dataset"], result.get("variant")))
        if same:  # counted with the runs of the variant whose settings it used
            result["variant_as_run"], result["variant"] = result["variant"], same
        results.append(result)
    return results, problems


def model_name(result: dict) -> str:
    """The recipe of a neural run, else the baseline's model name."""
    return result.get("recipe") or result.get("model")


def group_key(result: dict) -> tuple[str, str, str, str]:
    """Runs that differ only in seed share a key: (kind, model or recipe, dataset, variant)."""
    return (result.get("kind", ""), model_name(result), result["dataset"], result.get("variant") or "")


def group_results(results: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for result in results:
        groups[group_key(result)].append(result)
    return dict(groups)


def runs_named(results: list[dict], dataset: str, name: str, variant: str | None = None) -> list[dict]:
    """The results of model (or baseline) `name` on `dataset`, of `variant` where one is named."""
    return [r for r in results if r.get("dataset") == dataset and model_name(r) == name
            and (variant is None or r.get("variant") == variant)]


def in_defaults_order(result: dict) -> tuple:
    """Sort key: the defaults table's dataset order, any other dataset after them by name."""
    dataset = result["dataset"]
    return (DEFAULTS_DATASETS.index(dataset) if dataset in DEFAULTS_DATASETS else len(DEFAULTS_DATASETS), dataset)


def of_kind_by_dataset(results: list[dict], kind: str) -> list[dict]:
    """The results of one `kind`, datasets in the defaults table's order."""
    return sorted((r for r in results if r.get("kind") == kind), key=in_defaults_order)


def machine_short(result: dict) -> str:
    """E.g. ``AMD EPYC 7B13 ×2`` or ``NVIDIA H100 80GB HBM3``."""
    machine = result.get("machine") or {}
    if str(result.get("device") or "cuda").startswith("cuda") and machine.get("cuda_device"):
        return machine["cuda_device"]
    cpu = (machine.get("cpu_model") or "unknown CPU").replace("(R)", "").replace("(TM)", "")
    cpu = " ".join(cpu.replace(" Processor", "").split()[:4])
    cores = machine.get("cpu_cores")
    return f"{cpu} ×{cores}" if cores else cpu


def values(results: list[dict], get: Callable[[dict], float | None]) -> list[float]:
    """`get` of each result, skipping results that lack it."""
    found = []
    for result in results:
        try:
            value = get(result)
        except (KeyError, TypeError):
            continue
        if value is not None:
            found.append(float(value))
    return found


def _epoch_times(result: dict) -> list[float]:
    return [float(t) for t in result.get("epoch_times_s") or []]


METRICS: dict[str, Callable[[list[dict]], list[float]]] = {
    "test_accuracy": lambda rs: values(rs, lambda r: r["test"]["accuracy"]),
    "test_macro_f1": lambda rs: values(rs, lambda r: r["test"]["macro_f1"]),
    "dev_accuracy": lambda rs: values(rs, lambda r: r["dev"]["accuracy"]),
    "wall_time_s": lambda rs: values(rs, lambda r: r["wall_time_s"]),
    "epoch_time_s": lambda rs: [t for r in rs for t in _epoch_times(r)],
    "params": lambda rs: values(rs, lambda r: r["params"]),
}


def mean(found: list[float]) -> float | None:
    return statistics.fmean(found) if found else None


def selected_runs(results: list[dict], dataset: str, name: str) -> tuple[str, list[dict]]:
    """The variant of `name` on `dataset` dev chose (highest mean dev among those with the most seeds), its runs."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        if r["dataset"] == dataset and model_name(r) == name:
            groups[r.get("variant") or ""].append(r)
    if not groups:
        return "", []
    most_seeds = max(len(runs) for runs in groups.values())
    candidates = {v: runs for v, runs in groups.items() if len(runs) == most_seeds}
    variant = max(candidates, key=lambda v: mean(METRICS["dev_accuracy"](candidates[v])) or 0.0)
    return variant, candidates[variant]


@lru_cache(maxsize=None)
def load_papers(path: str | Path = PAPERS) -> dict:
    """``benchmarks/papers/papers.json``, keys starting with ``_`` left out."""
    papers = json.loads(Path(path).read_text(encoding="utf-8"))
    return {key: paper for key, paper in papers.items() if not key.startswith("_")}


def paper_accuracy(name: str, dataset: str) -> float | None:
    """The test accuracy a paper reports for our recipe `name` on `dataset`, if one does."""
    for paper in load_papers().values():
        value = paper.get("test_accuracy", {}).get(dataset, {}).get(name)
        if value is not None:
            return value
    return None


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--pack"]:
        sys.exit("usage: python -m benchmarks.harness.results_io --pack")
    print("\n".join(str(path) for path in pack(RESULTS_DIR)))
