"""BENCHMARKS.md's defaults table, right after the summary: the default path (`attentive train` with no recipe and no
--set) on every visible single-text dataset, beside the recipes `documents` and `opinion`, TF-IDF + LR, fastText,
model2vec and the fine-tuned MiniLM where they were run (issues 15, 45 and 46).

Rows come from result files whose `variant` is `defaults` (benchmarks/product/accuracy/reproduce_defaults.sh).
"""
from __future__ import annotations

import statistics

from benchmarks.harness.formatting import fmt_mean_std, fmt_seconds
from benchmarks.harness.results_io import DEFAULTS_DATASETS as DATASETS
from benchmarks.harness.results_io import METRICS, is_cpu_run, mean, runs_named

DEFAULT_RECIPE = "default"
OPINION_RECIPE = "opinion"  # the default until commit a798496 (2026-11-27): its runs are the `opinion` column
DOCUMENTS_RECIPE = "documents"  # the default with `wide.prior` (issue 46): the same graph, so the same speed
WITHIN = 0.5  # issue 45's operating point: "the fastest within 0.5 of the best peer"
BASELINES = ("tfidf_lr", "fasttext", "model2vec")
# Aspect and pair data: the row's label, the runs (model name, variant), the n-gram baseline run on the same data, and
# the issue's target (None: at or above that baseline). Lin et al.'s gated encoder is the paper's own pair design,
# with its factors normalised and started alike (benchmarks/DECISIONS.md, the SICK note); its row shows the variant of
# that family with the best mean dev accuracy over at least 3 seeds (GATED's variant None: chosen in gated_variant).
GATED_FAMILY = "gated-normalised-same-glove"
GATED = ("lama_pair", None)
OTHER_ROWS = (("semeval14_category", "default_aspect", (DEFAULT_RECIPE, "defaults"), "tfidf_lr", 0.800),
              ("semeval14_term", "default_aspect_terms", (DEFAULT_RECIPE, "defaults"), "tfidf_lr", None),
              ("sick", "default_pair", (DEFAULT_RECIPE, "defaults"), "pair_bow_lr", 0.840),
              ("sick", "Lin et al.'s gated encoder (lama_pair)", GATED, "pair_bow_lr", None))


def gated_variant(results: list[dict]) -> str:
    """The variant of the gated-encoder family (GATED_FAMILY, or it with more options) with the best mean dev
    accuracy on SICK over at least 3 seeds; the family's name itself when none has."""
    groups: dict[str, list[float]] = {}
    for r in runs_named(results, "sick", GATED[0]):
        variant = r.get("variant") or ""
        if variant == GATED_FAMILY or variant.startswith(GATED_FAMILY + "-"):
            groups.setdefault(variant, []).append(r["dev"]["accuracy"])
    complete = {variant: statistics.fmean(dev) for variant, dev in groups.items() if len(dev) >= 3}
    return max(complete, key=complete.get, default=GATED_FAMILY)


def _minilm(results: list[dict], dataset: str) -> list[float]:
    """The fine-tuned MiniLM group with the most seeds on this dataset (its variants differ in length limits)."""
    groups: dict[str, list[dict]] = {}
    for r in runs_named(results, dataset, "minilm"):
        groups.setdefault(r.get("variant") or "", []).append(r)
    return METRICS["test_accuracy"](max(groups.values(), key=len, default=[]))


def _with_count(values: list[float]) -> str:
    return f"{fmt_mean_std(values)} ({len(values)})" if values else "—"


def defaults_section(results: list[dict], sizes: list[dict] = ()) -> list[str]:
    lines = ["## The default model against the baselines", "",
             "`attentive train --train your.csv --out runs/m`: recipe `default`, no `--set`, the compact model "
             "chosen by the rule of benchmarks/DECISIONS.md (\"Compact by default\"; its runs made as `--recipe "
                                                                                  "student "
             "--variant alone` count here), beside `opinion`, the biGRU model that was the default until commit "
             "`a798496`, whose settings were chosen by mean dev accuracy over the visible datasets "
             "(benchmarks/DECISIONS.md, \"Choosing the defaults\"). Test "
             "accuracy (%), mean ± std over seeds (n); the baselines are tuned on dev (model2vec: a static model "
             "distilled from MiniLM with its own classifier, its early stopping watching dev; "
             "benchmarks/harness/model2vec_peer.py). `documents` is the default with `wide.prior` (a logistic "
             "regression over "
             "its n-grams fitted after training, its weight fitted on dev; `python -m benchmarks.harness.run --recipe "
             "documents`). Δ is a model's mean minus the best of TF-IDF + LR, fastText and model2vec. Epoch: mean "
             "seconds per training epoch on the 2-core CPU machine, as the defaults script runs them (two "
             "single-thread runs side by side).", "",
             "| dataset | default (n) | documents (n) | opinion (n) | TF-IDF + LR | fastText | model2vec (n) "
             "| MiniLM fine-tuned | Δ default | Δ documents | epoch |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    below: dict[str, float] = {}  # the sets where `documents` is more than WITHIN below the best baseline
    shown = level = 0  # the sets `documents` ran on; those where it is at or above the best baseline
    for dataset in DATASETS:
        runs = runs_named(results, dataset, DEFAULT_RECIPE, "defaults")
        ours = METRICS["test_accuracy"](runs)
        documents = METRICS["test_accuracy"](runs_named(results, dataset, DOCUMENTS_RECIPE))
        baselines = {name: METRICS["test_accuracy"](runs_named(results, dataset, name)) for name in BASELINES}
        best = max((statistics.fmean(v) for v in baselines.values() if v), default=None)
        delta = {name: (statistics.fmean(values) - best) * 100 if values and best is not None else None
                 for name, values in (("default", ours), ("documents", documents))}
        if delta["documents"] is not None:
            shown += 1
            level += delta["documents"] >= 0
            if delta["documents"] < -WITHIN:
                below[dataset] = delta["documents"]
        epoch = mean(METRICS["epoch_time_s"]([r for r in runs if is_cpu_run(r)]))
        opinion = METRICS["test_accuracy"](runs_named(results, dataset, OPINION_RECIPE, "defaults"))
        lines.append(f"| {dataset} | {fmt_mean_std(ours)} ({len(ours)}) | {_with_count(documents)} | "
                     f"{_with_count(opinion)} | {fmt_mean_std(baselines['tfidf_lr'])} | "
                     f"{fmt_mean_std(baselines['fasttext'])} | {_with_count(baselines['model2vec'])} | "
                     f"{fmt_mean_std(_minilm(results, dataset))} | "
                     + " | ".join("—" if value is None else f"{value:+.2f}" for value in delta.values())
                     + f" | {fmt_seconds(epoch)} |")
    if shown:
        lines += ["", f"`documents` is within {WITHIN} of the best baseline on {shown - len(below)} of the {shown} "
                      "sets it ran on" + ("" if not below else " (more below on " + ", ".join(
                          f"{name} {value:+.2f}" for name, value in below.items()) + ")")
                  + f", at or above it on {level}; it answers with the default's graph, at the default's speed "
                    "(issue 45's operating point \"the fastest within 0.5 of the best peer\" where it is on all; "
                    "benchmarks/DECISIONS.md, \"`documents` on every visible set\")."]
    lines += ["", "Aspect and pair data, where `default` stands for `default_aspect`, `default_aspect_terms` and "
                  "`default_pair` (benchmarks/DECISIONS.md), and Lin et al.'s gated pair encoder: test accuracy (%), "
                  "the "
                  "n-gram baseline run on the same split, and the issue's target (where the issue names none, the "
                  "baseline).", "",
              "| dataset | model | test accuracy (n) | n-gram baseline | Δ | target |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    for dataset, label, (name, variant), baseline, target in OTHER_ROWS:
        if (name, variant) == GATED:
            variant = gated_variant(results)
            label = f"{label}, `{variant}`"
        ours = METRICS["test_accuracy"](runs_named(results, dataset, name, variant))
        theirs = METRICS["test_accuracy"](runs_named(results, dataset, baseline))
        if target is None:
            target = statistics.fmean(theirs) if theirs else 1.0
        delta = f"{(statistics.fmean(ours) - statistics.fmean(theirs)) * 100:+.2f}" if ours and theirs else "—"
        reached = "" if not ours else (" reached" if statistics.fmean(ours) >= target else " not reached")
        lines.append(f"| {dataset} | {label} | {fmt_mean_std(ours)} ({len(ours)}) | {fmt_mean_std(theirs)} "
                     f"({baseline}) | {delta} | ≥ {100 * target:.1f}{reached} |")
    for size in sorted(sizes, key=lambda r: r["dataset"]):
        lines += ["", f"Saved model folder of `{size['recipe']}` on {size['dataset']}: **{size['folder_mb']} MB** "
                      f"({size['vocab_size']:,} vocabulary rows x {size['embedding_dim']}-d vectors, "
                      f"{size['params']:,} parameters; `python -m benchmarks.product.deploy.model_size --dataset "
                      f"{size['dataset']}` "
                      f"at commit `{size['git_commit']}`, an untrained folder; folders saved since commit `96637da` "
                      "store only the nonzero rows of the n-gram table, so a trained one is at most this)."]
    return lines + [""]
