"""What `predict`'s top words by evidence cost (issue 45, item 4; benchmarks/notes.md, "`predict`'s top words by
evidence"): the shipped default's int8 export answering the test texts with its top five words by attention and by
the linearised evidence, and with `predict_proba`, beside TF-IDF + LR (C=10, fitted here on the train split), all in
this process, two threads, batches of 128, the systems' passes taken in turn (`interleaved_docs_per_second`).

    python -m benchmarks.evidence_speed --dataset sst2 [--shipped runs/shipped]

Times the seed-0 model `benchmarks.shipped` trained (SHIPPED/DATASET/default-s0). Writes
results/evidence-speed-DATASET.json, `"kind": "evidence_speed"`. Nothing else may run beside it.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import attentive
from attentive import runtime
from attentive.export import export
from benchmarks.baselines import logistic_regression, split_xy, tfidf_vectorizer
from benchmarks.common import commit_at_start, write_result
from benchmarks.deploy_speed import INTERLEAVED_PASSES, interleaved_docs_per_second


def texts_per_second(folder: Path, data) -> dict[str, float]:
    """Texts/s of each way of answering (see the module's docstring)."""
    train_texts, train_labels = split_xy(data, "train")
    texts, _ = split_xy(data, "test")
    vectorizer = tfidf_vectorizer()
    linear = logistic_regression(10.0, len(set(train_labels)), 0).fit(vectorizer.fit_transform(train_texts),
                                                                       train_labels)
    with tempfile.TemporaryDirectory() as scratch:
        model = runtime.load(export(attentive.load(folder, device="cpu"), Path(scratch) / "export", int8=True),
                             threads=2)
        return interleaved_docs_per_second({
            "predict_attention": lambda batch: model.predict(batch, top_words_by="attention"),
            "predict_evidence": lambda batch: model.predict(batch, top_words_by="evidence"),
            "predict_proba": model.predict_proba,
            "tfidf_lr": lambda batch: linear.predict_proba(vectorizer.transform(batch))}, texts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--shipped", type=Path, default=Path("runs/shipped"))
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.api.resolve_dataset(args.dataset)
    folder = args.shipped / data.name / "default-s0"
    if not (folder / "config.json").is_file():
        raise SystemExit(f"no trained default in {folder}: `python -m benchmarks.shipped --dataset {data.name} "
                         "--train-only` trains it")
    found = texts_per_second(folder, data)
    print(data.name, found, f"evidence/attention {found['predict_evidence'] / found['predict_attention']:.3f}")
    print(write_result(f"evidence-speed-{data.name}", {
        "kind": "evidence_speed", "dataset": data.name, "model": str(folder), "passes": INTERLEAVED_PASSES,
        "threads": 2, "docs_per_s": found}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
