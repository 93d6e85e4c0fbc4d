"""The appendix's "Accuracy by length" section (issue 46, item 1; benchmarks/APPENDIX.md, BENCHMARKS.md being at
its 60 KB): on the long-document sets, test accuracy by the length of the test text in words, for our models and the
peers, from the `by_length` breakdown every result file of `python -m benchmarks.run` and `python -m
benchmarks.baselines` carries since it was added (attentive.answer.length: the quartiles of the test texts' lengths,
and the texts up to and over their mean length, as the LAMA paper splits YelpL). Older result files without it are
not shown; a system's cell is its mean over the seeds that have it.
"""
from __future__ import annotations

from collections import defaultdict

from benchmarks.formatting import fmt_mean_std
from benchmarks.results_io import model_name

TITLE = "Accuracy by length on the long-document sets"
DATASETS = {"r8": "R8", "imdb": "IMDB", "news": "News", "newsgroups20": "20 Newsgroups"}
SYSTEMS = [  # (label, the result files' kind, their recipe or baseline model, the variants that count)
    ("default", "model", "default", ("defaults",)),
    ("opinion", "model", "opinion", (None, "defaults")),
    ("TF-IDF + LR", "baseline", "tfidf_lr", None),
    ("fastText", "baseline", "fasttext", None),
    ("model2vec", "baseline", "model2vec", None),
]
BUCKETS = ("Q1", "Q2", "Q3", "Q4", "<= mean", "> mean")


def buckets_of(by_length: dict) -> dict[str, dict]:
    """One run's breakdown as {bucket: row}, the halves named `<= mean` and `> mean` (their names carry the mean)."""
    rows = {row["bucket"]: row for row in by_length["quartiles"]}
    for row in by_length["mean"]:
        rows["<= mean" if row["bucket"].startswith("<=") else "> mean"] = row
    return rows


def measured(results: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """{dataset: {system label: [each seed's buckets]}} for the results that have the breakdown."""
    found: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        test = result.get("test")
        if result.get("dataset") not in DATASETS or not isinstance(test, dict) or not test.get("by_length"):
            continue
        for label, kind, name, variants in SYSTEMS:
            if result.get("kind") == kind and model_name(result) == name and (
                    variants is None or result.get("variant") in variants):
                found[result["dataset"]][label].append(buckets_of(test["by_length"]))
    return found


def by_length_section(results: list[dict]) -> list[str]:
    """The section's lines, or [] where no result has the breakdown on these sets."""
    found = measured(results)
    if not found:
        return []
    lines = [f"## {TITLE}", "",
             "Test accuracy (%) by the test text's length in words: the quartiles Q1-Q4 of the test texts' lengths "
             "(word ranges in each set's first row), and the texts up to and over their mean length, as the LAMA "
             "paper splits YelpL; mean ± std over the seeds.", "",
             "| set | system | seeds | " + " | ".join(BUCKETS) + " |", "| --- | --- |" + " ---: |" * (len(BUCKETS) + 1)]
    for dataset, name in DATASETS.items():
        if dataset not in found:
            continue
        first = next(iter(found[dataset].values()))[0]
        ranges = [f"{first[b]['min_words']}-{first[b]['max_words']}" if b in first else "" for b in BUCKETS]
        lines.append(f"| **{name}** | (words) | | " + " | ".join(ranges) + " |")
        for label, *_ in SYSTEMS:
            runs = found[dataset].get(label)
            if runs:
                shown = [fmt_mean_std([run[b]["accuracy"] for run in runs if b in run]) for b in BUCKETS]
                lines.append(f"| {name} | {label} | {len(runs)} | " + " | ".join(shown) + " |")
    return lines + [""]
