"""The appendix's section on which words explain an export (issue 45, item 4; the rule in benchmarks/notes.md,
"`predict`'s top words by evidence", written before its runs): per dataset, the share of answers the default's int8
export changes when each text's 5% words ranked first by attention, at random, by occlusion and by the linearised
evidence (and its attention channel's part alone) are removed, mean ± std over the seeds (`python -m
benchmarks.top_words_evidence`), then the rule's first two parts computed (its third, `predict`'s speed against
its earlier speed, is a timing in the notes), and what the words by evidence cost `predict` on each set."""
from __future__ import annotations

import statistics

from benchmarks.formatting import fmt_mean_std
from benchmarks.results_io import of_kind_by_dataset

RANKINGS = {"attention": "attention", "random": "random", "occlusion": "occlusion", "linearised": "linearised",
            "linearised_attention_channel": "linearised, attention channel alone"}
SETS_AT_LEAST = 7  # of the eight sets, where the linearised evidence's seed mean must be at least attention's


def evidence_section(results: list[dict]) -> list[str]:
    runs = of_kind_by_dataset(results, "top_words_evidence")
    if not runs:
        return []
    lines = ["## Which words explain an export", "",
             "Answers changed (%) when each dev text's 5% words ranked first are removed (at least one word; 300 "
             "texts a set, fewer where the set has fewer; texts over 512 tokens left out, which occlusion does not "
             "read), on the default's int8 export, mean ± std over its seeds. Written before the runs "
             "(benchmarks/notes.md, \"`predict`'s top words by evidence\").", "",
             "| dataset | texts | " + " | ".join(RANKINGS.values()) + " |",
             "|---|---:|" + "---:|" * len(RANKINGS)]
    every: dict[str, list[float]] = {name: [] for name in RANKINGS}
    sets_at_least = 0
    for result in runs:
        flipped = {name: [model["flipped"][name] for model in result["models"]] for name in RANKINGS}
        for name, found in flipped.items():
            every[name] += found
        sets_at_least += statistics.fmean(flipped["linearised"]) >= statistics.fmean(flipped["attention"])
        texts = "/".join(sorted({str(model["texts"]) for model in result["models"]}))
        lines.append(f"| {result['dataset']} | {texts} | "
                     + " | ".join(fmt_mean_std(flipped[name], 1) for name in RANKINGS) + " |")
    means = {name: 100 * statistics.fmean(found) for name, found in every.items()}
    bar = means["attention"] + (means["occlusion"] - means["attention"]) / 2
    lines += ["| all runs | " + str(len(every["attention"])) + " | "
              + " | ".join(f"{means[name]:.2f}" for name in RANKINGS) + " |", "",
              f"The rule: the linearised evidence's mean over the runs is {means['linearised']:.2f} against a bar "
              f"of {bar:.2f} (attention's plus half its distance to occlusion's): "
              f"{'met' if means['linearised'] >= bar else 'NOT met'}; at least attention's on {sets_at_least} of "
              f"{len(runs)} sets (needed: {SETS_AT_LEAST}): {'met' if sets_at_least >= SETS_AT_LEAST else 'NOT met'}. "
              "Its third part, `predict` of the SST-2 export at 0.9× its earlier speed or more with the evidence, is "
              "a timing in the notes.", ""]
    return lines + speed_lines(of_kind_by_dataset(results, "evidence_speed"))


def speed_lines(runs: list[dict]) -> list[str]:
    """What the top words by evidence cost `predict` (`python -m benchmarks.evidence_speed`), one row a dataset."""
    if not runs:
        return []
    lines = ["Texts/s of the shipped default's int8 export and of TF-IDF + LR on each test set, two threads, the "
             "systems' passes taken in turn (`python -m benchmarks.evidence_speed`):", "",
             "| dataset | predict, words by attention | by evidence | evidence / attention | predict_proba | "
             "TF-IDF + LR | by evidence / TF-IDF + LR |", "|---|---:|---:|---:|---:|---:|---:|"]
    for result in runs:
        speed = result["docs_per_s"]
        lines.append(f"| {result['dataset']} | {speed['predict_attention']:,.0f} | {speed['predict_evidence']:,.0f} "
                     f"| {speed['predict_evidence'] / speed['predict_attention']:.2f} | "
                     f"{speed['predict_proba']:,.0f} | {speed['tfidf_lr']:,.0f} | "
                     f"{speed['predict_evidence'] / speed['tfidf_lr']:.2f} |")
    return lines + [""]
