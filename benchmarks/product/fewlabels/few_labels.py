"""Few labels, side by side on the same draws: k labelled texts a class drawn (seeded) from a set's training split, the
rest of the split (up to --pool texts, labels dropped) as the unlabelled pool, the full test split to score.

    python -m benchmarks.product.fewlabels.few_labels --dataset sst2 --per-class 16 --draws 3

Per draw, each of: TF-IDF + LR on the k-a-class texts (scikit-learn, C=1, no dev to tune on); attentive's default
trained on them alone (`attentive.train`, the call a user makes, its 10% dev carved from them); model2vec, the peer a
user who wants a small fast classifier picks (benchmarks/harness/model2vec_peer.py: its static model distilled from
MiniLM, PCA 256, with its own classifier, `StaticModelForClassification.fit` with its defaults: one hidden layer of
512, learning rate 1e-3, its automatic batch size, early stopping with patience 5; given no dev, it holds out its own
stratified tenth of the k-a-class texts, at least one, drawn with the draw's seed, to stop on; nothing else is tuned,
never on test); and the few-label path
(`train --few-labels`: the teacher, which is SetFit run by the setfit package with its default settings over the
MiniLM package, then the compact default distilled from it on the pool, exported int8). One result file a method and
draw (kind "few_labels"): test accuracy, training seconds on this machine, and for the student its int8 export's size
and its agreement with the teacher on the held-out pool texts. The draws' texts are the same for every method.
`few_labels_section` renders BENCHMARKS.md's "Few labels" from them (mean ± std over the draws).
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import attentive
from attentive import Dataset
from attentive.fewlabels import FewLabelRun, TeacherSettings, train_few_labels
from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.harness.formatting import fmt_mean_std, md_head, md_row


def draw(data: Dataset, per_class: int, seed: int, pool_size: int) -> tuple[list, list[str]]:
    """(the k-a-class labelled examples, the pool's texts) of one seeded draw."""
    rng = random.Random(seed)
    train = list(data.splits["train"])
    labelled = []
    for label in data.labels:
        rows = [ex for ex in train if ex.label == label]
        labelled += rng.sample(rows, min(per_class, len(rows)))
    chosen = {id(ex) for ex in labelled}
    pool = [ex.text for ex in train if id(ex) not in chosen]
    rng.shuffle(pool)
    return labelled, pool[:pool_size]


def tfidf_lr(labelled, test) -> tuple[float, float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    began = time.perf_counter()
    vectors = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    model = LogisticRegression(C=1.0, max_iter=2000).fit(vectors.fit_transform([ex.text for ex in labelled]),
                                                          [ex.label for ex in labelled])
    seconds = time.perf_counter() - began
    predicted = model.predict(vectors.transform([ex.text for ex in test]))
    return float(np.mean([p == ex.label for p, ex in zip(predicted, test)])), seconds


def default_alone(labelled, test, seed: int) -> tuple[float, float]:
    began = time.perf_counter()
    model = attentive.train(texts=[ex.text for ex in labelled], labels=[ex.label for ex in labelled],
                            overrides=[f"train.seed={seed}"], show_progress=False)
    seconds = time.perf_counter() - began
    data = Dataset("test", {"train": [], "dev": [], "test": list(test)}, sorted({ex.label for ex in labelled}))
    return float(model.evaluate(data, "test")["accuracy"]), seconds


def model2vec_alone(labelled, test, labels: list[str], seed: int) -> tuple[float, float]:
    from benchmarks.harness import model2vec_peer

    model2vec_peer.static_model_folder()  # distilled once and cached: not this run's training
    began = time.perf_counter()
    classifier = model2vec_peer.fit_classifier([ex.text for ex in labelled], [ex.label for ex in labelled], None,
                                               None, seed)
    seconds = time.perf_counter() - began
    found = model2vec_peer.probabilities(classifier, [ex.text for ex in test], labels).argmax(axis=1)
    return float(np.mean([labels[int(i)] == ex.label for i, ex in zip(found, test)])), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--per-class", type=int, nargs="+", default=[16])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--first-draw", type=int, default=0)
    parser.add_argument("--pool", type=int, default=2000)
    parser.add_argument("--methods", nargs="+", default=["tfidf_lr", "default", "model2vec", "few_labels"])
    parser.add_argument("--pool-copies", type=int, default=FewLabelRun.pool_copies,
                        help="augmented copies of each transfer text (train --few-labels' own number by default)")
    parser.add_argument("--variant", default="", help="a suffix of the result names: runs not to average together")
    args = parser.parse_args()
    commit_at_start()
    data = attentive.load_dataset(args.dataset)
    test = list(data.splits["test"])
    for k in args.per_class:
        for seed in range(args.first_draw, args.first_draw + args.draws):
            labelled, pool = draw(data, k, seed, args.pool)
            base = {"kind": "few_labels", "dataset": args.dataset, "per_class": k, "seed": seed,
                    "variant": args.variant, "labelled": len(labelled), "pool": len(pool), "test_n": len(test),
                    "pool_copies": args.pool_copies}
            if "tfidf_lr" in args.methods:
                accuracy, seconds = tfidf_lr(labelled, test)
                write_result(f"few-tfidf_lr-{args.dataset}-k{k}{args.variant}-s{seed}",
                             {**base, "method": "tfidf_lr", "test_accuracy": accuracy, "train_seconds": seconds})
            if "default" in args.methods:
                accuracy, seconds = default_alone(labelled, test, seed)
                write_result(f"few-default-{args.dataset}-k{k}{args.variant}-s{seed}",
                             {**base, "method": "default", "test_accuracy": accuracy, "train_seconds": seconds})
            if "model2vec" in args.methods:
                accuracy, seconds = model2vec_alone(labelled, test, list(data.labels), seed)
                write_result(f"few-model2vec-{args.dataset}-k{k}{args.variant}-s{seed}",
                             {**base, "method": "model2vec", "test_accuracy": accuracy, "train_seconds": seconds})
            if "few_labels" in args.methods:
                with tempfile.TemporaryDirectory(prefix="few-labels-") as scratch:
                    out = Path(scratch) / "m"
                    subset = Dataset(args.dataset, {"train": labelled, "dev": [], "test": test}, list(data.labels))
                    began = time.perf_counter()
                    result = train_few_labels(subset, pool, FewLabelRun(out, compact=True,
                                                                         teacher=TeacherSettings(seed=seed),
                                                                         pool_copies=args.pool_copies,
                                                                         show_progress=False))
                    seconds = time.perf_counter() - began
                    size = sum(path.stat().st_size for path in result.exported.iterdir()
                               if path.name in ("model.int8.onnx", "tokenizer.json", "config.json"))
                write_result(f"few-teacher-{args.dataset}-k{k}{args.variant}-s{seed}",
                             {**base, "method": "setfit_teacher", "test_accuracy": result.test["teacher"]})
                write_result(f"few-student-{args.dataset}-k{k}{args.variant}-s{seed}",
                             {**base, "method": "student", "test_accuracy": result.test["student"],
                              "train_seconds": seconds, "agreement": result.agreement,
                              "held_out": result.held_out, "int8_bytes": size})



METHODS = [("tfidf_lr", "TF-IDF + LR"), ("default", "default, labels alone"), ("model2vec", "model2vec"),
           ("setfit_teacher", "SetFit teacher"), ("student", "compact student")]


def _pct(values: list[float]) -> str:
    return fmt_mean_std(values, 1) + (" (one draw)" if len(values) == 1 else "")


def _set(run: dict) -> str:
    """The table's set column: the dataset, and the variant where the runs have one."""
    return run["dataset"] + (f" ({run['variant'].lstrip('-')})" if run.get("variant") else "")


def pool_copies(run: dict) -> int:
    """The augmented copies of each pool text the run's teacher answered: as recorded, else as its command gave
    them; runs that record neither were made when the pool had no copies."""
    if "pool_copies" in run:
        return run["pool_copies"]
    given = re.search(r"--pool-copies[ =](\d+)", run.get("command", ""))
    return int(given.group(1)) if given else 0


STUDENT_BOUND = 2.0  # the bound: the student within this many points of its teacher's test accuracy


def gaps_to_teacher(students: list[dict], teachers: list[dict]) -> list[float]:
    """The student's test accuracy minus its own teacher's (points), draw by draw where both ran."""
    taught = {run["seed"]: run["test_accuracy"] for run in teachers}
    return [100 * (run["test_accuracy"] - taught[run["seed"]]) for run in students if run["seed"] in taught]


def student_minus_teacher(students: list[dict], teachers: list[dict]) -> str:
    """The student's test accuracy minus its own teacher's, paired by draw: mean and standard error (points)."""
    gaps = gaps_to_teacher(students, teachers)
    if len(gaps) < 2:
        return f"{gaps[0]:+.1f} (one draw)" if gaps else "—"
    return f"{statistics.mean(gaps):+.1f} ± {statistics.stdev(gaps) / len(gaps) ** 0.5:.1f}"


def draws_cell(counts: dict[str, int]) -> str:
    """The draws a row's means are over: the most any method ran, and the methods that ran fewer (but some), named."""
    most = max(counts.values())
    fewer = [f"{name} {n}" for name, n in counts.items() if 0 < n < most]
    return f"{most}" + (f" ({', '.join(fewer)})" if fewer else "")


def few_labels_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without a few-label result)."""
    runs = [r for r in results if r.get("kind") == "few_labels"]
    if not runs:
        return []
    cells: dict[tuple, list[dict]] = {}
    for run in runs:
        cells.setdefault((_set(run), (run["per_class"], run.get("pool"), pool_copies(run)), run["method"]),
                         []).append(run)
    keys = sorted({(_set(run), (run["per_class"], run.get("pool"), pool_copies(run))) for run in runs})
    first = runs[0]
    lines = ["## Few labels", "",
             "k labelled texts a class drawn (seeded) from the training split, the rest of it (the pool column: how "
             "many of its texts, labels dropped) as the unlabelled pool, the full test split scored; the same draws "
             "for every method. "
             "The SetFit teacher is the setfit package with its default settings over the MiniLM package, as "
             "`attentive train --few-labels` trains it; model2vec is its static model distilled from the same MiniLM "
             "with its own classifier at its default settings, stopping early on its own tenth of the labelled texts; "
             "the compact student is the default distilled from it on the "
             "pool (with the copies column's augmented copies of each pool text, `train --few-labels` making 2) and "
             "exported int8. Test accuracy (%), mean ± std over the draws; training seconds on this "
             f"machine (`{first['command']}`, commit {first['git_commit']}).", "",
             *md_head(["set", "k a class", "pool", "copies", "draws", *(name for _, name in METHODS),
                       "student − teacher (± SE)", "student agrees with teacher", "student s", "student int8 MB"],
                      "l" + "r" * (8 + len(METHODS)))]
    for dataset, k in keys:
        row = [dataset, str(k[0]), f"{k[1]:,}", str(k[2]), draws_cell({name: len(cells.get((dataset, k, method), []))
                                                                        for method, name in METHODS})]
        row += [_pct([r["test_accuracy"] for r in cells.get((dataset, k, method), [])]) for method, _ in METHODS]
        students = cells.get((dataset, k, "student"), [])
        row.append(student_minus_teacher(students, cells.get((dataset, k, "setfit_teacher"), [])))
        row.append(_pct([r["agreement"] for r in students]))
        row.append(f"{statistics.mean(r['train_seconds'] for r in students):.0f}" if students else "—")
        row.append(f"{statistics.mean(r['int8_bytes'] for r in students) / 1e6:.2f}" if students else "—")
        lines.append(md_row(row))
    return lines + ["", *bounds(keys, cells), ""]


def bounds(keys: list[tuple], cells: dict[tuple, list[dict]]) -> list[str]:
    """The issue's two bounds on the student, over the rows where they can be read: within STUDENT_BOUND points of
    its teacher (the mean paired gap), and above TF-IDF + LR, model2vec and the default on the labels alone."""
    gaps = {key: gaps_to_teacher(cells.get((*key, "student"), []), cells.get((*key, "setfit_teacher"), []))
            for key in keys}
    gaps = {key: statistics.mean(found) for key, found in gaps.items() if found}
    if not gaps:
        return []
    met = [key for key, gap in gaps.items() if gap >= -STUDENT_BOUND]
    nearest = max(gaps, key=gaps.get)
    said = [f"The student within {STUDENT_BOUND:.0f} points of its teacher (the mean paired gap): "
            f"{'met' if met else 'not reached'} on {len(met)} of {len(gaps)} rows; the nearest, {nearest[0]} at "
            f"{nearest[1][0]} a class, {gaps[nearest]:+.1f}."]
    peers = [name for name, _ in METHODS[:3]]
    full = [key for key in gaps if all(cells.get((*key, method)) for method in peers)]
    if full:
        above = [key for key in full if statistics.mean(r["test_accuracy"] for r in cells[(*key, "student")]) >
                 max(statistics.mean(r["test_accuracy"] for r in cells[(*key, method)]) for method in peers)]
        said.append("")
        said.append(f"The student above TF-IDF + LR, model2vec and the default on the labels alone (means): on "
                    f"{len(above)} of the {len(full)} rows where all three ran.")
    return said


if __name__ == "__main__":
    main()
