"""Multi-label: SemEval-2014 restaurant sentences, each with its set of aspect categories; the default recipe beside a
one-vs-rest TF-IDF + LR, dev a seeded tenth of train, everything (epoch, C, per-label thresholds) chosen on dev.

    python -m benchmarks.product.accuracy.multilabel [--seeds 0 1 2]"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

import attentive
from benchmarks.harness.baselines import TFIDF_C_GRID, tfidf_vectorizer
from benchmarks.harness.common import write_result
from benchmarks.harness.formatting import md_head

NAME = "multilabel-semeval14_restaurants"
FILES = {"train": "Restaurants_Train_v2.xml", "test": "Restaurants_Test_Gold.xml"}


def read_sentences(path: Path) -> list[tuple[str, list[str]]]:
    """(text, sorted categories) of every sentence of a SemEval-2014 restaurants XML file."""
    rows = []
    for sentence in ET.parse(path).getroot().iter("sentence"):
        text = (sentence.findtext("text") or "").strip()
        categories = sorted({node.get("category") for node in sentence.findall("aspectCategories/aspectCategory")})
        rows.append((text, categories))
    return rows


def splits(data_dir: Path) -> dict[str, list[tuple[str, list[str]]]]:
    from sklearn.model_selection import train_test_split

    folder = data_dir / "semeval14_absa"
    train = read_sentences(folder / FILES["train"])
    train, dev = train_test_split(train, test_size=0.1, random_state=13)
    return {"train": list(train), "dev": list(dev), "test": read_sentences(folder / FILES["test"])}


def multi_hot(rows, labels: list[str]) -> np.ndarray:
    return np.array([[label in categories for label in labels] for _, categories in rows], dtype=bool)


def scores(gold: np.ndarray, predicted: np.ndarray, labels: list[str]) -> dict:
    """Micro-F1, macro-F1 and per-label F1 (scikit-learn)."""
    from sklearn.metrics import f1_score

    per_label = f1_score(gold, predicted, average=None, zero_division=0)
    return {"micro_f1": float(f1_score(gold, predicted, average="micro", zero_division=0)),
            "macro_f1": float(np.mean(per_label)), "per_label_f1": dict(zip(labels, map(float, per_label))),
            "n": int(len(gold))}


def best_thresholds(probabilities: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per label, the threshold of best F1 on these rows among the midpoints between its sorted probabilities."""
    from sklearn.metrics import f1_score

    chosen = []
    for column in range(gold.shape[1]):
        values = np.unique(probabilities[:, column])
        candidates = np.append((values[1:] + values[:-1]) / 2, values[0] / 2) if len(values) > 1 else values / 2
        f1 = [f1_score(gold[:, column], probabilities[:, column] >= t, zero_division=0) for t in candidates]
        chosen.append(candidates[int(np.argmax(f1))] if gold[:, column].any() else 0.5)
    return np.array(chosen)


def tfidf_lr(data: dict, labels: list[str]) -> dict:
    """One L2 logistic regression per label over TF-IDF uni- and bigrams; C and the thresholds chosen on dev."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    started = time.perf_counter()
    texts = {split: [text for text, _ in rows] for split, rows in data.items()}
    gold = {split: multi_hot(rows, labels) for split, rows in data.items()}
    vectorizer = tfidf_vectorizer().fit(texts["train"])
    features = {split: vectorizer.transform(values) for split, values in texts.items()}
    grid, best = [], None
    for c in TFIDF_C_GRID:
        model = OneVsRestClassifier(LogisticRegression(C=c, solver="liblinear", max_iter=1000, random_state=0))
        model.fit(features["train"], gold["train"].astype(int))
        dev_probs = model.predict_proba(features["dev"])
        thresholds = best_thresholds(dev_probs, gold["dev"])
        dev = scores(gold["dev"], dev_probs >= thresholds, labels)
        grid.append({"C": c, "dev_micro_f1": dev["micro_f1"]})
        if best is None or dev["micro_f1"] > best[0]["micro_f1"]:
            best = (dev, c, model, thresholds)
    dev, c, model, thresholds = best
    test = scores(gold["test"], model.predict_proba(features["test"]) >= thresholds, labels)
    return {"dev": dev, "test": test, "C": c, "thresholds": dict(zip(labels, map(float, thresholds))),
            "grid": grid, "wall_time_s": round(time.perf_counter() - started, 1)}


def default_recipe(data: dict, labels: list[str], seed: int, folder: Path) -> dict:
    """The default recipe trained on JSONL files with label lists; test answered by `predict` at its thresholds."""
    for split, rows in data.items():
        with open(folder / f"{split}.jsonl", "w", encoding="utf-8") as handle:
            for text, categories in rows:
                handle.write(json.dumps({"text": text, "label": categories}) + "\n")
    started = time.perf_counter()
    model = attentive.train(train=folder / "train.jsonl", dev=folder / "dev.jsonl", out=folder / f"run-s{seed}",
                            overrides=[f"train.seed={seed}"], show_progress=False)
    texts = [text for text, _ in data["test"]]
    predicted = np.array([[label in (p.labels or []) for label in labels] for p in model.predict(texts, top_k=0)])
    training = model.config["training"]
    return {"seed": seed, "test": scores(multi_hot(data["test"], labels), predicted, labels),
            "dev_micro_f1": training["dev_micro_f1"], "dev_macro_f1": training["dev_macro_f1"],
            "best_epoch": training["best_epoch"], "epochs_run": training["epochs_run"],
            "epoch_times_s": training["epoch_seconds"], "thresholds": model.thresholds,
            "wall_time_s": round(time.perf_counter() - started, 1)}


def mean_std(values: list[float]) -> dict:
    return {"mean": statistics.mean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    started = time.perf_counter()
    data = splits(Path(os.environ.get("ATTENTIVE_DATA", Path(__file__).resolve().parents[4] / "shared" / "data")))
    labels = sorted({label for rows in data.values() for _, categories in rows for label in categories})
    baseline = tfidf_lr(data, labels)
    print(f"tfidf_lr: test micro-F1 {baseline['test']['micro_f1']:.4f}, macro-F1 {baseline['test']['macro_f1']:.4f}")
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:
            runs.append(default_recipe(data, labels, seed, Path(folder)))
            print(f"default s{seed}: test micro-F1 {runs[-1]['test']['micro_f1']:.4f}, "
                  f"macro-F1 {runs[-1]['test']['macro_f1']:.4f} ({runs[-1]['wall_time_s']:.0f} s)")
    summary = {key: mean_std([run["test"][key] for run in runs]) for key in ("micro_f1", "macro_f1")}
    write_result(NAME, {
        "kind": "multilabel", "dataset": "semeval14_restaurants_categories", "labels": labels,
        "sizes": {split: len(rows) for split, rows in data.items()},
        "selected_on": "dev (a seeded tenth of train, random_state 13): epoch, C and per-label thresholds",
        "seeds": args.seeds, "default": {"recipe": "default", "runs": runs, "test": summary}, "tfidf_lr": baseline,
        "wall_time_s": round(time.perf_counter() - started, 1)})


def _pct(value: float) -> str:
    return f"{100 * value:.2f}"


def multilabel_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a multi-label result)."""
    lines = []
    for result in sorted((r for r in results if r.get("kind") == "multilabel"), key=lambda r: r["name"]):
        default, baseline, labels = result["default"], result["tfidf_lr"], result["labels"]
        sizes = ", ".join(f"{split} {size:,}" for split, size in result["sizes"].items())
        seeds = len(default["runs"])
        lines += ["## Multi-label: SemEval-2014 restaurant aspect categories", "",
                  f"Each sentence labelled with its set of aspect categories ({', '.join(labels)}); {sizes} sentences; "
                  f"{result['selected_on']}. Test micro-F1 (every sentence-label decision) and macro-F1 (mean of "
                  f"the per-label F1); the default recipe's mean ± std over {seeds} seeds "
                  f"(`{result['command']}`, commit {result['git_commit']}).", "",
                  *md_head(["model", "test micro-F1", "test macro-F1", *labels], "l" * (3 + len(labels)))]
        per_label = {label: sum(run["test"]["per_label_f1"][label] for run in default["runs"]) / seeds
                     for label in labels}
        test = default["test"]
        lines.append(f"| default ({seeds} seeds) | {_pct(test['micro_f1']['mean'])} ± {_pct(test['micro_f1']['std'])} "
                     f"| {_pct(test['macro_f1']['mean'])} ± {_pct(test['macro_f1']['std'])} | "
                     + " | ".join(_pct(per_label[label]) for label in labels) + " |")
        lines.append(f"| TF-IDF + LR, one-vs-rest (C={baseline['C']:g}) | {_pct(baseline['test']['micro_f1'])} | "
                     f"{_pct(baseline['test']['macro_f1'])} | "
                     + " | ".join(_pct(baseline["test"]["per_label_f1"][label]) for label in labels) + " |")
        epochs = [run["best_epoch"] for run in default["runs"]]
        seconds = [run["wall_time_s"] for run in default["runs"]]
        lines += ["", f"Best dev epochs {', '.join(map(str, epochs))}; {min(seconds):.0f}-{max(seconds):.0f} s per "
                      "default run (vectors, training, thresholds and the test answers).", ""]
    return lines


if __name__ == "__main__":
    main()
