"""A linear model fitted first, whose log-probabilities the attention model's are combined with: on trial (issue 46,
item 3; benchmarks/notes.md, "A linear model fitted first"), as an experiment outside the package.

Two weightings of the n-gram channel trained jointly with the attention model failed the rule (commits b6d2c6f,
e9804f6): the rows that move the logits fastest take the fit and R8 and the short opinion sets lose. Here the linear
model is not trained by the attention model's optimiser at all. It is fitted first and on its own, as TF-IDF + LR is:

- features: the model's own token ids (what the graph reads, so that an export could compute them), unigrams and
  bigrams hashed into the channel's 2^18 buckets, each occurrence weighted by its smoothed idf in the training texts
  (ln((1 + N) / (1 + df)) + 1), the text's vector scaled to unit length (round 2) or divided by its number of
  tokens (`--scaling length`, round 3: the form `wide.prior` folds into the channel's rows); raw counts, as the
  graph holds no counts to make them sublinear;
- a multinomial logistic regression (L2, lbfgs) for each C of a grid, fitted on train;
- the answer: log p_attention + alpha · log p_linear (a product of experts, Hinton 2002), C chosen on dev by the
  linear model's own accuracy (as the TF-IDF + LR peer chooses it) and alpha one number for every dataset, chosen
  by the weighted dev rule across the visible sets (the issue's "never per dataset"); alpha = 0 is the attention
  model alone.

A first round (commit 9cbf5ad) chose alpha per dataset on dev and scored it cross-fitted on dev halves; its files are
in results/superseded/9cbf5ad/ and its verdict in benchmarks/notes.md.

    python -m benchmarks.linear_prior --dataset D --seeds 0 1 2 [--scaling length] [--save-arrays DIR]
    python -m benchmarks.linear_prior --score [--scaling length]  # the rule's alpha and each set at it
    python -m benchmarks.linear_prior --score-arrays DIR --scaling length [--folds 5]  # the weight fitted on dev,
                                                                                      # cross-fitted

Writes results/linear-prior-D-sS.json (round 3: linear-prior-length-D-sS.json; `"kind": "linear_prior"`): the
attention model's (the default recipe, trained as benchmarks.run trains it) dev and test accuracy, the linear
model's alone (C chosen on dev), and the mix's dev and test accuracy at every alpha of the grid.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import attentive
from attentive.api import resolve_dataset
from attentive.training.prior import feature_counts, fitted_weight, length_scaled, smoothed_idf
from benchmarks.common import RESULTS_DIR, WEIGHTS, commit_at_start, write_result

# The length-scaled vectors are smaller (~1/n against ~1/sqrt n) and take a larger C; `wide.prior` kept 8 to 128 of
# this grid, the C chosen on every long and topic set here
C_GRIDS = {"unit": (2.0, 8.0, 32.0, 128.0), "length": (8.0, 32.0, 128.0, 512.0, 2048.0)}
ALPHA_GRID = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


SCALINGS = ("unit", "length")  # each text's vector: unit length, or divided by its number of tokens


def weighted(counts: sp.csr_matrix, idf: np.ndarray, tokens: np.ndarray, scaling: str = "unit") -> sp.csr_matrix:
    """Counts times idf, each row scaled to unit length (`unit`, as TF-IDF + LR scales it) or divided by the text's
    number of tokens (`length`, as the n-gram channel divides its rows' sum, and as `wide.prior` fits it: then the
    fitted weights, times idf, fold exactly into the channel's rows)."""
    if scaling == "length":
        return length_scaled(counts, idf, tokens)
    matrix = counts @ sp.diags(idf)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(1)).ravel())
    return sp.diags(1 / np.maximum(norms, 1e-12)) @ matrix


def linear_log_probabilities(model, data, scaling: str = "unit") -> dict[float, dict[str, np.ndarray]]:
    """For each C of the grid: the linear model's log-probabilities on dev and test, columns in the model's label
    order."""
    from sklearn.linear_model import LogisticRegression

    vocab, buckets = model.tokenizer.get_vocab_size(), model.recipe.wide.options["buckets"]  # the channel's own
    items = {split: model.encode_examples(data.splits[split]) for split in ("train", "dev", "test")}
    matrices = {split: feature_counts(found, vocab, buckets) for split, found in items.items()}
    tokens = {split: np.array([len(item.ids) for item in found]) for split, found in items.items()}
    idf = smoothed_idf(matrices["train"])
    seen = np.flatnonzero(matrices["train"].getnnz(0))  # a feature no training text holds has no weight to learn
    features = {split: weighted(matrix[:, seen], idf[seen], tokens[split], scaling)
                for split, matrix in matrices.items()}
    gold = [model.labels.index(ex.label) for ex in data.splits["train"]]
    found = {}
    for c in C_GRIDS[scaling]:
        fitted = LogisticRegression(C=c, max_iter=1000).fit(features["train"], gold)
        found[c] = {split: _in_label_order(log_probabilities(fitted, features[split]), fitted.classes_,
                                           len(model.labels)) for split in ("dev", "test")}
    return found


def log_probabilities(fitted, features) -> np.ndarray:
    """The fitted model's log-probabilities from its scores (scikit-learn's predict_log_proba takes the log of
    probabilities that underflow to 0 at a large C, giving -inf, and 0 · -inf is NaN at alpha 0)."""
    from scipy.special import log_softmax

    scores = fitted.decision_function(features)
    if scores.ndim == 1:  # the binary form: one score for the second class
        scores = np.stack([np.zeros_like(scores), scores], axis=1)
    return log_softmax(scores, axis=1)


def _in_label_order(values: np.ndarray, classes: np.ndarray, labels: int) -> np.ndarray:
    """Log-probabilities with one column per label of the model (a label no training text holds: -1e9)."""
    ordered = np.full((len(values), labels), -1e9)
    ordered[:, classes] = values
    return ordered


def run_one(data, seed: int, cache: dict, arrays: Path | None = None, scaling: str = "unit") -> dict:
    started = time.perf_counter()
    model = attentive.train(data, "default", None, overrides=[f"train.seed={seed}"], show_progress=False)
    deep = {split: np.log(np.clip(model.predict_proba([ex.text for ex in data.splits[split]]), 1e-30, None))
            for split in ("dev", "test")}
    gold = {split: np.array([model.labels.index(ex.label) for ex in data.splits[split]]) for split in ("dev", "test")}
    vocabulary = hashlib.sha256(json.dumps(sorted(model.tokenizer.get_vocab().items())).encode()).hexdigest()
    if vocabulary not in cache:  # the features depend on the tokenizer alone, not on the seed
        cache[vocabulary] = linear_log_probabilities(model, data, scaling)
    linear = cache[vocabulary]

    def accuracy(scores: np.ndarray, split: str) -> float:
        return float((scores.argmax(1) == gold[split]).mean())

    c = max(linear, key=lambda value: (accuracy(linear[value]["dev"], "dev"), -value))  # the LR's own choice
    if arrays is not None:  # each text's log-probabilities, gold label and length: other rules, scored offline
        arrays.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(arrays / f"{result_prefix(data.name, scaling)}-s{seed}.npz", **{
            f"{what}_{split}": value for split in ("dev", "test") for what, value in (
                ("default", deep[split]), ("linear", linear[c][split]), ("gold", gold[split]),
                ("tokens", np.array([len(item.ids) for item in model.encode_examples(data.splits[split])])))})
    return {
        "kind": "linear_prior", "recipe": "default", "dataset": data.name, "seed": seed, "scaling": scaling,
        "wall_time_s": round(time.perf_counter() - started, 1),
        "attention": {split: accuracy(deep[split], split) for split in ("dev", "test")},
        "linear": {"C": c, **{split: accuracy(linear[c][split], split) for split in ("dev", "test")},
                   "dev_by_C": {str(value): accuracy(found["dev"], "dev") for value, found in linear.items()}},
        "by_alpha": {str(alpha): {split: accuracy(deep[split] + alpha * linear[c][split], split)
                                  for split in ("dev", "test")} for alpha in ALPHA_GRID},
        "grids": {"C": list(linear), "alpha": list(ALPHA_GRID)},
    }


def result_prefix(dataset: str, scaling: str) -> str:
    """The round-2 files (unit length) keep their names; the length-scaled runs say so."""
    return f"linear-prior-{dataset}" if scaling == "unit" else f"linear-prior-{scaling}-{dataset}"


def score(results_dir=RESULTS_DIR, scaling: str = "unit") -> None:
    """The rule's choice over the files written (benchmarks/render_linear_prior.py computes it; BENCHMARKS.md shows
    it): the one alpha with the highest weighted mean dev accuracy, and each set at it against alpha 0."""
    from benchmarks.render_linear_prior import linear_prior_section

    results = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(results_dir.glob("*.json"))]
    print("\n".join(linear_prior_section(results, scaling)))


def score_arrays(folder: Path, scaling: str = "length", halves_seed: int = 0, results_dir=RESULTS_DIR,
                 folds: int = 2, tag: str | None = None) -> Path:
    """The weight `wide.prior` fits on dev (`attentive.training.prior.fitted_weight`: the ratio of a two-number
    log-loss stacker), scored cross-fitted (dev cut into `folds` seeded parts, each text scored at the weight fitted
    on the other parts: halves by default; more folds fit each weight on more of dev, nearer the weight fitted on all
    of it), beside weight 0, from the arrays `--save-arrays` wrote: each set's mean dev over its seeds, the weighted
    score, and test at the weight fitted on the whole of dev; printed, and written to
    results/linear-prior-fitted-SCALING[-Kfold][-TAG].json (`"kind": "linear_prior"`, no section of its own:
    benchmarks/notes.md cites it). (A one-number fit, alpha alone by log-loss, was scored so at commit 0da2b23: it
    stayed small everywhere.)"""
    rows, scores, sets = [], {"weight 0": 0.0, "fitted": 0.0}, {}
    for name in WEIGHTS:
        found = sorted(folder.glob(f"{result_prefix(name, scaling)}-s*.npz"))
        if not found:
            continue
        dev0, dev_fit, test0, test_fit, weights = [], [], [], [], []
        for path in found:
            arrays = np.load(path)
            deep, linear, gold = arrays["default_dev"], arrays["linear_dev"], arrays["gold_dev"]
            part = np.minimum(np.random.default_rng(halves_seed).permutation(len(gold)) // (len(gold) // folds),
                              folds - 1)  # with 2 folds: the first half of the permutation, then the rest
            correct = np.zeros(len(gold), dtype=bool)
            for scored in (part == k for k in range(folds)):
                weight = fitted_weight(deep[~scored], linear[~scored], gold[~scored])
                correct[scored] = (deep[scored] + weight * linear[scored]).argmax(1) == gold[scored]
            dev0.append(100 * float((deep.argmax(1) == gold).mean()))
            dev_fit.append(100 * float(correct.mean()))
            weight = fitted_weight(deep, linear, gold)
            weights.append(weight)
            test_deep, test_linear, test_gold = arrays["default_test"], arrays["linear_test"], arrays["gold_test"]
            test0.append(100 * float((test_deep.argmax(1) == test_gold).mean()))
            test_fit.append(100 * float(((test_deep + weight * test_linear).argmax(1) == test_gold).mean()))
        found_set = sets[name] = {
            "seeds": len(found), "weight": float(np.mean(weights)), "dev_weight_0": float(np.mean(dev0)),
            "dev_cross_fitted": float(np.mean(dev_fit)), "spread": float(max(np.std(dev0), np.std(dev_fit))),
            "test_weight_0": float(np.mean(test0)), "test_fitted": float(np.mean(test_fit))}
        scores["weight 0"] += WEIGHTS[name] * found_set["dev_weight_0"]
        scores["fitted"] += WEIGHTS[name] * found_set["dev_cross_fitted"]
        rows.append(f"| {name} | {len(found)} | " + " | ".join(f"{value:.2f}" for key, value in found_set.items()
                                                              if key != "seeds") + " |")
    print("| set | seeds | weight fitted on dev | dev, weight 0 | dev, cross-fitted | spread | test, weight 0 | "
          "test, fitted |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows))
    print(f"weighted dev: weight 0 {scores['weight 0']:.2f}, fitted {scores['fitted']:.2f}")
    return write_result(f"linear-prior-fitted-{scaling}" + (f"-{folds}fold" if folds != 2 else "")
                        + (f"-{tag}" if tag else ""), {
        "kind": "linear_prior", "scaling": scaling, "halves_seed": halves_seed, "folds": folds, "arrays": sorted(
            path.name for path in folder.glob("*.npz")), "sets": sets,
        "weighted_dev": {key: float(value) for key, value in scores.items()}}, results_dir)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument("--score", action="store_true")
    parser.add_argument("--scaling", choices=SCALINGS, default="unit",
                        help="each text's vector: unit length (round 2), or divided by its tokens (folds into the "
                             "n-gram channel)")
    parser.add_argument("--save-arrays", type=Path, default=None, metavar="DIR",
                        help="also write each run's per-text log-probabilities, gold labels and lengths (.npz)")
    parser.add_argument("--score-arrays", type=Path, default=None, metavar="DIR",
                        help="score the weight wide.prior fits on dev, cross-fitted, from the arrays in DIR")
    parser.add_argument("--folds", type=int, default=2, help="--score-arrays: dev cut into this many parts")
    parser.add_argument("--tag", default=None, help="--score-arrays: names the result file apart (other seeds' arrays)")
    args = parser.parse_args(argv)
    if args.score_arrays:
        print(score_arrays(args.score_arrays, args.scaling, results_dir=args.results_dir, folds=args.folds,
                           tag=args.tag))
        return 0
    if args.score:
        score(args.results_dir, args.scaling)
        return 0
    commit_at_start()
    data, cache = resolve_dataset(args.dataset), {}
    for seed in args.seeds:
        payload = run_one(data, seed, cache, args.save_arrays, args.scaling)
        path = write_result(f"{result_prefix(data.name, args.scaling)}-s{seed}", payload, args.results_dir)
        print(f"{data.name} s{seed}: attention dev {payload['attention']['dev']:.4f} test "
              f"{payload['attention']['test']:.4f} | linear (C {payload['linear']['C']}) test "
              f"{payload['linear']['test']:.4f} | dev by alpha "
              f"{ {alpha: round(v['dev'], 4) for alpha, v in payload['by_alpha'].items()} } "
              f"({payload['wall_time_s']} s) -> {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
