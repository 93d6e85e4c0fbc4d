"""BENCHMARKS.md's "Heads against length" section (issue 46, item 2), from `python -m
benchmarks.papers.lama.long_texts`: LAMA+Ctx's
heads and SAN's hops on IMDB's long reviews (longer than the train mean) beside its short ones, the LAMA paper's claim
(§4.1.1, §5.2: more heads help on long texts) beside them, and a verdict computed from the numbers.

The verdict compares, per half, the test accuracy at the count dev prefers (the highest mean dev accuracy) with the
test accuracy at the fewest heads: the paper's claim holds where that gain is larger on the long half than on the
short one, by more than the seed std of the cells compared. Runs made with `--limit` (smoke tests) are never shown.
"""
from __future__ import annotations

import statistics
from collections import defaultdict

from benchmarks.harness.formatting import fmt_mean_std
from benchmarks.harness.results_io import load_papers, machine_short

TITLE = "Heads against length (LAMA paper §4.1.1, §5.2)"
KIND = "long_texts"
HALVES = ("long", "short")
LABEL = {"lama_ctx": "LAMA+Ctx", "san": "SAN"}
COUNTED = {"lama_ctx": "heads", "san": "hops"}
FULL = 3  # seeds a cell should have; fewer are marked


def long_text_runs(results: list[dict]) -> list[dict]:
    """The runs the section shows: kind `long_texts`, smoke tests (`--limit`) left out."""
    return [r for r in results if r.get("kind") == KIND and r.get("limit") is None]


def cells(runs: list[dict]) -> dict[tuple[str, int, str], list[dict]]:
    """(recipe, count, half) -> its runs, one per seed."""
    grouped: dict[tuple[str, int, str], dict[int, dict]] = defaultdict(dict)
    for run in runs:
        grouped[(run["recipe"], int(run["count"]), run["half"])][run["seed"]] = run
    return {key: list(by_seed.values()) for key, by_seed in grouped.items()}


def _accuracies(runs: list[dict], split: str) -> list[float]:
    return [run[split]["accuracy"] for run in runs]


def _cell(runs: list[dict] | None, split: str) -> str:
    if not runs:
        return "not run"
    mark = "" if len(runs) >= FULL else " †"
    return f"{fmt_mean_std(_accuracies(runs, split))} ({len(runs)}){mark}"


def gain(table: dict, recipe: str, half: str, counts: list[int]) -> tuple[float, int, list[float]]:
    """On one half: test accuracy at the count dev prefers minus at the fewest, that count, and the seed stds of
    the two cells (for the noise)."""
    best = max(counts, key=lambda c: statistics.fmean(_accuracies(table[(recipe, c, half)], "dev")))
    ends = [_accuracies(table[(recipe, c, half)], "test") for c in (counts[0], best)]
    stds = [statistics.stdev(values) for values in ends if len(values) > 1]
    return statistics.fmean(ends[1]) - statistics.fmean(ends[0]), best, stds


def verdict(table: dict) -> str:
    """One sentence: does accuracy rise with heads more on the long half than on the short, and by how much."""
    parts, lama = [], None
    for recipe in (r for r in LABEL if any(key[0] == r for key in table)):
        counts = sorted({c for (r, c, h) in table if r == recipe and all((r, c, x) in table for x in HALVES)})
        if len(counts) < 2:
            continue
        (long_gain, long_best, long_stds), (short_gain, short_best, short_stds) = (
            gain(table, recipe, half, counts) for half in HALVES)
        difference, noise = (long_gain - short_gain) * 100, max(long_stds + short_stds, default=None)
        if long_gain <= 0 or difference <= 0:
            holds = "does not hold"
        elif noise is None:
            holds = "holds on one seed (no noise estimate)"
        else:
            holds = "holds" if difference > noise * 100 else "holds only within seed noise"
        noted = f"seed std up to {noise * 100:.2f}" if noise is not None else "one seed"
        fewest = f"{counts[0]} {COUNTED[recipe].removesuffix('s') if counts[0] == 1 else COUNTED[recipe]}"
        text = (f"{LABEL[recipe]}, from {fewest} to the count dev prefers "
                f"({long_best} long, {short_best} short), gains {long_gain * 100:+.2f} points of test accuracy on "
                f"the long half and {short_gain * 100:+.2f} on the short, {difference:+.2f} points more on long "
                f"texts ({noted})")
        if recipe == "lama_ctx":
            lama = holds
        parts.append(text)
    if not parts:
        return "Verdict: too few counts run on both halves to compare."
    subject = "the paper's claim " + (f"**{lama}** here for LAMA+Ctx" if lama else "is about LAMA's heads, not run")
    return f"Verdict: {subject}: " + "; ".join(parts) + "."


def long_texts_section(results: list[dict]) -> list[str]:
    """The section's lines, or [] without any long-text run."""
    runs = long_text_runs(results)
    if not runs:
        return []
    table = cells(runs)
    first = max(runs, key=lambda r: r.get("date", ""))
    rows = {half: next(r["rows"] for r in runs if r["half"] == half) for half in HALVES if any(
        r["half"] == half for r in runs)}
    sizes = "; ".join(f"{half} half {', '.join(f'{n:,} {split}' for split, n in rows[half].items())}"
                      for half in rows)
    long_cut = [r["beyond_max_length"] for r in runs if r["half"] == "long"]
    machines = ", ".join(sorted({machine_short(r) for r in runs}))
    paper = load_papers()["lama_long"]
    lines = [f"## {TITLE}", "",
             f"IMDB cut where the LAMA paper cut Yelp for YelpL: at the mean length of the train reviews, "
             f"{first['mean_length_cut']:.1f} {first['length_unit']}; train, dev and test alike, \"long\" "
             f"above it, \"short\" at or below ({sizes}). No public long-review set ships here beyond IMDB, so YelpL "
             "itself is not run. `python -m benchmarks.papers.lama.long_texts` (results `long-texts-*.json`): the "
             "heads sweep's "
             f"budget (at most 3 epochs, patience 1, epoch chosen on the half's dev split) reading 800 tokens"
             + (f" ({max(long_cut) * 100:.0f}% of the long train reviews are longer)" if long_cut else "")
             + f", on {machines}. Accuracy (%), mean ± sample std over seeds (number of seeds); † fewer than "
             f"{FULL} seeds.", "",
             "| model | heads / hops | long: dev | long: test | short: dev | short: test |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for recipe in (r for r in LABEL if any(key[0] == r for key in table)):
        for count in sorted({c for (r, c, _) in table if r == recipe}):
            shown = [_cell(table.get((recipe, count, half)), split) for half in HALVES for split in ("dev", "test")]
            lines.append(f"| {LABEL[recipe]} | {count} | " + " | ".join(shown) + " |")
    return lines + ["", f"The paper's claim ({paper['short']}): {paper['claim']}.", "", verdict(table), ""]
