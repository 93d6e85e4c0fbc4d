"""Class weights on skewed labels: on the most skewed visible dataset, the default recipe unweighted, with
`train.class_weight=balanced` and with `train.sampler=balanced`; accuracy, macro-F1 and per-class F1 over seeds.

    python -m benchmarks.product.accuracy.class_weights [--seeds 0 1 2]

The unweighted models are reused from runs/deployable where their recipe matches this commit's default (`reused`)."""
from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path

import attentive
from attentive.api import recipe_for, resolve_dataset
from benchmarks.harness.common import write_result
from benchmarks.harness.formatting import fmt_summary, md_head, md_row

VISIBLE = ("sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013", "r8")
SYSTEMS = {"unweighted": [], "class_weight": ["train.class_weight=balanced"],
           "sampler": ["train.sampler=balanced"]}  # name -> the overrides of the default recipe


def skew(name: str) -> dict:
    """The training split's class counts and majority / minority ratio."""
    counts = Counter(ex.label for ex in resolve_dataset(name).splits["train"])
    ordered = dict(counts.most_common())
    return {"train": sum(counts.values()), "counts": ordered,
            "ratio": round(max(counts.values()) / min(counts.values()), 2)}


def trained(folder: Path, make) -> tuple[attentive.Model, float | None]:
    """The model in `folder` and its training seconds (None where never written): trained by `make(folder, resume)`
    unless finished there, resumed from a killed run's checkpoint."""
    seconds = folder / "train_seconds.txt"
    if not seconds.is_file() and ((folder / "checkpoint").is_dir() or not (folder / "config.json").is_file()):
        start = time.perf_counter()
        make(folder, (folder / "checkpoint").is_dir())
        written = seconds.with_suffix(".tmp")
        written.write_text(f"{time.perf_counter() - start:.1f}\n")
        os.replace(written, seconds)  # the mark of a finished run appears whole or not at all
    return attentive.load(folder, device="cpu"), float(seconds.read_text()) if seconds.is_file() else None


def comparable(recipe: dict) -> dict:
    """A recipe as two runs of the same settings store it (`embedder.dim` left out, `train.sampler` defaulted)."""
    recipe = copy.deepcopy(recipe)
    recipe.get("embedder", {}).pop("dim", None)
    recipe.setdefault("train", {}).setdefault("sampler", "shuffle")
    return recipe


def reusable(folder: Path, data, seed: int) -> bool:
    """Whether `folder` holds a model of this commit's default recipe for `data` and `seed`."""
    config = folder / "config.json"
    if not config.is_file():
        return False
    saved = json.loads(config.read_text(encoding="utf-8"))
    wanted = recipe_for(data, "default", [f"train.seed={seed}"])
    return saved.get("dataset") == data.name and comparable(saved["recipe"]) == comparable(wanted.as_dict())


def summary(values: list[float]) -> dict:
    return {"mean": round(statistics.fmean(values), 4),
            "std": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0,
            "values": [round(v, 4) for v in values]}


def scores(runs: list[dict], split: str, labels: list[str]) -> dict:
    """Accuracy, macro-F1 and each class's F1 on `split` over the seeds' runs."""
    metrics = [run[split] for run in runs]
    return {"accuracy": summary([m["accuracy"] for m in metrics]),
            "macro_f1": summary([m["macro_f1"] for m in metrics]),
            "per_class_f1": {label: summary([m["per_class"][label]["f1"] for m in metrics]) for label in labels}}


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 1) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args(argv)
    skews = {name: skew(name) for name in VISIBLE}
    name = max(skews, key=lambda n: skews[n]["ratio"])
    runs_dir, reuse = Path("runs/class-weights"), Path("runs/deployable")
    data = resolve_dataset(name)
    labels = list(data.labels)
    systems = {}
    for system, overrides in SYSTEMS.items():
        runs, reused = [], []
        for seed in args.seeds:
            folder = runs_dir / data.name / f"{system}-s{seed}"
            if not overrides and reusable(reuse / data.name / f"default-s{seed}", data, seed):
                folder = reuse / data.name / f"default-s{seed}"
                reused.append(str(folder))
            model, seconds = trained(folder, lambda out, resume, seed=seed, overrides=overrides: attentive.train(
                data, "default", out, None if resume else [f"train.seed={seed}", *overrides], show_progress=False,
                resume=resume))
            runs.append({"seed": seed, "folder": str(folder), "train_s": seconds,
                         "best_epoch": model.config["training"]["best_epoch"],
                         "dev": model.evaluate(data, "dev"), "test": model.evaluate(data, "test")})
            print(f"{system} seed {seed}: dev macro-F1 {runs[-1]['dev']['macro_f1']:.4f}, test accuracy "
                  f"{runs[-1]['test']['accuracy']:.4f}, macro-F1 {runs[-1]['test']['macro_f1']:.4f}", flush=True)
        systems[system] = {"overrides": overrides, "reused": reused, "dev": scores(runs, "dev", labels),
                           "test": scores(runs, "test", labels),
                           "train_s": _mean([run["train_s"] for run in runs if run["train_s"] is not None]),
                           "runs": runs}
    payload = {"kind": "class_weights", "dataset": data.name, "recipe": "default", "seeds": args.seeds,
               "labels": labels, "skew": skews, "selected_on": "dev accuracy (each run's epoch); never test",
               "systems": systems}
    path = write_result(f"class-weights-{data.name}", payload)
    for system, values in systems.items():
        test = values["test"]
        print(f"{system:13s} test acc {test['accuracy']['mean']:.4f} ± {test['accuracy']['std']:.4f}"
              f"  macro-F1 {test['macro_f1']['mean']:.4f} ± {test['macro_f1']['std']:.4f}")
    print(path)
    return 0


LABELS = (("unweighted", "unweighted (default)"), ("class_weight", "`train.class_weight=balanced`"),
           ("sampler", "`train.sampler=balanced`"))
TITLE = "Class weights on skewed labels"


def _one(result: dict) -> list[str]:
    dataset, systems = result["dataset"], result["systems"]
    skew = result["skew"]
    counts = skew[dataset]["counts"]
    ranked = sorted(skew.items(), key=lambda item: -item[1]["ratio"])
    others = ", ".join(f"{name} {value['ratio']:g}" for name, value in ranked if name != dataset)
    seeds = ", ".join(map(str, result["seeds"]))
    lines = [f"**{dataset}** (training split {skew[dataset]['train']:,} texts, majority / minority class "
             f"{skew[dataset]['ratio']:g}: the most skewed visible dataset; the others: {others}). The default recipe, "
             f"seeds {seeds}, each run's epoch chosen on dev accuracy; mean ± std over seeds "
             f"([{result['name']}](benchmarks/results/{result['file']})).", "",
             *md_head(["training", "dev accuracy", "dev macro-F1", "test accuracy", "test macro-F1"], "lllll")]
    shown = [(key, label) for key, label in LABELS if key in systems]
    for key, label in shown:
        dev, test = systems[key]["dev"], systems[key]["test"]
        lines.append(md_row([label] + [fmt_summary(split[key]) for split in (dev, test)
                                       for key in ("accuracy", "macro_f1")]))
    lines += ["", "Test F1 of each class (training texts in brackets), largest class first:", "",
              *md_head(["class", *(label for _, label in shown)], "l" * (1 + len(shown)))]
    for label in counts:
        cells = [fmt_summary(systems[key]["test"]["per_class_f1"][label]) for key, _ in shown]
        lines.append(f"| {label} ({counts[label]:,}) | " + " | ".join(cells) + " |")
    return lines + [""]


def class_weights_section(results: list[dict]) -> list[str]:
    """The section's lines; [] without a class_weights result."""
    if not results:
        return []
    lines = [f"## {TITLE}", "",
             "The data term weighted by n / (k · n_c) (`train.class_weight=balanced`, scikit-learn's `balanced`) or "
             "each epoch's rows drawn n / k per class with replacement (`train.sampler=balanced`), against the "
             "unweighted default; benchmarks/DECISIONS.md says what the numbers mean.", ""]
    for result in sorted(results, key=lambda r: r["dataset"]):
        lines += _one(result)
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
