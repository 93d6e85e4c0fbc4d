"""BENCHMARKS.md's SSAN section: Ambartsoumian & Popowich (2018) Table 2 with the paper's claims checked on our numbers;
Barnes et al.'s LSTM, BiLSTM and CNN at the word-vector dropout dev chose per dataset.

    python -m benchmarks.papers.ssan.render_ssan   # prints the dropout choices reproduce_ssan.sh runs"""
from __future__ import annotations

import argparse
import statistics

from benchmarks.harness.formatting import fmt_mean_std, fmt_number
from benchmarks.harness.results_io import METRICS, RESULTS_DIR, load_papers, load_results, model_name

DATASETS = ("barnes_sst_fine", "barnes_sst_binary", "opener", "sentube_auto", "sentube_tablets", "semeval2013")
COLUMN = {"barnes_sst_fine": "SST-fine", "barnes_sst_binary": "SST-binary", "opener": "OpeNER",
          "sentube_auto": "SenTube-A", "sentube_tablets": "SenTube-T", "semeval2013": "SemEval"}
ROWS = (("barnes_lstm", "LSTM"), ("barnes_bilstm", "BiLSTM"), ("barnes_cnn", "CNN"), ("bow_lr", "BoW"),
        ("ave_lr", "Ave"), ("ssan", "1-Layer SSAN"), ("ssan_pe", "1-Layer SSAN + PE"),
        ("ssan_rpr", "1-Layer SSAN + RPR"), ("ssan2_rpr", "2-Layer SSAN + RPR"), ("transformer_pe", "Transformer + PE"),
        ("transformer_rpr", "Transformer + RPR"))


DROPOUT_SWEEP = {"": 0.3, "edrop01": 0.1, "edrop05": 0.5}
SWEPT_ROWS = ("barnes_lstm", "barnes_bilstm", "barnes_cnn")


def dropout_choices(results: list[dict]) -> dict[tuple[str, str], tuple[str, float]]:
    """(row, dataset) -> (the variant dev chose on the shared seeds, its dev accuracy) where the sweep is complete."""
    dev: dict[tuple[str, str], dict[str, dict[int, float]]] = {}
    for result in results:
        name, variant = model_name(result), result.get("variant", "")
        if name in SWEPT_ROWS and result["dataset"] in DATASETS and variant in DROPOUT_SWEEP:
            dev.setdefault((name, result["dataset"]), {}).setdefault(variant, {})[result["seed"]] = \
                result["dev"]["accuracy"]
    choices = {}
    for cell, by_variant in dev.items():
        shared = set.intersection(*(set(seeds) for seeds in by_variant.values()))
        if len(by_variant) == len(DROPOUT_SWEEP) and shared:
            score = {v: statistics.fmean(by_variant[v][seed] for seed in shared) for v in DROPOUT_SWEEP}
            best = max(DROPOUT_SWEEP, key=score.get)  # the first of equals: the recipe as shipped
            choices[cell] = (best, score[best])
    return choices


def table_accuracies(results: list[dict], variant: str = "",
                     choices: dict[tuple[str, str], tuple[str, float]] | None = None
                     ) -> dict[tuple[str, str], list[float]]:
    """(row name, dataset) -> test accuracies of the runs of `variant`, or of the variant `choices` names."""
    cells: dict[tuple[str, str], list[float]] = {}
    names = {name for name, _ in ROWS}
    for result in results:
        cell = (model_name(result), result["dataset"])
        wanted = (choices or {}).get(cell, (variant, None))[0]
        if result["dataset"] in DATASETS and cell[0] in names and result.get("variant", "") == wanted:
            cells.setdefault(cell, []).extend(METRICS["test_accuracy"]([result]))
    return cells


def average_over(cells: dict[tuple[str, str], list[float]], name: str, datasets: tuple[str, ...]) -> float | None:
    """Mean over `datasets` of the row's mean accuracy; None unless each of them has runs."""
    means = [statistics.fmean(cells[(name, d)]) for d in datasets if cells.get((name, d))]
    return statistics.fmean(means) if datasets and len(means) == len(datasets) else None


def macro_average(cells: dict[tuple[str, str], list[float]], name: str) -> float | None:
    """The paper's Macro-Avg: the mean over all six datasets, or None while one is missing."""
    return average_over(cells, name, DATASETS)


SSAN_ROWS = ("ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr")
BASELINE_ROWS = ("barnes_lstm", "barnes_bilstm", "barnes_cnn", "bow_lr", "ave_lr")


def claims(cells: dict[tuple[str, str], list[float]]) -> list[str]:
    """The paper's claims, each holds / does not hold, on the datasets every SSAN row has run."""
    shared = tuple(d for d in DATASETS if all(cells.get((n, d)) for n in SSAN_ROWS))
    if not shared:
        return ["The paper's claims are checked once every SSAN row has a dataset in common."]
    average = {n: a for n, _ in ROWS if (a := average_over(cells, n, shared)) is not None}
    scope = ("the macro average over all six datasets" if len(shared) == len(DATASETS) else
             f"averages over the {len(shared)} datasets every SSAN row has so far "
             f"({', '.join(COLUMN[d] for d in shared)})")
    best = max(average, key=average.get)
    top = sum(1 for d in shared if all(statistics.fmean(cells[("ssan_rpr", d)]) >= statistics.fmean(cells[(n, d)])
                                       for n, _ in ROWS if cells.get((n, d))))
    baselines = [average[n] for n in BASELINE_ROWS if n in average]
    self_attention = [average[n] for n in SSAN_ROWS + ("transformer_pe", "transformer_rpr") if n in average]
    pct = {n: f"{a * 100:.2f}" for n, a in average.items()}
    paper = load_papers()["ssan"]["table2_claims"]

    def verdict(ok: bool) -> str:
        return "holds" if ok else "**does not hold**"

    spreads = [statistics.stdev(cells[(n, d)]) * 100 for n in SSAN_ROWS for d in shared if len(cells[(n, d)]) > 1]
    noise = (f" The SSAN cells' seed std averages {statistics.fmean(spreads):.2f} points: differences below that are "
             "within seed noise." if spreads else "")
    return [f"On {scope}.{noise}", "",
            f"- 1-Layer SSAN + RPR is best: {verdict(best == 'ssan_rpr')} (best: {best}, {pct[best]}; SSAN + RPR "
            f"{pct['ssan_rpr']}); it is top on {top} of {len(shared)} datasets (paper: {paper['ssan_rpr_top_on']}).",
            f"- RPR beats PE and no positions: "
            f"{verdict(average['ssan_rpr'] > max(average['ssan_pe'], average['ssan']))}"
            f" (RPR {pct['ssan_rpr']}, PE {pct['ssan_pe']}, none {pct['ssan']}: "
            f"{(average['ssan_rpr'] - average['ssan_pe']) * 100:+.2f} over PE, "
            f"{(average['ssan_rpr'] - average['ssan']) * 100:+.2f} "
            f"over none; paper: +{paper['rpr_over_pe']} and +{paper['rpr_over_none']}).",
            f"- No positions beats PE: {verdict(average['ssan'] > average['ssan_pe'])}.",
            f"- A second SSAN layer does not help: {verdict(average['ssan2_rpr'] <= average['ssan_rpr'])} "
            f"(2-layer {pct['ssan2_rpr']}, {(average['ssan2_rpr'] - average['ssan_rpr']) * 100:+.2f} points).",
            f"- Every self-attention model is above every baseline: "
            f"{verdict(bool(baselines) and min(self_attention) > max(baselines))} (lowest self-attention "
            f"{min(self_attention) * 100:.2f}, highest baseline {max(baselines, default=0) * 100:.2f})."]


def _table(cells: dict[tuple[str, str], list[float]]) -> list[str]:
    header = "| model | " + " | ".join(COLUMN[d] for d in DATASETS) + " | macro avg | seeds |"
    lines = [header, "| --- |" + " ---: |" * (len(DATASETS) + 2)]
    for name, label in ROWS:
        macro = macro_average(cells, name)
        seeds = sorted({len(cells[(name, d)]) for d in DATASETS if cells.get((name, d))})
        lines.append(f"| {label} | " + " | ".join(fmt_mean_std(cells.get((name, d), []), 1) for d in DATASETS)
                     + f" | {fmt_number(macro, 1)} | {'/'.join(map(str, seeds)) or '—'} |")
    return lines


def _dropout_table(choices: dict[tuple[str, str], tuple[str, float]]) -> list[str]:
    """Which word-vector dropout dev chose for each Barnes et al. cell, with that dev accuracy."""
    if not choices:
        return []
    rates = "/".join(str(rate) for rate in sorted(DROPOUT_SWEEP.values()))
    lines = [f"Word-vector dropout chosen on dev among {rates} (mean dev accuracy of the seeds every rate ran; "
             "— : sweep not complete, the recipe's 0.3 is used):", "",
             "| model | " + " | ".join(COLUMN[d] for d in DATASETS) + " |", "| --- |" + " ---: |" * len(DATASETS)]
    for name, label in ROWS:
        if name in SWEPT_ROWS:
            shown = [f"{DROPOUT_SWEEP[c[0]]} ({c[1] * 100:.1f})" if (c := choices.get((name, d))) else "—"
                     for d in DATASETS]
            lines.append(f"| {label} | " + " | ".join(shown) + " |")
    return lines + [""]


WORD2VEC_300 = "w2v300"  # the variant `VECTORS=w2v300 benchmarks/papers/ssan/reproduce_ssan.sh` writes


def ssan_section(results: list[dict]) -> list[str]:
    """The Table 2 markdown and the claims, then the word2vec-300 table where such runs exist."""
    choices = dropout_choices(results)
    cells = table_accuracies(results, choices=choices)
    if not cells:
        return []
    lines = ["## Self-attention for sentiment (SSAN paper Table 2)", "",
             "Test accuracy (%), mean ± sample std over seeds, GloVe 6B-50d vectors, each run's epoch chosen on dev; "
             "the recipes as shipped (`benchmarks/papers/ssan/reproduce_ssan.sh`), with LSTM, BiLSTM and CNN at the "
             "word-vector "
             "dropout dev chose (below). BoW and Ave are deterministic (one run). The macro average needs all six "
             "datasets.", ""]
    lines += _table(cells) + [""] + _dropout_table(choices)
    lines += ["The paper's claims on these numbers:", ""] + claims(cells) + [""]
    word2vec = table_accuracies(results, WORD2VEC_300)
    if word2vec:
        lines += ["The same with 300-d word2vec vectors trained with gensim on each dataset's training text (so "
                  "d_model 300, learning rate 0.1 for the self-attention rows; `VECTORS=w2v300 "
                  "benchmarks/papers/ssan/reproduce_ssan.sh`, variant `w2v300`). BoW and Ave are not rerun: BoW uses "
                  "no vectors "
                  "and Ave stays on GloVe.", ""] + _table(word2vec) + [""]
    return lines


def dropout_settings(results: list[dict]) -> list[str]:
    """`RECIPE DATASET [benchmarks.harness.run arguments]` that run the dropout dev chose, for reproduce_ssan.sh."""
    rate = {variant: f"--variant {variant} --set embedder.dropout={value}" for variant, value in DROPOUT_SWEEP.items()
            if variant}
    return [f"{name} {dataset} {rate.get(variant, '')}".rstrip()
            for (name, dataset), (variant, _) in sorted(dropout_choices(results).items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the run arguments of the word-vector dropout dev chose for "
                                                 "each Barnes et al. cell of the SSAN table (one line per cell).")
    parser.add_argument("--results-dir", default=str(RESULTS_DIR))
    args = parser.parse_args(argv)
    results, _ = load_results(args.results_dir)
    print("\n".join(dropout_settings(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
