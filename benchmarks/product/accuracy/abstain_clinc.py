"""Abstaining on CLINC150 (Larson et al. 2019, full): the default recipe and TF-IDF + LR refuse a query whose max
probability is below a threshold chosen on dev for a target out-of-scope recall (`attentive abstain`'s rule); test
in-scope accuracy and out-of-scope recall, together.

    python -m benchmarks.product.accuracy.abstain_clinc --seed 0 [--threads 1]"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import attentive
from attentive import load_dataset
from attentive.answer.abstain import abstain_metrics, choose_threshold
from benchmarks.harness.baselines import TFIDF_C_GRID, logistic_regression, tfidf_vectorizer
from benchmarks.harness.common import REPO_ROOT, write_result
from benchmarks.harness.formatting import fmt_mean_std, md_head, md_row

RECALLS = (0.5, 0.7, 0.8, 0.9, 0.95)


def texts_of(examples) -> list[str]:
    return [ex.text for ex in examples]


def rows(probabilities: dict[str, np.ndarray], gold: dict[str, np.ndarray], recalls) -> list[dict]:
    """Per target recall (and 0: never abstain): the threshold chosen on dev, what it gives on dev and on test."""
    found = []
    for recall in (0.0, *recalls):
        below = choose_threshold(probabilities["dev"].max(1), probabilities["oos_dev"].max(1), recall)
        found.append({"target_recall": recall, "below": below,
                      **{split: abstain_metrics(probabilities[split], gold[split], probabilities[f"oos_{split}"],
                                                below) for split in ("dev", "test")}})
    return found


def default_recipe(data, oos, labels: list[str], seed: int, folder: Path, recalls) -> dict:
    started = time.perf_counter()
    trained = not (folder / "config.json").exists()
    if trained:
        attentive.train(data, out=folder, overrides=[f"train.seed={seed}"], show_progress=False)
    model = attentive.load(folder)
    probabilities = {split: model.predict_proba(texts_of(data.splits[split])) for split in ("dev", "test")}
    probabilities.update({f"oos_{split}": model.predict_proba(texts_of(oos.splits[split]))
                          for split in ("dev", "test")})
    gold = {split: np.array([labels.index(ex.label) for ex in data.splits[split]]) for split in ("dev", "test")}
    found = rows(probabilities, gold, recalls)
    chosen = found[-1]["below"]
    answers = model.predict(texts_of(data.splits["test"]) + texts_of(oos.splits["test"]), top_k=0,
                            abstain_below=chosen)
    refused = np.array([answer.abstained for answer in answers])
    expected = np.concatenate([probabilities["test"].max(1), probabilities["oos_test"].max(1)]) < chosen
    assert (refused == expected).all(), "predict's abstaining differs from the metrics' rule"
    training = model.config["training"]
    return {"recipe": "default", "seed": seed, "folder": str(folder), "trained_in_this_run": trained,
            "best_epoch": training["best_epoch"], "epochs_run": training["epochs_run"],
            "epoch_times_s": training["epoch_seconds"], "dev_accuracy": training["dev_accuracy"],
            "temperature": model.temperature, "rows": found,
            "wall_time_s": round(time.perf_counter() - started, 1)}


def tfidf_lr(data, oos, labels: list[str], seed: int, recalls) -> dict:
    started = time.perf_counter()
    vectorizer = tfidf_vectorizer().fit(texts_of(data.splits["train"]))
    features = {split: vectorizer.transform(texts_of(data.splits[split])) for split in ("train", "dev", "test")}
    features.update({f"oos_{split}": vectorizer.transform(texts_of(oos.splits[split])) for split in ("dev", "test")})
    gold = {split: np.array([labels.index(ex.label) for ex in data.splits[split]])
            for split in ("train", "dev", "test")}
    grid, best = [], None
    for c in TFIDF_C_GRID:
        model = logistic_regression(c, len(labels), seed).fit(features["train"], gold["train"])
        accuracy = float((model.predict(features["dev"]) == gold["dev"]).mean())
        grid.append({"C": c, "dev_accuracy": accuracy})
        if best is None or accuracy > best[0]:
            best = (accuracy, c, model)
    _, c, model = best
    probabilities = {split: model.predict_proba(features[split]) for split in ("dev", "test", "oos_dev", "oos_test")}
    return {"model": "tfidf_lr", "C": c, "grid": grid, "rows": rows(probabilities, gold, recalls),
            "probabilities": "predict_proba of one-vs-rest liblinear (each class's sigmoid, normalised to sum to 1)",
            "wall_time_s": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    data, oos = load_dataset("clinc150"), load_dataset("clinc150_oos")
    labels = data.labels
    folder = REPO_ROOT / "runs" / f"abstain-clinc150-s{args.seed}"
    baseline = tfidf_lr(data, oos, labels, args.seed, RECALLS)
    default = default_recipe(data, oos, labels, args.seed, folder, RECALLS)
    for name, result in (("default", default), ("tfidf_lr", baseline)):
        for row in result["rows"]:
            test = row["test"]
            print(f"{name} target {row['target_recall']:.2f}: below {row['below']:.4f}, test in-scope accuracy "
                  f"{test['in_scope_accuracy']:.4f}, out-of-scope recall {test['out_of_scope_recall']:.4f}")
    write_result(f"abstain-clinc150-s{args.seed}", {
        "kind": "abstain", "dataset": "clinc150", "seed": args.seed,
        "sizes": {**{split: len(data.splits[split]) for split in ("train", "dev", "test")},
                  **{f"oos_{split}": len(oos.splits[split]) for split in ("dev", "test")}},
        "selected_on": "dev: the epoch and C on in-scope dev accuracy; each threshold on dev in-scope + out-of-scope "
                       "(the lowest reaching the target out-of-scope recall)",
        "default": default, "tfidf_lr": baseline, "wall_time_s": round(time.perf_counter() - started, 1)})


def _thresholds(values: list[float]) -> str:
    low, high = f"{min(values):.3f}", f"{max(values):.3f}"
    return low if low == high else f"{low}-{high}"


def abstain_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without an abstain result)."""
    runs = sorted((r for r in results if r.get("kind") == "abstain"), key=lambda r: r["seed"])
    if not runs:
        return []
    seeds = [run["seed"] for run in runs]
    told = "one seed" if len(runs) == 1 else f"mean ± std over {len(runs)} seeds"
    first = runs[0]
    sizes = first["sizes"]
    lines = ["## Abstaining on CLINC150", "",
             f"CLINC150 (Larson et al. 2019, the full variant): 150 intents, train {sizes['train']:,} / dev "
             f"{sizes['dev']:,} / test {sizes['test']:,} in-scope queries, and out-of-scope queries no intent covers "
             f"(dev {sizes['oos_dev']:,} / test {sizes['oos_test']:,}); both models train on in-scope queries alone. "
             "Each refuses (\"none of these\") a query whose max probability is below a threshold, chosen on dev as "
             "`attentive abstain --recall R` chooses it: the lowest that refuses a share R of the dev out-of-scope "
             "queries. On test, as the paper reports it: in-scope accuracy (a refused in-scope query counts as "
             "wrong) and out-of-scope recall (the share refused), together; R = 0 never refuses. "
             f"Test, {told} (seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}; "
             f"`{first['command']}`, commit {first['git_commit']}).", "",
             *md_head(["target recall (dev)", "default: threshold", "in-scope accuracy", "out-of-scope recall",
                       "TF-IDF + LR: threshold", "in-scope accuracy", "out-of-scope recall"], "l" * 7)]
    for index, row in enumerate(first["default"]["rows"]):
        cells = [f"{row['target_recall']:g}"]
        for model in ("default", "tfidf_lr"):
            chosen = [run[model]["rows"][index] for run in runs]
            cells += [_thresholds([c["below"] for c in chosen]),
                      fmt_mean_std([c["test"]["in_scope_accuracy"] for c in chosen]),
                      fmt_mean_std([c["test"]["out_of_scope_recall"] for c in chosen])]
        lines.append(md_row(cells))
    epochs = ", ".join(str(run["default"]["best_epoch"]) for run in runs)
    c = ", ".join(f"{run['tfidf_lr']['C']:g}" for run in runs)
    beforehand = [run for run in runs if not run["default"].get("trained_in_this_run", True)]
    trained = "".join(f" Seed {run['seed']}'s model was trained beforehand with the same settings "
                      f"(`attentive train --dataset clinc150 --set train.seed={run['seed']} --threads 1 --out "
                      f"runs/{Path(run['default']['folder']).name}`, "
                      f"{sum(run['default']['epoch_times_s']) / 60:.0f} min of epochs) and read by the script."
                      for run in beforehand)
    lines += ["", f"The default's best dev epochs: {epochs} (dev in-scope accuracy "
                  f"{fmt_mean_std([run['default']['dev_accuracy'] for run in runs])}); TF-IDF + LR's C (on dev): {c}. "
                  "The thresholds are on each model's own probabilities (the default's calibrated by its temperature, "
                  "TF-IDF + LR's one-vs-rest sigmoids normalised), so they differ between models; what compares is "
                  "the pair of test numbers at one target. The dev set holds 100 out-of-scope queries, so a "
                  "threshold's test recall can miss its dev target by several points." + trained, ""]
    return lines


if __name__ == "__main__":
    main()
