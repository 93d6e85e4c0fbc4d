"""The deployable table on one dataset: `opinion` (the teacher), the compact default distilled from it and trained
alone, TF-IDF + LR, fastText and model2vec: test accuracy over seeds (and by unseen words), sizes, texts/s, p50 of
one text, training time.

    python -m benchmarks.product.deploy.deployable --dataset sst2 --seeds 0 1 2 [--retime]

`--retime` measures an earlier run's speeds again from its saved models, keeping its accuracies (`scored_by`).
Nothing else may run beside it."""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import attentive
from attentive.answer import onnx_backend as runtime
from attentive.distill import Distillation, distill
from attentive.onnx_format.write import export
from benchmarks.harness import model2vec_peer
from benchmarks.harness.baselines import (
    fasttext_text,
    logistic_regression,
    run_fasttext,
    run_model2vec,
    run_tfidf_lr,
    split_xy,
    tfidf_vectorizer,
)
from benchmarks.harness.common import DOCUMENT_SETS, RESULTS_DIR, commit_at_start, write_result
from benchmarks.harness.formatting import md_head, md_row
from benchmarks.harness.results_io import in_defaults_order, machine_short
from benchmarks.harness.unseen_words import accuracy_by_unseen, unseen_shares

TEACHER = "opinion"  # the recipe of the "default" system
# The systems as the runs name them (`default` was the biGRU model, now `opinion`), and as the table labels them.
SYSTEMS = {"default": "opinion (the teacher)", "student": "default, distilled", "student_alone":
           "default, alone (shipped)", "tfidf_lr": "TF-IDF + LR", "fasttext": "fastText", "model2vec": "model2vec"}
PEERS = ("tfidf_lr", "fasttext", "model2vec")
SENTENCE = "the film starts slowly , but the performances are warm and the final act is moving and quietly funny ."
PASSES = 15  # timed passes over the texts of each system, taken in turn, after one untimed pass
TIMED_TEXTS, REPEATS = 5000, 300  # the test texts timed; calls of one sentence for the p50


def trained(folder: Path, make) -> tuple[attentive.Model, float]:
    """The model in `folder`, trained by `make(folder)` unless it is there; with its training seconds."""
    if not (folder / "config.json").exists():
        start = time.perf_counter()
        make(folder)
        (folder / "train_seconds.txt").write_text(f"{time.perf_counter() - start:.1f}\n")
    return attentive.load(folder, device="cpu"), float((folder / "train_seconds.txt").read_text())


def summary(values: list[float]) -> dict:
    return {"mean": round(statistics.fmean(values), 4),
            "std": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0, "values": values}


def model_predicted(model, texts: list[str]) -> list[str]:
    """The label `model` (PyTorch, float32) answers each text with."""
    return np.array(model.labels)[model.predict_proba(texts).argmax(1)].tolist()


def bucket_summary(per_seed: list[list[dict]]) -> list[dict]:
    """Accuracy buckets over the seeds: per bucket the first seed's row with its accuracy's summary."""
    buckets = {}
    for found in per_seed:
        for row in found:
            buckets.setdefault(row["bucket"], {**row, "values": []})["values"].append(row["accuracy"])
    return [{**{key: value for key, value in row.items() if key != "values"}, "accuracy": summary(row["values"])}
            for row in buckets.values()]


def folders_of(runs: Path, seed: int) -> tuple[Path, Path, Path]:
    """One seed's teacher, student and student-alone folders."""
    return runs / f"default-s{seed}", runs / f"student-s{seed}", runs / f"student-alone-s{seed}"


def folder_mb(folder: Path, names: tuple[str, ...]) -> float:
    return round(sum((folder / name).stat().st_size for name in names if (folder / name).exists()) / 1e6, 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path("runs/deployable"))
    parser.add_argument("--retime", action="store_true", help="measure the speeds of the earlier run again (its "
                                                               "saved models), keeping its accuracies")
    args = parser.parse_args(argv)
    commit_at_start()
    if args.retime:
        return retime(args)
    data = attentive.api.resolve_dataset(args.dataset)
    test_texts, test_gold = split_xy(data, "test")
    runs = args.runs / data.name
    found = {name: {"accuracy": [], "dev_accuracy": [], "train_s": [], "by_unseen": [], "by_length": []}
             for name in SYSTEMS}
    test_unseen = unseen_shares(split_xy(data, "train")[0], test_texts)  # the same for every system and seed
    copies_made = []  # augmented copies of each training text, per seed: fewer than 8 on large data
    folders = {}  # the first seed's models, timed
    for seed in args.seeds:
        teacher_dir, student_dir, alone_dir = folders_of(runs, seed)
        teacher, seconds = trained(teacher_dir, lambda out: attentive.train(
            data, TEACHER, out, [f"train.seed={seed}"], show_progress=False))
        student, student_seconds = trained(student_dir, lambda out: distill(
            [teacher_dir], data, out, "default", Distillation(seed=seed), overrides=[f"train.seed={seed}"],
            show_progress=False))
        copies_made.append(student.config["distillation"]["transfer"].get("copies", 8))
        alone, alone_seconds = trained(alone_dir, lambda out: attentive.train(
            data, "default", out, [f"train.seed={seed}"], show_progress=False))
        ours = {"default": (teacher, seconds, teacher_dir), "student": (student, student_seconds, student_dir),
                "student_alone": (alone, alone_seconds, alone_dir)}
        for name, (model, spent, folder) in ours.items():
            predicted = model_predicted(model, test_texts)
            correct = np.array(predicted) == np.array(test_gold)
            metrics = attentive.compute_metrics(test_gold, predicted, data.labels, texts=test_texts)
            for key, value in (("accuracy", round(float(correct.mean()), 4)),
                               ("dev_accuracy", round(model.config["training"]["dev_accuracy"], 4)),
                               ("train_s", spent), ("by_unseen", accuracy_by_unseen(test_unseen, correct)),
                               ("by_length", metrics["by_length"])):
                found[name][key].append(value)
            folders.setdefault(name, folder)
        for name, run in (("tfidf_lr", run_tfidf_lr), ("fasttext", run_fasttext), ("model2vec", run_model2vec)):
            start = time.perf_counter()
            scores = run(data, seed=seed)
            for key, value in (("train_s", round(time.perf_counter() - start, 1)),
                               ("accuracy", round(scores["test"]["accuracy"], 4)),
                               ("dev_accuracy", round(scores["dev"]["accuracy"], 4)),
                               ("by_unseen", scores["test"]["by_unseen"]), ("by_length", scores["test"]["by_length"])):
                found[name][key].append(value)
        print(f"seed {seed}: " + ", ".join(f"{name} {f['accuracy'][-1]:.4f}" for name, f in found.items()), flush=True)
    texts = test_texts[:TIMED_TEXTS]
    measured, sizes = timings(folders, data, texts)
    systems = {name: {**measured[name], **sizes[name], "accuracy": summary(f["accuracy"]),
                      "dev_accuracy": summary(f["dev_accuracy"]), "by_unseen": bucket_summary(f["by_unseen"]),
                      "by_length": {part: bucket_summary([b[part] for b in f["by_length"]])
                                    for part in ("quartiles", "mean")},
                      "train_s": round(statistics.fmean(f["train_s"]), 1)} for name, f in found.items()}
    payload = {"kind": "deployable", "dataset": data.name, "seeds": args.seeds, "student": "default",
               "student_overrides": [], "variant": None, "soft_weight": 1.0, "augment": 8, "copies_made": copies_made,
               "loss": "mse", "unlabelled": None, "ensemble": False, "n_texts": len(texts), "teacher": None,
               "selected_on": "dev (epochs, C, fastText's grid); never test", "systems": systems}
    show(systems, write_result(f"deployable-{data.name}", payload))
    return 0


def show(systems: dict, path: Path) -> None:
    for system, values in systems.items():
        predict = f"  predict {values['predict_docs_per_s']:9.1f} texts/s" if "predict_docs_per_s" in values else ""
        print(f"{system:13s} acc {values['accuracy']['mean']:.4f} ± {values['accuracy']['std']:.4f}  "
              f"int8 {values['int8_mb']:7.2f} MB  {values['docs_per_s']:9.1f} texts/s  p50 {values['p50_ms']:.3f} ms"
              f"{predict}  train {values['train_s']:.1f} s")
    print(path)


def p50_ms(answer: Callable[[str], object], repeats: int) -> float:
    """The median milliseconds of `answer(SENTENCE)` over `repeats` calls, after 10 warm-ups."""
    for _ in range(10):
        answer(SENTENCE)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        answer(SENTENCE)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


def one_pass(answer_batch: Callable[[list[str]], object], texts: list[str]) -> float:
    """Texts a second of one pass of `answer_batch` over `texts` in batches of 128."""
    start = time.perf_counter()
    for i in range(0, len(texts), 128):
        answer_batch(texts[i:i + 128])
    return len(texts) / (time.perf_counter() - start)


def interleaved_docs_per_second(answer_batches: dict[str, Callable[[list[str]], object]], texts: list[str],
                                passes: int = PASSES) -> dict[str, float]:
    """Each system's median texts/s over `passes` rounds of one pass each in turn, after one untimed pass each."""
    for answer_batch in answer_batches.values():
        one_pass(answer_batch, texts)
    found: dict[str, list[float]] = {name: [] for name in answer_batches}
    for _ in range(passes):
        for name, answer_batch in answer_batches.items():
            found[name].append(one_pass(answer_batch, texts))
    return {name: round(statistics.median(values), 1) for name, values in found.items()}


def train_peers(train_texts: list[str], train_labels: list[str]) -> dict:
    """TF-IDF + LR (C=10) and fastText (5 epochs, bigrams), trained once on the timed dataset's train split."""
    import fasttext

    vectorizer = tfidf_vectorizer()
    linear = logistic_regression(10.0, len(set(train_labels)), 0).fit(vectorizer.fit_transform(train_texts),
                                                                       train_labels)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.writelines(f"__label__{label} {fasttext_text(text)}\n" for text, label in zip(train_texts, train_labels))
    fast = fasttext.train_supervised(input=handle.name, epoch=5, wordNgrams=2, verbose=0, seed=0)
    return {"vectorizer": vectorizer, "linear": linear, "fasttext": fast}


def timings(folders: dict[str, Path], data, texts: list[str], repeats: int = REPEATS) -> tuple[dict, dict]:
    """Per system, texts/s (2 threads, passes in turn) and p50 of one sentence (1 thread), and the sizes: our models
    (name -> folder) as int8 ONNX on `predict` and `predict_proba`, the peers trained here on predict_proba."""
    import pickle

    from threadpoolctl import threadpool_limits

    measured: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp, exported, sizes = Path(tmp), {}, {}
        for name, folder in folders.items():
            model = attentive.load(folder, device="cpu")
            exported[name] = export(model, tmp / name, int8=True)
            model.save(tmp / f"{name}-saved")  # the folder as this version saves it (a sparse n-gram table)
            sizes[name] = {"int8_mb": folder_mb(exported[name], ("model.int8.onnx", "tokenizer.json", "config.json")),
                           "fp32_mb": folder_mb(tmp / f"{name}-saved",
                                                ("model.safetensors", "tokenizer.json", "config.json"))}
        peers = train_peers(*split_xy(data, "train"))
        vectorizer, linear, fast = peers["vectorizer"], peers["linear"], peers["fasttext"]
        (tmp / "tfidf_lr.pkl").write_bytes(pickle.dumps((vectorizer, linear)))  # each peer as its library saves it
        fast.save_model(str(tmp / "fasttext.bin"))
        for name, file in (("tfidf_lr", "tfidf_lr.pkl"), ("fasttext", "fasttext.bin")):
            sizes[name] = dict.fromkeys(("int8_mb", "fp32_mb"), round((tmp / file).stat().st_size / 1e6, 2))
        classifier = model2vec_peer.fit_classifier(*split_xy(data, "train"), *split_xy(data, "dev"), seed=0)
        sizes["model2vec"] = dict.fromkeys(("int8_mb", "fp32_mb"),
                                           model2vec_peer.saved_megabytes(classifier, tmp / "model2vec"))
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
                values = {name: p50_ms(one[name], repeats) for name in one} \
                    if measure == "p50_ms" else interleaved_docs_per_second(batch, texts)
            for name, value in values.items():
                system, _, call = name.partition(":")
                measured.setdefault(system, {})[f"{call}_{measure}" if call else measure] = value
    return measured, sizes


def expected_calibration_error(probabilities: np.ndarray, gold: np.ndarray, bins: int = 15) -> float:
    """ECE (Guo et al. 2017, Eq. 3) over equal-width confidence bins."""
    confidence, correct = probabilities.max(1), probabilities.argmax(1) == gold
    which = np.clip(np.digitize(confidence, np.linspace(0.0, 1.0, bins + 1)[1:-1], right=True), 0, bins - 1)
    return float(sum(abs(confidence[which == b].mean() - correct[which == b].mean()) * (which == b).mean()
                     for b in range(bins) if (which == b).any()))


def calibration_summary(folders: list[Path], data) -> dict | None:
    """The seeds' temperature scaling: dev NLL and ECE (config.json's), test ECE, before and after; None without."""
    fitted = [json.loads((folder / "config.json").read_text(encoding="utf-8")).get("calibration") for folder in folders]
    if not all(fitted):
        return None
    texts, gold = split_xy(data, "test")
    test_ece = {"test_ece_before": [], "test_ece_after": []}
    for folder, calibration in zip(folders, fitted):
        model = attentive.load(folder, device="cpu")
        labels = np.array([model.labels.index(label) for label in gold])
        after = model.predict_proba(texts)
        raw = np.exp(calibration["temperature"] * np.log(np.clip(after, 1e-30, None)))  # softmax(logits), T = 1
        test_ece["test_ece_before"].append(expected_calibration_error(raw / raw.sum(1, keepdims=True), labels))
        test_ece["test_ece_after"].append(expected_calibration_error(after, labels))
    keys = ("dev_nll_before", "dev_nll_after", "dev_ece_before", "dev_ece_after")
    return {**{key: round(statistics.fmean(f[key] for f in fitted), 4) for key in keys},
            **{key: round(statistics.fmean(values), 4) for key, values in test_ece.items()},
            "temperatures": [round(f["temperature"], 3) for f in fitted]}


def int8_accuracy(folders: list[Path], data) -> dict:
    """Test accuracy over the seeds' models as the timed int8 graphs answer it."""
    texts, gold = split_xy(data, "test")
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, folder in enumerate(folders):
            exported = runtime.load(export(attentive.load(folder, device="cpu"), Path(tmp) / str(index), int8=True),
                                    int8=True)
            predicted = np.array(exported.labels)[exported.predict_proba(texts).argmax(1)]
            found.append(round(float((predicted == np.array(gold)).mean()), 4))
    return summary(found)


def retime(args) -> int:
    """`--retime`: an earlier run's speeds and sizes measured again, with calibration and int8 accuracy added."""
    data = attentive.api.resolve_dataset(args.dataset)
    name = f"deployable-{data.name}"
    result = json.loads((RESULTS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    runs = args.runs / data.name
    ours = [system for system in ("default", "student", "student_alone") if system in result["systems"]]
    by_seed = {seed: dict(zip(("default", "student", "student_alone"), folders_of(runs, seed)))
               for seed in result["seeds"]}
    texts = split_xy(data, "test")[0][:TIMED_TEXTS]
    first = by_seed[result["seeds"][0]]
    measured, sizes = timings({system: first[system] for system in ours}, data, texts)
    for system, values in measured.items():
        if system in result["systems"]:  # a run from before a peer joined the table keeps its systems
            result["systems"][system].update(values, **sizes[system])
    for system in ours:
        seed_folders = [folders[system] for folders in by_seed.values()]
        calibration = calibration_summary(seed_folders, data)
        if calibration:
            result["systems"][system]["calibration"] = calibration
        result["systems"][system]["int8_accuracy"] = int8_accuracy(seed_folders, data)
    payload = {key: value for key, value in result.items() if key not in ("name", "command", "git_commit",
                                                                           "machine", "date")}
    payload["scored_by"] = result.get("scored_by") or {key: result.get(key) for key in ("command", "git_commit",
                                                                                         "date")}
    show(result["systems"], write_result(name, payload))
    return 0





def accuracy_cell(cell: dict) -> str:
    """Mean ± std over the seeds; one seed's value alone, marked, where a run had only one."""
    if len(cell.get("values", ())) == 1:
        return f"{100 * cell['mean']:.2f} (1 seed)"
    return f"{100 * cell['mean']:.2f} ± {100 * cell['std']:.2f}"


def verdict(systems: dict, dataset: str) -> str:
    """The targets for the compact model as it ships (alone, else distilled): ≥ the better peer, ≥ `opinion` − 0.5,
    int8 within 5 MB (10 on documents), texts/s ≥ TF-IDF + LR's."""
    shipped = "student_alone" if "student_alone" in systems else "student"
    ours, opinion = systems[shipped]["accuracy"]["mean"], systems["default"]["accuracy"]["mean"]
    peer = max(systems[name]["accuracy"]["mean"] for name in PEERS if name in systems)
    misses = [f"{100 * (peer - ours):.2f} below the better peer"] if ours < peer else []
    if ours < opinion - 0.005:
        misses.append(f"{100 * (opinion - ours):.2f} below opinion")
    if systems[shipped]["int8_mb"] > (10.0 if dataset in DOCUMENT_SETS else 5.0):
        misses.append(f"int8 {systems[shipped]['int8_mb']} MB")
    speed = systems[shipped].get("predict_docs_per_s", systems[shipped]["docs_per_s"])
    if speed < systems["tfidf_lr"]["docs_per_s"]:
        call = "predict's" if "predict_docs_per_s" in systems[shipped] else "predict_proba's"
        misses.append(f"{call} {speed / systems['tfidf_lr']['docs_per_s']:.2f}× TF-IDF + LR's texts/s")
    which = "alone" if shipped == "student_alone" else "distilled"
    return f"{which}: " + ("reached" if not misses else "not reached: " + "; ".join(misses))


def deployable_section(results: list[dict]) -> list[str]:
    """The `deployable` runs without a variant, then the accuracy by unseen words."""
    shipped = sorted((r for r in results if r.get("kind") == "deployable" and not r.get("variant")),
                     key=in_defaults_order)
    if not shipped:
        return []
    lines = ["## Deployable: the compact default, alone and distilled, beside opinion and the peers", "",
             "Per dataset, one `python -m benchmarks.product.deploy.deployable` run, made before commit `a798496`, "
             "when `default` "
             "named the biGRU model that is now `opinion` and `student` the compact model that is now `default`; "
             "below they carry today's names (the target's words, \"student\" and \"default\", are the issue's). "
             "Test accuracy as mean ± std over its seeds (the "
             "compact model of each seed distilled from that seed's `opinion` model, `attentive distill`, and the "
             "same recipe trained alone on the labels, as `attentive train` now trains it), by PyTorch and, "
             "where measured, by the timed int8 graph (ONNX Runtime; the peers have no int8 form); sizes of the "
             "int8 ONNX export (model.int8.onnx, tokenizer.json, config.json) and of the saved folder (fp32; for "
             "the peers, the pickled vectorizer and model, fastText's .bin); batched texts/s with 2 threads "
             "(calls of 128 texts, the median of five passes over the texts, or of fifteen taken in turn with the "
             "other systems' in a retime since 2026-11-27; ours answer a call's batches on two "
             "lanes, attentive/answer/lanes.py, since commit `052bf56`) and p50 of one sentence with 1 thread, "
             "all four in the same process on the same test texts; training time per seed (the student's excludes "
             "its teacher's). Issue 33's target, for the compact model as it ships (alone where the run has it, else "
             "distilled): ≥ the better peer, ≥ `opinion` − 0.5, int8 ≤ 5 MB, texts/s ≥ TF-IDF + LR's.", "",
             "Ours are timed on `predict` too (the label with its top words: what `attentive predict` and the server "
             "answer), where a run measured it.", "",
             *md_head(["dataset", "system", "test acc", "int8 test acc", "int8 MB", "saved MB", "texts/s",
                       "predict texts/s", "p50 ms", "predict p50 ms", "train s"], "ll" + "r" * 9)]
    verdicts = []
    for result in shipped:
        for key, label in SYSTEMS.items():
            if key not in result["systems"]:
                continue
            cell = result["systems"][key]
            lines.append(md_row([result["dataset"], label, accuracy_cell(cell["accuracy"]),
                                 accuracy_cell(cell["int8_accuracy"]) if "int8_accuracy" in cell else "—",
                                 f"{cell['int8_mb']:.2f}", f"{cell['fp32_mb']:.2f}", f"{cell['docs_per_s']:,.0f}",
                                 f"{cell['predict_docs_per_s']:,.0f}" if "predict_docs_per_s" in cell else "—",
                                 f"{cell['p50_ms']:.3f}",
                                 f"{cell['predict_p50_ms']:.3f}" if "predict_p50_ms" in cell else "—",
                                 f"{cell['train_s']:.1f}"]))
        seeds = len(result["seeds"])
        verdicts.append(f"{result['dataset']} ({seeds} seed{'s' if seeds > 1 else ''}, {machine_short(result)}): "
                        f"{verdict(result['systems'], result['dataset'])}")
    lines += ["", "Target: " + " · ".join(verdicts) + ".", "",
              "The student variants tried, each with its dev accuracy, are the other `deployable` lines of "
              "benchmarks/results/deploy.jsonl.", "", ""]
    measured = [result for result in shipped if "by_unseen" in result["systems"]["student"]]
    if not measured:
        return lines
    buckets = [row["bucket"] for row in measured[0]["systems"]["student"]["by_unseen"]]
    lines += ["Test accuracy by the share of each text's words that no training text holds (a word: a lowercased run "
              "of letters and digits; benchmarks/harness/unseen_words.py), mean ± std over the seeds; the texts in "
              "each bucket in brackets.", "", *md_head(["dataset", "system", *buckets], "ll" + "r" * len(buckets))]
    for result in measured:
        for key, label in SYSTEMS.items():
            if key in result["systems"]:
                cells = {row["bucket"]: row for row in result["systems"][key]["by_unseen"]}
                lines.append(md_row([result["dataset"], label] + [
                    f"{accuracy_cell(cells[b]['accuracy'])} ({cells[b]['texts']})" if b in cells else "—"
                    for b in buckets]))
    return lines + [""]


if __name__ == "__main__":
    raise SystemExit(main())
