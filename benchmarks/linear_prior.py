"""A linear model fitted first, whose log-probabilities the attention model's are combined with: on trial (issue 46,
item 3; benchmarks/notes.md, "A linear model fitted first"), as an experiment outside the package.

Two weightings of the n-gram channel trained jointly with the attention model failed the rule (commits b6d2c6f,
e9804f6): the rows that move the logits fastest take the fit and R8 and the short opinion sets lose. Here the linear
model is not trained by the attention model's optimiser at all. It is fitted first and on its own, as TF-IDF + LR is:

- features: the model's own token ids (what the graph reads, so that an export could compute them), unigrams and
  bigrams hashed into the channel's 2^18 buckets, each occurrence weighted by its smoothed idf in the training texts
  (ln((1 + N) / (1 + df)) + 1), the text's vector scaled to unit length (raw counts: the graph holds no counts to
  make them sublinear);
- a multinomial logistic regression (L2, lbfgs) for each C of a grid, fitted on train;
- the answer: log p_attention + alpha · log p_linear (a product of experts, Hinton 2002), C and alpha chosen on dev;
  alpha = 0 is the attention model alone, so a dataset where the linear model does not help can choose it away.

Choosing alpha on dev makes dev accuracy a biased score of the mix, so the rule scores it cross-fitted: dev cut in
two seeded halves, (C, alpha) chosen on each half and scored on the other, the two held-out halves' accuracy summed
(`held_out_dev`), beside the attention model's accuracy on the same texts. The mix reported on test is the one
chosen on the whole of dev.

    python -m benchmarks.linear_prior --dataset D --seeds 0 1 2
    python -m benchmarks.linear_prior --score   # the rule's weighted score over the files written

Writes results/linear-prior-D-sS.json (`"kind": "linear_prior"`): the attention model's (the default recipe, trained
as benchmarks.run trains it) dev and test accuracy, the linear model's alone (C chosen on dev), the mix's, and the
cross-fitted dev accuracies.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

import attentive
from attentive.api import resolve_dataset
from benchmarks.common import RESULTS_DIR, commit_at_start, write_result

HASH_MULTIPLIER, BUCKETS = 1_000_003, 2**18  # as attentive/models/wide.py hashes bigrams
C_GRID = (2.0, 8.0, 32.0, 128.0)
ALPHA_GRID = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
WEIGHTS = {**dict.fromkeys(("sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013", "imdb"),
                           1 / 14),
           **dict.fromkeys(("r8", "news", "newsgroups20", "banking77"), 1 / 8)}  # the compact rule's weights


def counts(items, vocab: int) -> sp.csr_matrix:
    """Texts x (vocab + buckets): each text's unigram ids and hashed bigrams, counted."""
    rows, columns = [], []
    for row, item in enumerate(items):
        ids = np.asarray(item.ids, dtype=np.int64)
        bigrams = vocab + (ids[:-1] * HASH_MULTIPLIER + ids[1:]) % BUCKETS
        found = np.concatenate([ids, bigrams])
        rows.append(np.full(len(found), row))
        columns.append(found)
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    matrix = sp.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(items), vocab + BUCKETS))
    matrix.sum_duplicates()
    return matrix


def weighted(matrix: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Counts times idf, each row scaled to unit length."""
    matrix = matrix @ sp.diags(idf)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(1)).ravel())
    return sp.diags(1 / np.maximum(norms, 1e-12)) @ matrix


def linear_log_probabilities(model, data) -> dict[float, dict[str, np.ndarray]]:
    """For each C of the grid: the linear model's log-probabilities on dev and test, columns in the model's label
    order."""
    from sklearn.linear_model import LogisticRegression

    vocab = model.tokenizer.get_vocab_size()
    matrices = {split: counts(model.encode_examples(data.splits[split]), vocab) for split in ("train", "dev", "test")}
    df = np.asarray((matrices["train"] > 0).sum(0)).ravel()
    idf = np.log((1 + matrices["train"].shape[0]) / (1 + df)) + 1
    seen = np.flatnonzero(df)  # a feature no training text holds has no weight to learn
    features = {split: weighted(matrix[:, seen], idf[seen]) for split, matrix in matrices.items()}
    gold = [model.labels.index(ex.label) for ex in data.splits["train"]]
    found = {}
    for c in C_GRID:
        fitted = LogisticRegression(C=c, max_iter=1000).fit(features["train"], gold)
        found[c] = {split: _in_label_order(fitted.predict_log_proba(features[split]), fitted.classes_,
                                           len(model.labels)) for split in ("dev", "test")}
    return found


def _in_label_order(values: np.ndarray, classes: np.ndarray, labels: int) -> np.ndarray:
    """Log-probabilities with one column per label of the model (a label no training text holds: -1e9)."""
    ordered = np.full((len(values), labels), -1e9)
    ordered[:, classes] = values
    return ordered


def choose(deep: np.ndarray, linear: dict, gold: np.ndarray, rows: np.ndarray) -> tuple[float, float]:
    """(C, alpha) with the highest accuracy of the mix on `rows` of dev; ties go to the smaller alpha, then C."""
    best, chosen = -1, (C_GRID[0], 0.0)
    for alpha in ALPHA_GRID:
        for c in C_GRID:
            correct = int(((deep[rows] + alpha * linear[c]["dev"][rows]).argmax(1) == gold[rows]).sum())
            if correct > best:
                best, chosen = correct, (c, alpha)
    return chosen


def halves(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng(seed).permutation(count)
    return np.sort(order[: count // 2]), np.sort(order[count // 2:])


def run_one(data, seed: int, cache: dict) -> dict:
    started = time.perf_counter()
    model = attentive.train(data, "default", None, overrides=[f"train.seed={seed}"], show_progress=False)
    deep = {split: np.log(np.clip(model.predict_proba([ex.text for ex in data.splits[split]]), 1e-30, None))
            for split in ("dev", "test")}
    gold = {split: np.array([model.labels.index(ex.label) for ex in data.splits[split]]) for split in ("dev", "test")}
    vocabulary = hashlib.sha256(json.dumps(sorted(model.tokenizer.get_vocab().items())).encode()).hexdigest()
    if vocabulary not in cache:  # the features depend on the tokenizer alone, not on the seed
        cache[vocabulary] = linear_log_probabilities(model, data)
    linear = cache[vocabulary]

    def accuracy(scores: np.ndarray, split: str) -> float:
        return float((scores.argmax(1) == gold[split]).mean())

    everything = np.arange(len(gold["dev"]))
    c, alpha = choose(deep["dev"], linear, gold["dev"], everything)
    c_alone = max(C_GRID, key=lambda value: (accuracy(linear[value]["dev"], "dev"), -value))
    first, second = halves(len(everything))
    held_correct = 0
    for chosen_on, scored_on in ((first, second), (second, first)):
        c_half, alpha_half = choose(deep["dev"], linear, gold["dev"], chosen_on)
        mixed = deep["dev"][scored_on] + alpha_half * linear[c_half]["dev"][scored_on]
        held_correct += int((mixed.argmax(1) == gold["dev"][scored_on]).sum())
    return {
        "kind": "linear_prior", "recipe": "default", "dataset": data.name, "seed": seed,
        "wall_time_s": round(time.perf_counter() - started, 1),
        "attention": {split: accuracy(deep[split], split) for split in ("dev", "test")},
        "linear": {"C": c_alone, **{split: accuracy(linear[c_alone][split], split) for split in ("dev", "test")}},
        "mix": {"C": c, "alpha": alpha,
                **{split: accuracy(deep[split] + alpha * linear[c][split], split) for split in ("dev", "test")}},
        "held_out_dev": {"attention": accuracy(deep["dev"], "dev"), "mix": held_correct / len(everything)},
        "grids": {"C": list(C_GRID), "alpha": list(ALPHA_GRID)},
    }


def score(results_dir=RESULTS_DIR) -> None:
    """The rule's score: the weighted mean over datasets of the seeds' mean cross-fitted dev accuracy, the attention
    model's beside the mix's, and each set's difference against the larger seed spread."""
    import statistics

    by_set: dict[str, list[dict]] = {}
    for path in sorted(results_dir.glob("linear-prior-*.json")):
        result = json.loads(path.read_text(encoding="utf-8"))
        by_set.setdefault(result["dataset"], []).append(result)
    totals = {"attention": 0.0, "mix": 0.0}
    for name, runs in sorted(by_set.items()):
        values = {system: [100 * run["held_out_dev"][system] for run in runs] for system in totals}
        spread = max(statistics.pstdev(v) if len(v) > 1 else 0.0 for v in values.values())
        means = {system: statistics.fmean(v) for system, v in values.items()}
        tests = {system: statistics.fmean(100 * run[key]["test"] for run in runs)
                 for system, key in (("attention", "attention"), ("mix", "mix"))}
        print(f"{name:16s} n={len(runs)} dev attention {means['attention']:.2f} mix {means['mix']:.2f} "
              f"({means['mix'] - means['attention']:+.2f}, spread {spread:.2f}) | test attention "
              f"{tests['attention']:.2f} mix {tests['mix']:.2f} linear "
              f"{statistics.fmean(100 * run['linear']['test'] for run in runs):.2f} | alpha "
              f"{[run['mix']['alpha'] for run in runs]}")
        for system in totals:
            totals[system] += WEIGHTS.get(name, 0.0) * means[system]
    print(f"score (sets present): attention {totals['attention']:.2f}, mix {totals['mix']:.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--results-dir", type=lambda text: __import__("pathlib").Path(text), default=RESULTS_DIR)
    parser.add_argument("--score", action="store_true")
    args = parser.parse_args(argv)
    if args.score:
        score(args.results_dir)
        return 0
    commit_at_start()
    data, cache = resolve_dataset(args.dataset), {}
    for seed in args.seeds:
        payload = run_one(data, seed, cache)
        path = write_result(f"linear-prior-{data.name}-s{seed}", payload, args.results_dir)
        print(f"{data.name} s{seed}: attention dev {payload['attention']['dev']:.4f} test "
              f"{payload['attention']['test']:.4f} | linear test {payload['linear']['test']:.4f} | mix (C "
              f"{payload['mix']['C']}, alpha {payload['mix']['alpha']}) dev {payload['mix']['dev']:.4f} test "
              f"{payload['mix']['test']:.4f} | held-out dev {payload['held_out_dev']['attention']:.4f} -> "
              f"{payload['held_out_dev']['mix']:.4f} ({payload['wall_time_s']} s) -> {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
