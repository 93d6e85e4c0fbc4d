"""Where TF-IDF + LR's lead on long documents comes from (issue 46, item 3): the same logistic regression (C chosen on
dev, benchmarks/baselines.py) over the same word uni- and bigrams, weighted as TF-IDF weighs them and as the default's
n-gram channel does (attentive/models/wide.py: raw counts over the text's length, no idf, no hashing left out).

    python -m benchmarks.ngram_weighting --datasets newsgroups20 imdb r8

Weightings (scikit-learn's TfidfVectorizer, min_df 2, lowercase):
- `tfidf`: sublinear tf, idf, L2 norm (the baseline as it runs);
- `no_idf`: sublinear tf, L2 norm;
- `no_sublinear`: idf, L2 norm, raw counts;
- `channel`: raw counts over their sum (L1, no idf): what the n-gram channel's mean over tokens is.

If `channel` is far below `tfidf` while the LR is the same, the channel's weighting is what costs the default on long
documents; if they are level, the cost lies in joint training, its regularisation or the hashing.
Writes results/ngram-weighting.json (`"kind": "ngram_weighting"`): per dataset and weighting, dev and test accuracy
and the C dev chose.
"""
from __future__ import annotations

import argparse
import time

from attentive.api import resolve_dataset
from benchmarks.baselines import TFIDF_C_GRID, run_linear
from benchmarks.common import write_result

WEIGHTINGS = {"tfidf": {"sublinear_tf": True, "use_idf": True, "norm": "l2"},
              "no_idf": {"sublinear_tf": True, "use_idf": False, "norm": "l2"},
              "no_sublinear": {"sublinear_tf": False, "use_idf": True, "norm": "l2"},
              "channel": {"sublinear_tf": False, "use_idf": False, "norm": "l1"}}
# liblinear needs far larger C for L1-normalised rows (their entries are ~1/n, not ~1/sqrt(n))
GRIDS = {"channel": tuple(c * 64 for c in TFIDF_C_GRID)}


def weighted(dataset, name: str) -> dict:
    """Logistic regression over the uni- and bigrams weighted as WEIGHTINGS[name], C chosen on dev."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, strip_accents="unicode", lowercase=True,
                                 **WEIGHTINGS[name])

    def featurise(train_texts: list[str]):
        vectorizer.fit(train_texts)
        return vectorizer.transform

    began = time.perf_counter()
    result = run_linear(dataset, 0, featurise, WEIGHTINGS[name], GRIDS.get(name, TFIDF_C_GRID))
    return {"dev": round(result["dev"]["accuracy"], 4), "test": round(result["test"]["accuracy"], 4),
            "C": result["hyperparameters"]["C"], "seconds": round(time.perf_counter() - began, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["newsgroups20", "imdb", "r8"])
    parser.add_argument("--weightings", nargs="+", default=list(WEIGHTINGS), choices=list(WEIGHTINGS))
    args = parser.parse_args()
    found = {}
    for name in args.datasets:
        data = resolve_dataset(name)
        found[name] = {}
        for weighting in args.weightings:
            found[name][weighting] = weighted(data, weighting)
            print(name, weighting, found[name][weighting], flush=True)
    path = write_result("ngram-weighting", {"kind": "ngram_weighting", "datasets": found,
                                            "weightings": {w: WEIGHTINGS[w] for w in args.weightings}})
    print(path)


if __name__ == "__main__":
    main()
