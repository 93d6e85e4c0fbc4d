"""The deployable table (issues 33 and 45): on one dataset, `opinion` (the biGRU model, the default until commit
a798496; the "default" system of the results), the compact default distilled from it (the "student" system), the same
recipe trained alone ("student_alone": the default as `attentive train` trains it), TF-IDF + LR, fastText and
model2vec side by side: test accuracy over seeds (and by the share of words training never showed), folder sizes,
batched texts/s, p50 of one text (of `predict`, with top words, and of `predict_proba`), training time.

    python -m benchmarks.product.deploy.deployable --dataset sst2 --seeds 0 1 2 [--runs runs/deployable] [--student
    default]

Per seed: the teacher, `opinion`, is trained (or read back from RUNS/DATASET/default-sSEED, the folder name of its days
as the default), the student distilled from it (`attentive.distill`, the student's seed and augmentation seed = SEED),
the student recipe trained alone on the hard labels (`attentive train`, seed SEED), and TF-IDF + LR, fastText and
model2vec tuned on dev (benchmarks/harness/baselines.py). Then, in this one process on a quiet machine, the seed-0
models are
timed on the first `--n` test texts: batched texts/s with 2 threads (calls of 128 texts; ONNX Runtime int8 for ours,
whose batches run on two lanes: attentive/runtime/lanes.py), p50 of one sentence with 1 thread. Writes
results/deployable-DATASET[-VARIANT].json, `"kind": "deployable"`, with per system the keys `accuracy` (test),
`int8_mb`, `docs_per_s`, `p50_ms` (and for ours `predict_docs_per_s`, `predict_p50_ms`), `train_s`, `by_unseen`
(benchmarks/harness/unseen_words.py), `by_length` (quartiles of the test texts' words and the split at their mean) and
`dev_accuracy` (what a student family is chosen by). Nothing else may run beside it. `--retime` measures the speeds of
an earlier run again from its saved models (on a quiet machine), keeping its accuracies and the command that scored them
(`scored_by`).
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import attentive
from attentive import runtime
from attentive.distill import Augmentation, Distillation, distill
from attentive.export import export
from benchmarks.harness import model2vec_peer
from benchmarks.harness.baselines import run_fasttext, run_model2vec, run_tfidf_lr, split_xy
from benchmarks.harness.common import RESULTS_DIR, commit_at_start, write_result
from benchmarks.harness.unseen_words import accuracy_by_unseen, unseen_shares
from benchmarks.product.deploy.deploy_speed import (
    SENTENCE,
    fasttext_text,
    interleaved_docs_per_second,
    latency_ms,
    train_peers,
)

# The systems of one run: our default model, its distilled student, the same student trained alone on the hard labels
# (no teacher: issue 45, item 5), and the peers, each tuned on dev.
SYSTEMS = ("default", "student", "student_alone", "tfidf_lr", "fasttext", "model2vec")
TEACHER = "opinion"  # the recipe of the "default" system: the default until commit a798496


def trained(folder: Path, make) -> tuple[attentive.Model, float]:
    """The model in `folder`, trained by `make(folder)` unless it is there; with its training seconds."""
    if not (folder / "config.json").exists():
        start = time.perf_counter()
        make(folder)
        (folder / "train_seconds.txt").write_text(f"{time.perf_counter() - start:.1f}\n")
    return attentive.load(folder, device="cpu"), float((folder / "train_seconds.txt").read_text())


def teacher_folder(teacher: Path | str | None, runs: Path, seed: int) -> Path:
    """The teacher of one seed's student, which the table times as its "default" row: `--teacher`-sSEED, else the
    run's own default model (one rule for the run and its `--retime`)."""
    return Path(f"{teacher}-s{seed}") if teacher else runs / f"default-s{seed}"


def summary(values: list[float]) -> dict:
    return {"mean": round(statistics.fmean(values), 4),
            "std": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0, "values": values}


def model_predicted(model, texts: list[str]) -> list[str]:
    """The label `model` (PyTorch, float32) answers each text with."""
    return np.array(model.labels)[model.predict_proba(texts).argmax(1)].tolist()


def bucket_summary(per_seed: list[list[dict]]) -> list[dict]:
    """Accuracy buckets (by unseen words, by length) over the seeds: per bucket what the first seed says of it (its
    name, its texts, its lengths) and the mean ± std of its accuracy."""
    buckets = {}
    for found in per_seed:
        for row in found:
            buckets.setdefault(row["bucket"], {**row, "values": []})["values"].append(row["accuracy"])
    return [{**{key: value for key, value in row.items() if key != "values"}, "accuracy": summary(row["values"])}
            for row in buckets.values()]


def folder_mb(folder: Path, names: tuple[str, ...]) -> float:
    return round(sum((folder / name).stat().st_size for name in names if (folder / name).exists()) / 1e6, 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path("runs/deployable"))
    parser.add_argument("--student", default="default", help="the student recipe")
    parser.add_argument("--set", dest="overrides", nargs="*", default=[], help="student recipe overrides")
    parser.add_argument("--variant", default=None, help="names a student other than the shipped one")
    parser.add_argument("--soft-weight", type=float, default=1.0, help="0 with --augment 0: the student trained "
                                                                       "alone on the hard labels")
    parser.add_argument("--augment", type=int, default=8, help="augmented copies of each training text")
    parser.add_argument("--loss", default="mse", help="mse or kl (the distillation loss)")
    parser.add_argument("--unlabelled", default=None, help="unlabelled in-domain texts the students also learn on "
                                                          "(a JSONL file or a dataset name, as `attentive distill`)")
    parser.add_argument("--ensemble", action="store_true", help="each student learns from the default models of all "
                                                                "the seeds (their averaged probabilities)")
    parser.add_argument("--teacher", type=Path, default=None, help="teachers other than the default models: "
                                                                  "TEACHER-sSEED, one per seed (e.g. runs/class-"
                                                                  "weights/r8/sampler); reported as the default row")
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--retime", action="store_true", help="measure the speeds of the earlier run again (its "
                                                               "saved models), keeping its accuracies")
    args = parser.parse_args(argv)
    commit_at_start()  # the code that runs is the code at start, whatever is committed meanwhile
    if args.retime:
        return retime(args)
    data = attentive.api.resolve_dataset(args.dataset)
    test_texts, test_gold = split_xy(data, "test")
    runs = args.runs / data.name
    accuracy = {name: [] for name in SYSTEMS}
    dev_accuracy = {name: [] for name in accuracy}
    train_s = {name: [] for name in accuracy}
    by_unseen = {name: [] for name in accuracy}  # per seed, the accuracy by the share of words training never showed
    by_length = {name: [] for name in accuracy}  # per seed, the accuracy by length (as `attentive evaluate` gives it)
    test_unseen = unseen_shares(split_xy(data, "train")[0], test_texts)  # the same for every system and seed
    copies_made = []  # augmented copies of each training text, per seed: fewer than --augment on large data
    folders = {}  # the first seed's models, timed
    if args.ensemble:  # every seed's default model first: each student learns from them all
        for seed in args.seeds:
            trained(runs / f"default-s{seed}", lambda out, seed=seed: attentive.train(
                data, TEACHER, out, [f"train.seed={seed}"], show_progress=False))
    for seed in args.seeds:
        teacher_dir = teacher_folder(args.teacher, runs, seed)
        teacher, seconds = trained(teacher_dir, lambda out: attentive.train(
            data, TEACHER, out, [f"train.seed={seed}"], show_progress=False))
        student_dir = runs / f"{args.variant or args.student}-s{seed}"
        student, student_seconds = trained(student_dir, lambda out: distill(
            [runs / f"default-s{s}" for s in args.seeds] if args.ensemble else [teacher_dir], data, out, args.student,
            Distillation(soft_weight=args.soft_weight, loss=args.loss, augmentation=Augmentation(copies=args.augment),
                         seed=seed),
            unlabelled=args.unlabelled, overrides=[f"train.seed={seed}", *args.overrides], show_progress=False))
        copies_made.append(student.config["distillation"]["transfer"].get("copies", args.augment))
        alone_dir = runs / f"{args.variant or args.student}-alone-s{seed}"
        alone, alone_seconds = trained(alone_dir, lambda out: attentive.train(
            data, args.student, out, [f"train.seed={seed}", *args.overrides], show_progress=False))
        ours = {"default": (teacher, seconds, teacher_dir), "student": (student, student_seconds, student_dir),
                "student_alone": (alone, alone_seconds, alone_dir)}
        for name, (model, spent, folder) in ours.items():
            predicted = model_predicted(model, test_texts)
            correct = np.array(predicted) == np.array(test_gold)
            accuracy[name].append(round(float(correct.mean()), 4))
            by_unseen[name].append(accuracy_by_unseen(test_unseen, correct))
            by_length[name].append(attentive.compute_metrics(test_gold, predicted, data.labels,
                                                             texts=test_texts)["by_length"])
            dev_accuracy[name].append(round(model.config["training"]["dev_accuracy"], 4))
            train_s[name].append(spent)
            folders.setdefault(name, folder)
        for name, run in (("tfidf_lr", run_tfidf_lr), ("fasttext", run_fasttext), ("model2vec", run_model2vec)):
            start = time.perf_counter()
            scores = run(data, seed=seed)
            train_s[name].append(round(time.perf_counter() - start, 1))
            accuracy[name].append(round(scores["test"]["accuracy"], 4))
            dev_accuracy[name].append(round(scores["dev"]["accuracy"], 4))
            by_unseen[name].append(scores["test"]["by_unseen"])
            by_length[name].append(scores["test"]["by_length"])
        print(f"seed {seed}: " + ", ".join(f"{name} {values[-1]:.4f}" for name, values in accuracy.items()), flush=True)
    texts = test_texts[: args.n]
    measured, sizes = timings(folders, data, texts, args.repeats)
    systems = {}
    for name in accuracy:
        systems[name] = {**measured[name], **sizes[name], "accuracy": summary(accuracy[name]),
                         "dev_accuracy": summary(dev_accuracy[name]), "by_unseen": bucket_summary(by_unseen[name]),
                         "by_length": {part: bucket_summary([found[part] for found in by_length[name]])
                                       for part in ("quartiles", "mean")},
                         "train_s": round(statistics.fmean(train_s[name]), 1)}
    payload = {"kind": "deployable", "dataset": data.name, "seeds": args.seeds, "student": args.student,
               "student_overrides": args.overrides, "variant": args.variant, "soft_weight": args.soft_weight,
               "augment": args.augment, "copies_made": copies_made, "loss": args.loss, "unlabelled": args.unlabelled,
               "ensemble": args.ensemble,
               "n_texts": len(texts),
               "teacher": str(args.teacher) if args.teacher else None,
               "selected_on": "dev (epochs, C, fastText's grid); never test", "systems": systems}
    path = write_result(result_name(data.name, args.variant), payload)
    show(systems, path)
    return 0


def result_name(dataset: str, variant: str | None) -> str:
    return f"deployable-{dataset}" + (f"-{variant}" if variant else "")


def show(systems: dict, path: Path) -> None:
    for system, values in systems.items():
        predict = f"  predict {values['predict_docs_per_s']:9.1f} texts/s" if "predict_docs_per_s" in values else ""
        print(f"{system:13s} acc {values['accuracy']['mean']:.4f} ± {values['accuracy']['std']:.4f}  "
              f"int8 {values['int8_mb']:7.2f} MB  {values['docs_per_s']:9.1f} texts/s  p50 {values['p50_ms']:.3f} ms"
              f"{predict}  train {values['train_s']:.1f} s")
    print(path)


def timings(folders: dict[str, Path], data, texts: list[str], repeats: int) -> tuple[dict, dict]:
    """Per system, texts/s (2 threads, batches of 128; the systems' passes taken in turn, `interleaved_docs_per_second`)
    and p50 of one sentence (1 thread), and the sizes: our models
    (name -> saved folder) exported to int8 ONNX and run by ONNX Runtime, beside TF-IDF + LR and fastText trained
    here on the dataset's train split (C=10; 5 epochs, bigrams) and model2vec (its classifier fitted with seed 0, as
    its saved pipeline answers), all in this process on the same `texts`. Each is timed on the call users make:
    ours on `predict` (the label with its top words: what `attentive predict` and the server answer, keys
    `predict_docs_per_s`, `predict_p50_ms`) and on `predict_proba` (`docs_per_s`, `p50_ms`); a peer's predict and
    predict_proba cost alike and are timed as predict_proba."""
    from threadpoolctl import threadpool_limits

    measured: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        exported, sizes = {}, {}
        for name, folder in folders.items():
            model = attentive.load(folder, device="cpu")
            exported[name] = export(model, Path(tmp) / name, int8=True)
            model.save(Path(tmp) / f"{name}-saved")  # the folder as this version saves it (a sparse n-gram table)
            sizes[name] = {"int8_mb": folder_mb(exported[name], ("model.int8.onnx", "tokenizer.json", "config.json")),
                           "fp32_mb": folder_mb(Path(tmp) / f"{name}-saved",
                                                ("model.safetensors", "tokenizer.json", "config.json"))}
        peers = train_peers(*split_xy(data, "train"))
        vectorizer, linear, fast = peers["vectorizer"], peers["linear"], peers["fasttext"]
        sizes.update(peer_megabytes(peers, Path(tmp)))
        classifier = model2vec_peer.fit_classifier(*split_xy(data, "train"), *split_xy(data, "dev"), seed=0)
        megabytes = model2vec_peer.saved_megabytes(classifier, Path(tmp) / "model2vec")
        sizes["model2vec"] = {"int8_mb": megabytes, "fp32_mb": megabytes}
        pipeline = classifier.to_pipeline()
        for threads, measure in ((1, "p50_ms"), (2, "docs_per_s")):
            calls = {name: runtime.load(folder, int8=True, threads=threads) for name, folder in exported.items()}
            one = {**{name: (lambda t, m=m: m.predict_proba([t])) for name, m in calls.items()},
                   **{f"{name}:predict": (lambda t, m=m: m.predict([t])) for name, m in calls.items()},
                   "tfidf_lr": lambda t: linear.predict_proba(vectorizer.transform([t])),
                   "fasttext": lambda t: fast.predict(fasttext_text(t)),
                   "model2vec": lambda t: pipeline.predict_proba([t])}
            batch = {**{name: (lambda ts, m=m: m.predict_proba(ts, batch_size=128)) for name, m in calls.items()},
                     **{f"{name}:predict": (lambda ts, m=m: m.predict(ts, batch_size=128))
                        for name, m in calls.items()},
                     "tfidf_lr": lambda ts: linear.predict_proba(vectorizer.transform(ts)),
                     "fasttext": lambda ts: fast.predict([fasttext_text(t) for t in ts]),
                     "model2vec": lambda ts: pipeline.predict_proba(ts)}
            with threadpool_limits(threads):  # the peers' BLAS (model2vec's head) at the same thread count
                values = {name: latency_ms(one[name], [SENTENCE], repeats)["p50_ms"] for name in one} \
                    if measure == "p50_ms" else interleaved_docs_per_second(batch, texts)
            for name, value in values.items():
                system, _, call = name.partition(":")
                measured.setdefault(system, {})[f"{call}_{measure}" if call else measure] = value
    return measured, sizes


def expected_calibration_error(probabilities: np.ndarray, gold: np.ndarray, bins: int = 15) -> float:
    """ECE (Guo et al. 2017, Eq. 3): the mean gap between confidence and accuracy over equal-width confidence bins,
    weighted by the bins' sizes."""
    confidence, correct = probabilities.max(1), probabilities.argmax(1) == gold
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, bins - 1)
    return float(sum(abs(confidence[which == b].mean() - correct[which == b].mean()) * (which == b).mean()
                     for b in range(bins) if (which == b).any()))


def calibration_summary(folders: list[Path], data) -> dict | None:
    """Temperature scaling over the seeds' models: the mean dev NLL and expected calibration error before and after
    (config.json's `calibration`, fitted and measured on dev) and the test ECE before and after (held out), with the
    temperatures; None when a model predates calibration."""
    fitted = [json.loads((folder / "config.json").read_text(encoding="utf-8")).get("calibration") for folder in folders]
    if not all(fitted):
        return None
    texts, gold = split_xy(data, "test")
    test_ece = {"test_ece_before": [], "test_ece_after": []}
    for folder, calibration in zip(folders, fitted):
        model = attentive.load(folder, device="cpu")
        index = {label: i for i, label in enumerate(model.labels)}
        labels = np.array([index[label] for label in gold])
        after = model.predict_proba(texts)
        raw = np.exp(calibration["temperature"] * np.log(np.clip(after, 1e-30, None)))  # softmax(logits), T = 1
        test_ece["test_ece_before"].append(expected_calibration_error(raw / raw.sum(1, keepdims=True), labels))
        test_ece["test_ece_after"].append(expected_calibration_error(after, labels))
    keys = ("dev_nll_before", "dev_nll_after", "dev_ece_before", "dev_ece_after")
    return {**{key: round(statistics.fmean(f[key] for f in fitted), 4) for key in keys},
            **{key: round(statistics.fmean(values), 4) for key, values in test_ece.items()},
            "temperatures": [round(f["temperature"], 3) for f in fitted]}


def retime(args) -> int:
    """`--retime`: the speeds and sizes of an earlier run measured again from its saved models (on a quiet machine),
    the rest of its result kept; the command that trained and scored it is kept as `scored_by`. It also reads each
    model's calibration (temperature scaling on dev, `calibration_summary`) and the int8 graphs' test accuracy
    (`int8_accuracy`)."""
    data = attentive.api.resolve_dataset(args.dataset)
    name = result_name(data.name, args.variant)
    path = RESULTS_DIR / f"{name}.json"
    result = json.loads(path.read_text(encoding="utf-8"))
    seed = result["seeds"][0]
    runs = args.runs / data.name
    student = args.variant or result["student"]
    by_seed = {"default": lambda s: teacher_folder(result.get("teacher"), runs, s),
               "student": lambda s: runs / f"{student}-s{s}", "student_alone": lambda s: runs / f"{student}-alone-s{s}"}
    by_seed = {system: folder for system, folder in by_seed.items() if system in result["systems"]}
    folders = {system: folder(seed) for system, folder in by_seed.items()}
    texts = split_xy(data, "test")[0][: args.n]
    measured, sizes = timings(folders, data, texts, args.repeats)
    for system, values in measured.items():
        if system in result["systems"]:  # a run from before a peer joined the table keeps its systems
            result["systems"][system].update(values, **sizes[system])
    for system, folder in by_seed.items():
        seed_folders = [folder(s) for s in result["seeds"]]
        calibration = calibration_summary(seed_folders, data)
        if calibration:
            result["systems"][system]["calibration"] = calibration
        result["systems"][system]["int8_accuracy"] = int8_accuracy(seed_folders, data)
    payload = {key: value for key, value in result.items() if key not in ("name", "command", "git_commit",
                                                                           "machine", "date")}
    payload["scored_by"] = {key: result.get(key) for key in ("command", "git_commit", "date")} \
        if "scored_by" not in result else result["scored_by"]
    show(result["systems"], write_result(name, payload))
    return 0


def int8_accuracy(folders: list[Path], data) -> dict:
    """Test accuracy over the seeds' models as the timed graphs answer it: exported to int8 and run by ONNX Runtime
    (the table's `accuracy` is PyTorch's, float32)."""
    texts, gold = split_xy(data, "test")
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, folder in enumerate(folders):
            exported = runtime.load(export(attentive.load(folder, device="cpu"), Path(tmp) / str(index), int8=True),
                                    int8=True)
            predicted = np.array(exported.labels)[exported.predict_proba(texts).argmax(1)]
            found.append(round(float((predicted == np.array(gold)).mean()), 4))
    return summary(found)


def peer_megabytes(peers: dict, tmp: Path) -> dict:
    """The size of each peer as its own library saves it: the pickled vectorizer and model, fastText's .bin."""
    import pickle

    linear_file = tmp / "tfidf_lr.pkl"
    linear_file.write_bytes(pickle.dumps((peers["vectorizer"], peers["linear"])))
    peers["fasttext"].save_model(str(tmp / "fasttext.bin"))
    sizes = {"tfidf_lr": linear_file.stat().st_size, "fasttext": (tmp / "fasttext.bin").stat().st_size}
    return {name: {"int8_mb": round(size / 1e6, 2), "fp32_mb": round(size / 1e6, 2)} for name, size in sizes.items()}


if __name__ == "__main__":
    raise SystemExit(main())
