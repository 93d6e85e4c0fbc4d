"""The default as users deploy it: its seed-0 model exported int8 and timed in ONNX Runtime beside TF-IDF + LR,
fastText and model2vec, on `predict` (the label with its top five words) and `predict_proba`; and beside `opinion`'s
seed-0 model, for what reading word order costs.

    python -m benchmarks.product.deploy.deployed --dataset r8 [--train-only]
    python -m benchmarks.product.deploy.deployed --dataset sst2 --opinion runs/opinion/sst2/opinion-sst2-defaults-s0
    python -m benchmarks.product.deploy.deployed --dataset sst2 --student runs/few/sst2-k16

`--train-only` trains runs/shipped/DATASET/default-s0 and stops, so the timing can run later on a quiet machine.
`--opinion FOLDER` times that model (saved by `benchmarks.harness.run --recipe opinion --save-models DIR`) beside the
default's; the accuracies shown beside the speeds are the two recipes' result files'. `--student FOLDER` times the
compact student `attentive train --few-labels ... --out FOLDER --compact` wrote beside the default trained on the
whole training split. Nothing else may run beside it."""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

import attentive
from attentive.answer import onnx_backend as runtime
from attentive.onnx_format.write import export
from benchmarks.harness import model2vec_peer
from benchmarks.harness.baselines import fasttext_text, logistic_regression, split_xy, tfidf_vectorizer
from benchmarks.harness.common import DOCUMENT_SETS, commit_at_start, write_result
from benchmarks.harness.formatting import fmt_mean_std, md_head, md_row
from benchmarks.harness.results_io import METRICS, machine_short, of_kind_by_dataset, runs_named
from benchmarks.product.accuracy.render_defaults import CURRENT, default_runs

SEED = 0
SENTENCE = "the film starts slowly , but the performances are warm and the final act is moving and quietly funny ."
PASSES = 15  # timed passes over the texts of each system, taken in turn, after one untimed pass
TIMED_TEXTS, REPEATS = 5000, 300  # the test texts timed; calls of one sentence for the p50
INT8_MB = {"sentences": 5.0, "documents": 10.0}  # the export's size bounds; documents are DOCUMENT_SETS
P50_MS = 0.2  # one text's predict, 1 thread
FASTTEXT_SHARE_SST2 = 0.8  # predict's texts/s ≥ 0.8 × fastText's on SST-2
STUDENT_KIND = "student_speed"  # the runs timing a few-label student beside the default
OPINION_KIND = "opinion_speed"  # the runs timing `opinion` beside the default
# (recipe, variant) of the result files whose test accuracy an `--opinion` run is shown with
ACCURACY_RUNS = {"default": ["default", CURRENT], "opinion": ["opinion", "defaults"]}


def trained(folder: Path, make) -> tuple[attentive.Model, float, int | None]:
    """The model in `folder`, trained by `make(folder)` unless it is there; with its training seconds and the
    threads it trained on (None where the folder does not say)."""
    if not (folder / "config.json").exists():
        start = time.perf_counter()
        make(folder)
        (folder / "train_seconds.txt").write_text(f"{time.perf_counter() - start:.1f}\n")
        (folder / "train_threads.txt").write_text(f"{torch.get_num_threads()}\n")
    threads = folder / "train_threads.txt"
    return (attentive.load(folder, device="cpu"), float((folder / "train_seconds.txt").read_text()),
            int(threads.read_text()) if threads.exists() else None)


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


def peers(data) -> dict[str, tuple[Callable, Callable]]:
    """TF-IDF + LR (C=10), fastText (5 epochs, bigrams) and model2vec trained on `data`'s train split: per peer its
    (one text, a batch) callables."""
    import fasttext

    texts, labels = split_xy(data, "train")
    vectorizer = tfidf_vectorizer()
    linear = logistic_regression(10.0, len(set(labels)), 0).fit(vectorizer.fit_transform(texts), labels)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.writelines(f"__label__{label} {fasttext_text(text)}\n" for text, label in zip(texts, labels))
    fast = fasttext.train_supervised(input=handle.name, epoch=5, wordNgrams=2, verbose=0, seed=0)
    static = model2vec_peer.fit_classifier(texts, labels, *split_xy(data, "dev"), seed=0).to_pipeline()
    return {"tfidf_lr": (lambda t: linear.predict_proba(vectorizer.transform([t])),
                         lambda ts: linear.predict_proba(vectorizer.transform(ts))),
            "fasttext": (lambda t: fast.predict(fasttext_text(t)),
                         lambda ts: fast.predict([fasttext_text(t) for t in ts])),
            "model2vec": (lambda t: static.predict_proba([t]), lambda ts: static.predict_proba(ts))}


def timings(folders: dict[str, Path], data, texts: list[str]) -> dict[str, dict]:
    """Per system, texts/s (2 threads, passes in turn) and p50 of one sentence (1 thread): our models (name ->
    folder) as int8 ONNX on `predict` and `predict_proba`, with the export's MB; the peers on predict_proba."""
    from threadpoolctl import threadpool_limits

    measured: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        exported = {name: export(attentive.load(folder, device="cpu"), Path(tmp) / name, int8=True)
                    for name, folder in folders.items()}
        for name, folder in exported.items():
            files = ("model.int8.onnx", "tokenizer.json", "config.json")
            measured[name] = {"int8_mb": round(sum((folder / file).stat().st_size for file in files) / 1e6, 2)}
        theirs = peers(data)
        for threads, measure in ((1, "p50_ms"), (2, "docs_per_s")):
            calls = {name: runtime.load(folder, int8=True, threads=threads) for name, folder in exported.items()}
            one = {**{name: (lambda t, m=m: m.predict_proba([t])) for name, m in calls.items()},
                   **{f"{name}:predict": (lambda t, m=m: m.predict([t])) for name, m in calls.items()},
                   **{name: single for name, (single, _) in theirs.items()}}
            batch = {**{name: (lambda ts, m=m: m.predict_proba(ts, batch_size=128)) for name, m in calls.items()},
                     **{f"{name}:predict": (lambda ts, m=m: m.predict(ts, batch_size=128))
                        for name, m in calls.items()},
                     **{name: many for name, (_, many) in theirs.items()}}
            with threadpool_limits(threads):  # the peers' BLAS (model2vec's head) at the same thread count
                values = {name: p50_ms(one[name], REPEATS) for name in one} \
                    if measure == "p50_ms" else interleaved_docs_per_second(batch, texts)
            for name, value in values.items():
                system, _, call = name.partition(":")
                measured.setdefault(system, {})[f"{call}_{measure}" if call else measure] = value
    return measured


def accuracy_of(model, texts: list[str], gold: list[str]) -> float:
    """Test accuracy of `model` (a PyTorch model or an int8 graph)."""
    predicted = np.array(model.labels)[model.predict_proba(texts).argmax(1)]
    return round(float((predicted == np.array(gold)).mean()), 4)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--train-only", action="store_true", help="train the model and stop (no timing)")
    parser.add_argument("--opinion", type=Path, metavar="FOLDER", help="time this `opinion` model beside the default")
    parser.add_argument("--student", type=Path, metavar="FOLDER",
                        help="time the few-label student `train --few-labels --out FOLDER` wrote")
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.api.resolve_dataset(args.dataset)
    folder = Path("runs/shipped") / data.name / f"default-s{SEED}"
    model, train_s, train_threads = trained(folder, lambda out: attentive.train(
        data, "default", out, [f"train.seed={SEED}"], show_progress=False))
    if args.train_only:
        return 0
    texts, gold = split_xy(data, "test")
    beside = {"opinion": args.opinion} if args.opinion else {"student": args.student} if args.student \
        else {}
    systems = timings({"default": folder, **beside}, data, texts[:TIMED_TEXTS])
    payload = {"dataset": data.name, "seed": SEED, "n_texts": len(texts[:TIMED_TEXTS]), "systems": systems}
    if args.student:
        systems["student"]["test_accuracy"] = accuracy_of(attentive.load(beside["student"], device="cpu"), texts,
                                                          gold)
        path = write_result(f"student-speed-{data.name}", {"kind": STUDENT_KIND, **payload})
    elif args.opinion:
        path = write_result(f"opinion-speed-{data.name}",
                            {"kind": OPINION_KIND, "candidates": ACCURACY_RUNS, **payload})
    else:
        with tempfile.TemporaryDirectory() as tmp:
            graph = runtime.load(export(model, Path(tmp) / "int8", int8=True), int8=True)
            systems["default"].update(test_accuracy=accuracy_of(model, texts, gold),
                                      int8_test_accuracy=accuracy_of(graph, texts, gold), train_s=train_s,
                                      train_threads=train_threads,
                                      prior=model.config.get("prior"))
        path = write_result(f"shipped-{data.name}", {"kind": "shipped", "recipe": "default", **payload})
    for name, values in systems.items():
        print(f"{name:10s} " + "  ".join(f"{key} {value}" for key, value in values.items()))
    print(path)
    return 0


def bound(dataset: str) -> float:
    return INT8_MB["documents" if dataset in DOCUMENT_SETS else "sentences"]


def beside_opinion(results: list[dict]) -> list[str]:
    """The `--opinion` runs: the default's and `opinion`'s accuracy over seeds, int8 MB and predict texts/s."""
    runs = of_kind_by_dataset(results, OPINION_KIND)
    if not runs:
        return []
    variants = ", ".join(sorted({f"`{r['candidates']['default'][1]}`" for r in runs}))
    lines = ["", "Beside `opinion` (a biGRU of 100 units each way over 306-d vectors, under the same attention), per "
                 "dataset one `--opinion` run: each recipe's seed-0 model exported int8 and timed on `predict` as "
                 "above, in one process. Test accuracy (%): mean ± std over the seeds of each recipe's result files "
                 f"(the default's variant {variants}, the model timed above). Share: `opinion`'s predict texts/s "
                 "over the default's.", "",
             *md_head(["dataset", "default test acc", "opinion test acc", "default int8 MB", "opinion int8 MB",
                       "default predict texts/s", "opinion predict texts/s", "share"], "l" + "r" * 7)]
    for result in runs:
        dataset, systems = result["dataset"], result["systems"]
        accuracy = {name: fmt_mean_std(METRICS["test_accuracy"](runs_named(results, dataset, *result["candidates"][
            name]))) for name in ("default", "opinion")}
        ours, theirs = systems["default"], systems["opinion"]
        lines.append(md_row([dataset, accuracy["default"], accuracy["opinion"], f"{ours['int8_mb']:.2f}",
                             f"{theirs['int8_mb']:.2f}", f"{ours['predict_docs_per_s']:,.0f}",
                             f"{theirs['predict_docs_per_s']:,.0f}",
                             f"{theirs['predict_docs_per_s'] / ours['predict_docs_per_s']:.2f}×"]))
    return lines + ["", f"Timed on {', '.join(sorted({machine_short(r) for r in runs}))}."]


def deployed_section(results: list[dict]) -> list[str]:
    """The `shipped` results, one row per dataset, how many datasets meet each bound, then the `--opinion` runs."""
    runs = of_kind_by_dataset(results, "shipped")
    if not runs:
        return []
    lines = ["## The default as deployed, on every visible dataset", "",
             "Per dataset, one `python -m benchmarks.product.deploy.deployed --dataset D` run: the default recipe "
             "trained with seed 0 "
             "(`attentive train`), exported to int8 and run by ONNX Runtime, timed in one process beside TF-IDF + LR, "
             "fastText and model2vec on the same test texts (up to 5,000; batches of 128 on 2 threads, the median of "
             "fifteen passes, the systems' passes taken in turn; p50 of one sentence on 1 thread). `predict` "
             "answers the label with its top five words (what `attentive predict` and the server answer); "
             "`proba` is `predict_proba`; a peer's two calls cost alike. Ratio: `predict`'s texts/s over TF-IDF + "
             "LR's. Test accuracy of the timed model (PyTorch / its int8 graph); the mean over three seeds is the "
             "defaults table's. Train s: that training's wall seconds (where the run recorded them, its threads in "
             "brackets; the defaults table gives the default's times on two threads alone). int8 MB: "
             "model.int8.onnx, tokenizer.json and config.json, against its bound "
             f"({INT8_MB['sentences']:g} MB on sentences and intents, {INT8_MB['documents']:g} MB on "
             f"{', '.join(DOCUMENT_SETS)}).", "",
             *md_head(["dataset", "test acc (seed 0)", "int8 MB (bound)", "predict texts/s", "proba texts/s",
                       "TF-IDF + LR", "fastText", "model2vec", "ratio", "predict p50 ms", "train s"], "l" + "r" * 10)]
    size_met, speed_met, p50_met = [], [], []
    for result in runs:
        dataset, systems = result["dataset"], result["systems"]
        ours, linear = systems["default"], systems["tfidf_lr"]["docs_per_s"]
        ratio = ours["predict_docs_per_s"] / linear
        lines.append(md_row([dataset, f"{100 * ours['test_accuracy']:.2f} / {100 * ours['int8_test_accuracy']:.2f}",
                             f"{ours['int8_mb']:.2f} ({bound(dataset):g})", f"{ours['predict_docs_per_s']:,.0f}",
                             f"{ours['docs_per_s']:,.0f}", f"{linear:,.0f}",
                             *(f"{systems[peer]['docs_per_s']:,.0f}" for peer in ("fasttext", "model2vec")),
                             f"{ratio:.2f}×",
                             f"{ours['predict_p50_ms']:.3f}", f"{ours['train_s']:,.0f}" + (
                                 f" ({ours['train_threads']})" if ours.get("train_threads") else "")]))
        size_met.append(ours["int8_mb"] <= bound(dataset))
        speed_met.append(ratio >= 1.0)
        p50_met.append(ours["predict_p50_ms"] <= P50_MS)
    machines = sorted({machine_short(r) for r in runs})
    lines += ["", f"The bounds on the {len(runs)} datasets run ({', '.join(machines)}): int8 within its bound "
                  f"on {sum(size_met)}; `predict` at or above TF-IDF + LR's texts/s on {sum(speed_met)}; one text's "
                  f"`predict` p50 ≤ {P50_MS} ms on {sum(p50_met)}."]
    sst2 = next((r["systems"] for r in runs if r["dataset"] == "sst2"), None)
    if sst2:
        share = sst2["default"]["predict_docs_per_s"] / sst2["fasttext"]["docs_per_s"]
        lines[-1] += (f" On SST-2 `predict` runs at {share:.2f}× fastText's texts/s (the bound: "
                      f"{FASTTEXT_SHARE_SST2}×).")
    lines[-1] += against_the_rows(results, runs)
    return lines + beside_opinion(results) + beside_student(results) + [""]


def against_the_rows(results: list[dict], runs: list[dict]) -> str:
    """A sentence: how far each timed model's test accuracy is from the defaults table's seed-0 run of its dataset
    (`default_runs`), which differ where the default's code changed between the two runs ("" where none match)."""
    gaps = []
    for result in runs:
        rows = [r for r in default_runs(results, result["dataset"]) if r.get("seed") == SEED]
        if rows:
            gaps.append((100 * (result["systems"]["default"]["test_accuracy"] - rows[0]["test"]["accuracy"]),
                         result["dataset"]))
    if not gaps:
        return ""
    largest = max(gaps, key=lambda gap: (abs(gap[0]), gap[1]))
    return (f" Against the defaults table's seed-0 runs, on the {len(gaps)} sets both ran: the "
            f"same test accuracy to the digit on {sum(abs(gap) < 0.005 for gap, _ in gaps)}, a mean difference of "
            f"{statistics.mean(gap for gap, _ in gaps):+.2f} points, the largest {largest[0]:+.2f} ({largest[1]}).")


def beside_student(results: list[dict]) -> list[str]:
    """The `--student` runs: a few-label student's int8 export against the default's, size and predict texts/s."""
    lines = []
    for result in of_kind_by_dataset(results, STUDENT_KIND):
        ours, student = result["systems"]["default"], result["systems"]["student"]
        lines.append(
            f"The few-label student on {result['dataset']} (`attentive train --few-labels ... --compact`, test "
            f"accuracy {100 * student['test_accuracy']:.1f}; `{result['command']}`), timed as above in one process "
            f"beside the default trained on the whole training split: int8 {student['int8_mb']:.2f} MB against "
            f"{ours['int8_mb']:.2f} MB; `predict` {student['predict_docs_per_s']:,.0f} texts/s against "
            f"{ours['predict_docs_per_s']:,.0f} "
            f"({student['predict_docs_per_s'] / ours['predict_docs_per_s']:.2f}×); one text's p50 "
            f"{student['predict_p50_ms']:.3f} ms against {ours['predict_p50_ms']:.3f} ms; on "
            f"{machine_short(result)}.")
    return ["", *lines] if lines else []


if __name__ == "__main__":
    raise SystemExit(main())
