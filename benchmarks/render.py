"""Render ``benchmarks/results/*.json`` into BENCHMARKS.md and its appendix (never edit either by hand).

    python -m benchmarks.render [--results-dir DIR] [--output PATH] [--appendix PATH]

The top of the module tree: it assembles the sections, each built by its own module from the results read through
``benchmarks/results_io.py`` and formatted by ``benchmarks/formatting.py`` (no section module imports another, nor
this one). BENCHMARKS.md answers which model, how good, how big and how fast: the summary (which model to use), the
defaults table, the targets, one section per paper table (the variant dev chose per row), the analyses and the
deployment figures. The appendix (``benchmarks/APPENDIX.md`` below it) holds the rest: the hand-written notes
(``benchmarks/notes.md``), "Appendix: every run" (every group of runs per dataset, each sweep variant included) and
the numbered list of result files, each linked to its JSON. Result schema: ``benchmarks/common.py``; the papers'
numbers: ``benchmarks/papers.json``.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from benchmarks.common import REPO_ROOT, RESULTS_DIR, write_text
from benchmarks.render_absa import absa_section
from benchmarks.render_analysis import analysis_section
from benchmarks.render_batch_mates import batch_mates_section
from benchmarks.render_by_length import by_length_section
from benchmarks.render_class_weights import class_weights_section
from benchmarks.render_compact_rule import compact_rule_section
from benchmarks.render_defaults import defaults_section
from benchmarks.render_deploy import deploy_section
from benchmarks.render_deployable import (
    breakdowns_section,
    deployable_section,
    imdb_student_lines,
    pruned_default_lines,
    variants_section,
)
from benchmarks.render_evidence import evidence_section
from benchmarks.render_frontier import frontier_section
from benchmarks.render_gpu_precision import gpu_precision_section
from benchmarks.render_lama import heads_section, lama_section, parameters_section
from benchmarks.render_linear_prior import linear_prior_section
from benchmarks.render_long_texts import long_texts_section
from benchmarks.render_multilabel import multilabel_section
from benchmarks.render_practitioner import practitioner_section
from benchmarks.render_pruned import pruned_section
from benchmarks.render_runs import RUNS_TITLE, appendix_section, footnotes_section
from benchmarks.render_scaling import scaling_section
from benchmarks.render_shipped import shipped_section
from benchmarks.render_ssan import characteristics_section, ssan_section
from benchmarks.render_summary import summary_section
from benchmarks.render_targets import TARGETS, Target, targets_section
from benchmarks.results_io import OWN_SECTION_KINDS, load_results

__all__ = ["NOTES", "TARGETS", "Rendered", "Target", "appendix_path", "main", "render", "render_markdown"]

IMDB_PEERS = {"TF-IDF + LR": "tfidf_lr-imdb-s0", "fastText": "fasttext-imdb-s0"}  # beside the IMDB student
NOTES = Path(__file__).resolve().parent / "notes.md"  # prose read after the paper sections: why a target was missed

INTRO = ("Generated file: do not edit by hand. Regenerate with `python -m benchmarks.render` after adding result "
         "files to `benchmarks/results/` (written by `python -m benchmarks.baselines ...` and the model benchmark "
         "scripts). Accuracy and macro-F1 are on the test split, mean ± sample std over seeds; hyper-parameters, "
         "checkpoints and the variants shown were chosen on dev only.")


def anchor(heading: str) -> str:
    """The link target GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def contents(lines: list[str], prefix: str = "Further down: ") -> list[str]:
    """One line linking every ``##`` heading of `lines`."""
    headings = [line[3:] for line in lines if line.startswith("## ")]
    return [prefix + " · ".join(f"[{h}](#{anchor(h)})" for h in headings) + ".", ""] if headings else []


class Rendered(NamedTuple):
    """The two generated texts: BENCHMARKS.md and its appendix."""

    main: str
    appendix: str


def appendix_path(output: str | Path) -> Path:
    """Where the appendix of the main file `output` goes: ``benchmarks/APPENDIX.md`` in the main file's folder, beside
    the notes and the results it is rendered from."""
    return Path(output).parent / "benchmarks" / "APPENDIX.md"


def relative_link(target: Path, start: Path) -> str:
    """`target` as a markdown link written in a file in the folder `start`."""
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


def appendix_link(appendix_name: str, lines: list[str]) -> list[str]:
    """The main file's pointer to the appendix: the file, and each of its ``##`` sections."""
    headings = [line[3:] for line in lines if line.startswith("## ")]
    sections = " · ".join(f"[{h}]({appendix_name}#{anchor(h)})" for h in headings)
    return ["## More in the appendix", "",
            f"The notes on these results, every group of runs (each sweep variant, not only the one dev chose) and "
            f"the numbered list of result files, each with the command and commit that produced it, are in "
            f"[{appendix_name}]({appendix_name}): {sections}.", ""]


def render_markdown(results: list[dict], problems: Sequence[str] = (), targets: Sequence[Target] = TARGETS,
                    notes: str = "", appendix_name: str = "benchmarks/APPENDIX.md", main_name: str = "../BENCHMARKS.md",
                    results_link: str = "results") -> Rendered:
    """BENCHMARKS.md's text and its appendix's. `appendix_name`: the appendix as the main file links it; `main_name`:
    the main file as the appendix links it; `results_link`: the results folder as the appendix links it (each result
    file is linked from its entry in the list of runs)."""
    parameter_results = [r for r in results if r.get("kind") == "parameters"]
    characteristics = [r for r in results if r.get("kind") == "characteristics"]
    sizes = [r for r in results if r.get("kind") == "size"]
    deploy = [r for r in results if r.get("kind") in ("deploy", "serve_load")]
    deployable_results = [r for r in results if r.get("kind") == "deployable"]
    deployable = shipped_section(results) + frontier_section(results) + deployable_section(deployable_results)
    deployable += compact_rule_section(results)
    peers = {r["name"]: r["test"]["accuracy"] for r in results if r.get("name") in IMDB_PEERS.values()}
    earlier_students = pruned_default_lines([r for r in results if r.get("kind") == "pruned_default"])
    earlier_students += imdb_student_lines([r for r in results if r.get("kind") == "imdb_student"],
                                           {label: peers[name] for label, name in IMDB_PEERS.items() if name in peers},
                                           results_link)
    if earlier_students:
        earlier_students = ["## The compact model's vocabulary, and IMDB without a teacher", ""] + earlier_students
    long_texts = long_texts_section(results)  # before the filter below: its runs are a kind of their own
    long_texts += linear_prior_section(results, "length")
    class_weights = class_weights_section([r for r in results if r.get("kind") == "class_weights"])
    class_weights += practitioner_section(results) + multilabel_section(
        [r for r in results if r.get("kind") == "multilabel"]) + scaling_section(results)
    evidence = evidence_section(results) + batch_mates_section(results) + gpu_precision_section(results)
    results = [r for r in results if r.get("kind") not in OWN_SECTION_KINDS]
    footnote = {result["name"]: i for i, result in enumerate(results, start=1)}
    generated = ("<!-- Generated by `python -m benchmarks.render` from benchmarks/results/*.json. "
                 "Do not edit by hand. -->")
    top = ["# Benchmarks", "", generated, "", INTRO, ""]
    summary, defaults = summary_section(results), defaults_section(results, sizes)
    body = targets_section(results, targets)
    body += lama_section(results) + heads_section(results) + long_texts
    for result in parameter_results:
        body += parameters_section(result)
    body += pruned_section(results) + absa_section(results) + ssan_section(results)
    for result in characteristics:
        body += characteristics_section(result)
    body += analysis_section(results) + class_weights
    more = notes.strip().splitlines() + [""] if notes else []
    more += by_length_section(results) + linear_prior_section(results, "unit") + evidence
    more += variants_section(deployable_results)
    more += breakdowns_section(deployable_results) + earlier_students + deploy_section(deploy)
    more += appendix_section(results, footnote) + footnotes_section(results, footnote, results_link)
    body += appendix_link(appendix_name, more)
    if problems:
        body += ["## Skipped result files", ""] + [f"- {problem}" for problem in problems] + [""]
    main = "\n".join(top + summary + contents(deployable + body) + defaults + deployable + body)
    appendix_top = ["# Benchmarks: appendix", "", generated, "",
                    f"The notes and every run behind [{main_name}]({main_name}). The numbers in a table's \"runs\" "
                    f"column point into [{RUNS_TITLE}](#{anchor(RUNS_TITLE)}), which links each result file.", ""]
    appendix = "\n".join(appendix_top + contents(more, "Sections: ") + more)
    return Rendered(main, appendix)


def render(results_dir: str | Path = RESULTS_DIR, output: str | Path = REPO_ROOT / "BENCHMARKS.md",
           targets: Sequence[Target] = TARGETS, appendix: str | Path | None = None) -> Rendered:
    """Read every result JSON in `results_dir`; write BENCHMARKS.md to `output` and its appendix to `appendix`
    (default :func:`appendix_path` of `output`), each atomically; return both texts."""
    output = Path(output)
    appendix = appendix_path(output) if appendix is None else Path(appendix)
    results, problems = load_results(Path(results_dir))
    notes = NOTES.read_text(encoding="utf-8") if NOTES.exists() else ""
    links = (relative_link(appendix, output.parent), relative_link(output, appendix.parent),
             relative_link(Path(results_dir), appendix.parent))
    rendered = render_markdown(results, problems, targets, notes, *links)
    write_text(appendix, rendered.appendix)
    write_text(output, rendered.main)
    return rendered


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS_DIR))
    parser.add_argument("--output", default=str(REPO_ROOT / "BENCHMARKS.md"))
    parser.add_argument("--appendix", default=None, help="default: benchmarks/APPENDIX.md beside --output")
    args = parser.parse_args(argv)
    appendix = appendix_path(args.output) if args.appendix is None else Path(args.appendix)
    render(args.results_dir, args.output, appendix=appendix)
    print(f"wrote {args.output} and {appendix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
