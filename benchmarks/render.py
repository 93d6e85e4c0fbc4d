"""Render the stored results (``benchmarks/results/*.jsonl``) into BENCHMARKS.md (never edit it by hand).

    python -m benchmarks.render [--results-dir DIR] [--output PATH]

The top of the module tree: it assembles the sections, each built by the renderer beside the experiment it shows
(``benchmarks/papers/*/``, ``benchmarks/product/*/``) from the results read through
``benchmarks/harness/results_io.py`` and formatted by ``benchmarks/harness/formatting.py`` (no section module imports
another, nor this one). BENCHMARKS.md answers which model, how good, how big and how fast: the summary (which model to
use), the defaults table, the targets, one section per paper table (the variant dev chose per row), the analyses and
the deployment figures. Result schema: ``benchmarks/harness/common.py``; the papers' numbers:
``benchmarks/papers/papers.json``; the decisions behind the defaults: ``benchmarks/DECISIONS.md``.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.harness.common import REPO_ROOT, RESULTS_DIR, write_text
from benchmarks.harness.results_io import OWN_SECTION_KINDS, load_results
from benchmarks.papers.lama.long_texts import long_texts_section
from benchmarks.papers.lama.params import parameters_section
from benchmarks.papers.lama.render_lama import heads_section, lama_section
from benchmarks.papers.lin2017.render_pruned import pruned_section
from benchmarks.papers.ssan.characteristics import characteristics_section
from benchmarks.papers.ssan.render_ssan import ssan_section
from benchmarks.papers.sunlu.render_analysis import analysis_section
from benchmarks.papers.wang2016.render_absa import absa_section
from benchmarks.product.accuracy.abstain_clinc import abstain_section
from benchmarks.product.accuracy.class_weights import class_weights_section
from benchmarks.product.accuracy.multilabel import multilabel_section
from benchmarks.product.accuracy.practitioner import practitioner_section
from benchmarks.product.accuracy.render_compact_rule import compact_rule_section
from benchmarks.product.accuracy.render_defaults import defaults_section
from benchmarks.product.accuracy.render_linear_prior import linear_prior_section
from benchmarks.product.accuracy.render_summary import summary_section
from benchmarks.product.accuracy.render_targets import TARGETS, Target, targets_section
from benchmarks.product.accuracy.small_calibration import calibration_section
from benchmarks.product.deploy.deployable import deployable_section
from benchmarks.product.deploy.frontier import frontier_section
from benchmarks.product.deploy.shipped import shipped_section
from benchmarks.product.fewlabels.active_loop import active_loop_section
from benchmarks.product.fewlabels.few_labels import few_labels_section
from benchmarks.product.scale.scaling import scaling_section

__all__ = ["TARGETS", "Target", "main", "render", "render_markdown"]

INTRO = ("Generated file: do not edit by hand. Regenerate with `python -m benchmarks.render` after adding results "
         "to `benchmarks/results/` (each folder's README in `benchmarks/` names the command that writes them). "
         "Accuracy and macro-F1 are on the test split, mean ± sample std over seeds; hyper-parameters, "
         "checkpoints and the variants shown were chosen on dev only.")
MORE = ["## More", "",
        "What each section reproduces and the one command that does: [benchmarks/README.md](benchmarks/README.md). "
        "The decisions these results took, each with its rule, its numbers and the commit where its runs last stood: "
        "[benchmarks/DECISIONS.md](benchmarks/DECISIONS.md). Every result shown, with the command, commit and "
        "machine that produced it: a line of `benchmarks/results/*.jsonl`.", ""]


def anchor(heading: str) -> str:
    """The link target GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def contents(lines: list[str], prefix: str = "Further down: ") -> list[str]:
    """One line linking every ``##`` heading of `lines`."""
    headings = [line[3:] for line in lines if line.startswith("## ")]
    return [prefix + " · ".join(f"[{h}](#{anchor(h)})" for h in headings) + ".", ""] if headings else []


def render_markdown(results: list[dict], problems: Sequence[str] = (), targets: Sequence[Target] = TARGETS) -> str:
    """BENCHMARKS.md's text."""
    parameter_results = [r for r in results if r.get("kind") == "parameters"]
    characteristics = [r for r in results if r.get("kind") == "characteristics"]
    sizes = [r for r in results if r.get("kind") == "size"]
    deployable = shipped_section(results) + frontier_section(results) + deployable_section(
        [r for r in results if r.get("kind") == "deployable"])
    deployable += compact_rule_section(results)
    long_texts = long_texts_section(results)  # before the filter below: its runs are a kind of their own
    long_texts += linear_prior_section(results)
    class_weights = class_weights_section([r for r in results if r.get("kind") == "class_weights"])
    class_weights += practitioner_section(results) + multilabel_section(
        [r for r in results if r.get("kind") == "multilabel"]) + abstain_section(results)
    class_weights += calibration_section(results) + few_labels_section(results) + active_loop_section(results)
    class_weights += scaling_section(results)
    results = [r for r in results if r.get("kind") not in OWN_SECTION_KINDS]
    generated = ("<!-- Generated by `python -m benchmarks.render` from benchmarks/results/*.jsonl. "
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
    body += analysis_section(results) + class_weights + MORE
    if problems:
        body += ["## Skipped results", ""] + [f"- {problem}" for problem in problems] + [""]
    return "\n".join(top + summary + contents(deployable + body) + defaults + deployable + body)


def render(results_dir: str | Path = RESULTS_DIR, output: str | Path = REPO_ROOT / "BENCHMARKS.md",
           targets: Sequence[Target] = TARGETS) -> str:
    """Read every result in `results_dir`; write BENCHMARKS.md to `output` atomically; return its text."""
    results, problems = load_results(Path(results_dir))
    text = render_markdown(results, problems, targets)
    write_text(output, text)
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS_DIR))
    parser.add_argument("--output", default=str(REPO_ROOT / "BENCHMARKS.md"))
    args = parser.parse_args(argv)
    render(args.results_dir, args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
