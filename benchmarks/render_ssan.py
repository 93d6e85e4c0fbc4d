"""BENCHMARKS.md's SSAN section: the shape of Ambartsoumian & Popowich (2018) Table 2 — eleven models × the six
Barnes et al. (2017) datasets and their macro average — and the paper's claims checked on those numbers.

Each cell is the mean test accuracy (sample std) over the seeds of the recipe as shipped (runs without a variant);
every run kept its best-dev epoch. Used by benchmarks.render.
"""
from __future__ import annotations

import statistics

from benchmarks.render import METRICS, model_name

DATASETS = ("barnes_sst_fine", "barnes_sst_binary", "opener", "sentube_auto", "sentube_tablets", "semeval2013")
COLUMN = {"barnes_sst_fine": "SST-fine", "barnes_sst_binary": "SST-binary", "opener": "OpeNER",
          "sentube_auto": "SenTube-A", "sentube_tablets": "SenTube-T", "semeval2013": "SemEval"}
ROWS = (("barnes_lstm", "LSTM"), ("barnes_bilstm", "BiLSTM"), ("barnes_cnn", "CNN"), ("bow_lr", "BoW"),
        ("ave_lr", "Ave"), ("ssan", "1-Layer SSAN"), ("ssan_pe", "1-Layer SSAN + PE"),
        ("ssan_rpr", "1-Layer SSAN + RPR"), ("ssan2_rpr", "2-Layer SSAN + RPR"), ("transformer_pe", "Transformer + PE"),
        ("transformer_rpr", "Transformer + RPR"))


def table_accuracies(results: list[dict]) -> dict[tuple[str, str], list[float]]:
    """(row name, dataset) -> the test accuracies of that recipe's runs without a variant."""
    cells: dict[tuple[str, str], list[float]] = {}
    names = {name for name, _ in ROWS}
    for result in results:
        if result["dataset"] in DATASETS and model_name(result) in names and not result.get("variant"):
            cells.setdefault((model_name(result), result["dataset"]), []).extend(METRICS["test_accuracy"]([result]))
    return cells


def macro_average(cells: dict[tuple[str, str], list[float]], name: str) -> float | None:
    """Mean over the six datasets of the row's mean accuracy; None unless every dataset has runs."""
    means = [statistics.fmean(cells[(name, d)]) for d in DATASETS if cells.get((name, d))]
    return statistics.fmean(means) if len(means) == len(DATASETS) else None


def _cell(values: list[float] | None) -> str:
    if not values:
        return "—"
    spread = f" ({statistics.stdev(values) * 100:.1f})" if len(values) > 1 else ""
    return f"{statistics.fmean(values) * 100:.1f}{spread}"


def claims(cells: dict[tuple[str, str], list[float]]) -> list[str]:
    """The paper's claims, each marked holds / does not hold on our macro averages (when every cell was run)."""
    macro = {name: macro_average(cells, name) for name, _ in ROWS}
    if any(macro[name] is None for name in ("ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr")):
        return ["The paper's claims are checked once every SSAN row has all six datasets."]
    known = {name: value for name, value in macro.items() if value is not None}
    best = max(known, key=known.get)
    top_cells = sum(1 for d in DATASETS if all(
        statistics.fmean(cells[("ssan_rpr", d)]) >= statistics.fmean(cells[(n, d)])
        for n, _ in ROWS if cells.get((n, d))))
    baselines = [known[n] for n in ("barnes_lstm", "barnes_bilstm", "barnes_cnn", "bow_lr", "ave_lr") if n in known]
    self_attention = [known[n] for n in ("ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr", "transformer_pe",
                                         "transformer_rpr") if n in known]

    def verdict(ok: bool) -> str:
        return "holds" if ok else "**does not hold**"

    return [
        f"- 1-Layer SSAN + RPR has the best macro average: {verdict(best == 'ssan_rpr')} (best: {best}, "
        f"{known[best] * 100:.2f}; SSAN + RPR {macro['ssan_rpr'] * 100:.2f}); it is top on {top_cells} of 6 datasets "
        "(paper: 5 of 6).",
        f"- RPR beats PE and no positions: {verdict(macro['ssan_rpr'] > max(macro['ssan_pe'], macro['ssan']))} "
        f"(RPR {macro['ssan_rpr'] * 100:.2f}, PE {macro['ssan_pe'] * 100:.2f}, none {macro['ssan'] * 100:.2f}; "
        "paper: +2.8 over PE, +0.9 over none).",
        f"- No positions beats PE: {verdict(macro['ssan'] > macro['ssan_pe'])}.",
        f"- A second SSAN layer does not help: {verdict(macro['ssan2_rpr'] <= macro['ssan_rpr'])} "
        f"(2-layer {macro['ssan2_rpr'] * 100:.2f}).",
        f"- Every self-attention model's macro average is above every baseline's: "
        f"{verdict(bool(baselines) and min(self_attention) > max(baselines))} (lowest self-attention "
        f"{min(self_attention) * 100:.2f}, highest baseline {max(baselines, default=0) * 100:.2f}).",
    ]


def ssan_section(results: list[dict]) -> list[str]:
    """The Table 2 markdown and the claims, or nothing when no run of these rows exists."""
    cells = table_accuracies(results)
    if not cells:
        return []
    header = "| model | " + " | ".join(COLUMN[d] for d in DATASETS) + " | macro avg | seeds |"
    lines = ["## Self-attention for sentiment (SSAN paper Table 2)", "",
             "Test accuracy (%), mean (sample std) over seeds, GloVe 6B-50d vectors, each run's epoch chosen on dev; "
             "the recipes as shipped (`benchmarks/reproduce_ssan.sh`). BoW and Ave are deterministic (one run). "
             "The macro average needs all six datasets.", "",
             header, "| --- |" + " ---: |" * (len(DATASETS) + 2)]
    for name, label in ROWS:
        macro = macro_average(cells, name)
        seeds = sorted({len(cells[(name, d)]) for d in DATASETS if cells.get((name, d))})
        lines.append(f"| {label} | " + " | ".join(_cell(cells.get((name, d))) for d in DATASETS)
                     + f" | {'—' if macro is None else f'{macro * 100:.1f}'} | {'/'.join(map(str, seeds)) or '—'} |")
    return lines + ["", "The paper's claims on these numbers:", ""] + claims(cells) + [""]
