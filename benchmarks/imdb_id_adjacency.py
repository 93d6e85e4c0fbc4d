"""Are IMDB's review ids numbered movie by movie? (benchmarks/notes.md, the IMDB paragraph of "Targets not reached".)

    python -m benchmarks.imdb_id_adjacency

aclImdb's README ties review id n to line n of a list of movie URLs (not in our copy); if that list runs movie by
movie, reviews of one movie sit at adjacent ids. Measured without movie ids: the Jaccard overlap of the capitalised
words (names, titles) of two training reviews with adjacent ids, against that of two reviews drawn at random, for
each label. Writes results/analysis/imdb-id-adjacency.json (a folder render.py does not read).
"""
from __future__ import annotations

import random
import re
import statistics

from attentive.data.paths import resolve_data_dir
from attentive.data.readers.imdb import read_imdb_with_ids
from benchmarks.common import RESULTS_DIR, write_result

CAPITALISED = re.compile(r"\b[A-Z][a-z]{3,}\b")
STEP, SAMPLES, SEED = 7, 1700, 0  # every STEP-th adjacent pair; as many random pairs


def jaccard(first: set[str], second: set[str]) -> float:
    return len(first & second) / max(1, len(first | second))


def overlaps(names: list[set[str]], rng: random.Random) -> dict:
    adjacent = [jaccard(names[i], names[i + 1]) for i in range(0, len(names) - 1, STEP)]
    drawn = [jaccard(names[rng.randrange(len(names))], names[rng.randrange(len(names))]) for _ in range(SAMPLES)]
    return {"adjacent_pairs": len(adjacent), "adjacent_jaccard": statistics.fmean(adjacent),
            "random_pairs": len(drawn), "random_jaccard": statistics.fmean(drawn)}


def main() -> None:
    examples, ids = read_imdb_with_ids(resolve_data_dir() / "imdb" / "imdb_train.jsonl.gz")
    rng = random.Random(SEED)
    by_label = {}
    for label in sorted({example.label for example in examples}):
        ordered = sorted((number, example.text) for number, example in zip(ids, examples) if example.label == label)
        by_label[label] = overlaps([set(CAPITALISED.findall(text)) for _, text in ordered], rng)
    path = write_result("imdb-id-adjacency", {"kind": "analysis", "dataset": "imdb", "split": "train", "step": STEP,
                                              "seed": SEED, "by_label": by_label}, RESULTS_DIR / "analysis")
    for label, numbers in by_label.items():
        print(f"{label}: adjacent {numbers['adjacent_jaccard']:.3f}, random {numbers['random_jaccard']:.3f}")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
