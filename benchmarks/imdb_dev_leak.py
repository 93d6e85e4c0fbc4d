"""How much does an IMDB dev set share with train, cut review by review or in blocks of ids? (benchmarks/notes.md,
"IMDB's dev split".)

    python -m benchmarks.imdb_dev_leak

aclImdb's test set holds other movies than its train set (README). A dev set should too, or it rewards memorising
names. Measured without movie ids: for each held-out review, the largest Jaccard overlap between its rare capitalised
words (names and titles: in under 1% of the training reviews) and those of any review left in train. The test
set is the reference: its movies are known to be disjoint from train's, so its overlaps are what no leak looks like.
Each cut is compared by the mean of that largest overlap and the share of held-out reviews whose closest training
review shares at least a quarter of their names. Writes results/analysis/imdb-dev-leak.json (not rendered).
"""
from __future__ import annotations

import random

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from attentive.data.paths import resolve_data_dir
from attentive.data.readers.imdb import read_imdb, read_imdb_train_dev
from attentive.data.splits import carve_dev
from benchmarks.common import RESULTS_DIR, write_result
from benchmarks.imdb_id_adjacency import CAPITALISED

NEAR = 0.25  # a held-out review "shares its movie" with train when its closest training review has this overlap
TEST_SAMPLE, SEED = 2500, 0
BLOCKS = (50, 100, 250)


def closest_overlaps(train: list[str], held_out: list[str]) -> np.ndarray:
    """For each held-out text, the largest Jaccard overlap of its rare capitalised words with any training text's."""
    names = CountVectorizer(token_pattern=CAPITALISED.pattern, lowercase=False, binary=True, max_df=0.01,
                            dtype=np.float32)
    x_train = names.fit_transform(train)
    x_held = names.transform(held_out)
    shared = (x_held @ x_train.T).toarray()
    union = np.asarray(x_held.sum(1)) + np.asarray(x_train.sum(1)).T - shared
    return (shared / np.maximum(union, 1)).max(axis=1)


def summary(train: list, held_out: list) -> dict:
    closest = closest_overlaps([ex.text for ex in train], [ex.text for ex in held_out])
    return {"reviews": len(held_out), "mean_closest_jaccard": round(float(closest.mean()), 4),
            "share_near": round(float((closest >= NEAR).mean()), 4)}


def main() -> None:
    path = resolve_data_dir() / "imdb" / "imdb_train.jsonl.gz"
    cuts = {"review by review": carve_dev(read_imdb(path), 0.1, 13)}
    for block in BLOCKS:
        splits = read_imdb_train_dev(path, seed=13, block=block)
        cuts[f"blocks of {block} ids"] = (splits["train"], splits["dev"])
    test = read_imdb(resolve_data_dir() / "imdb" / "imdb_test.jsonl.gz")
    reference_train = cuts["review by review"][0]
    measured = {name: summary(train, dev) for name, (train, dev) in cuts.items()}
    measured["test (other movies)"] = summary(reference_train, random.Random(SEED).sample(test, TEST_SAMPLE))
    path = write_result("imdb-dev-leak", {"kind": "analysis", "dataset": "imdb", "near": NEAR, "seed": SEED,
                                          "cuts": measured}, RESULTS_DIR / "analysis")
    for name, numbers in measured.items():
        print(f"{name:22s} mean closest {numbers['mean_closest_jaccard']:.3f}  "
              f"share >= {NEAR}: {numbers['share_near']:.3f}  ({numbers['reviews']} reviews)")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
