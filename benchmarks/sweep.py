"""Run a candidate grid (benchmarks/grids/NAME.yaml): each candidate on each of the grid's datasets and seeds.

    [JOBS=2] [SEEDS="0 1"] [HELD=0.5] python -m benchmarks.sweep GRID [--candidates NAME ...] [--datasets NAME ...]
                                      [--seeds N ...] [--held F] [--dry-run] [-- benchmarks.run arguments]

GRID is a grid's name (benchmarks/grids/GRID.yaml) or a YAML file. A grid is data:

    recipe: lama_ctx                 # the base recipe
    datasets: [sst2, r8]             # each candidate runs on every one
    seeds: [0]                       # the default seeds (SEEDS or --seeds replace them)
    candidates:                      # run in the order written; a name becomes the result files' variant
      dist: {set: {embedder.vectors: distilled, embedder.scale: 0.15}}
      dist-wide: {extends: dist, set: {wide.type: ngrams}}
      glove-frozen: {recipe: lama, extends: [dist, frozen], set: {embedder.vectors: glove}}

A candidate's `--set` overrides are those of the candidates it `extends` (one name or a list), then its own `set`:
each ancestor's own settings once, an ancestor before the candidates extending it, parents in the order listed, a
later setting of a key replacing an earlier one (and moving to the end). Its recipe is its own `recipe`, else the
grid's (`extends` takes overrides only).

Each run is one job line, `RECIPE DATASET SEED --variant NAME --results-dir DIR [--held-out-dev F] [--set K=V ...]`,
piped to benchmarks/jobs.sh's `run_jobs`: `python -m benchmarks.run` on JOBS lanes, one thread each unless
OMP_NUM_THREADS says otherwise, a run whose result file exists skipped (so a stopped sweep resumes). Results go to
benchmarks/results/sweeps/, or with --held F (HELD=F) to benchmarks/results/sweeps-held/, a fraction F of each dev
split held back to score candidates on (benchmarks/run.py --held-out-dev; `sweep_table --held`). --dry-run prints
the job lines instead.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from attentive import AttentiveError
from benchmarks.common import REPO_ROOT

GRIDS = Path(__file__).parent / "grids"
GRID_KEYS, CANDIDATE_KEYS = {"recipe", "datasets", "seeds", "candidates"}, {"recipe", "extends", "set"}
SWEEPS, HELD = "benchmarks/results/sweeps", "benchmarks/results/sweeps-held"  # relative: jobs run in the repo root


@dataclass(frozen=True)
class Candidate:
    name: str
    recipe: str
    overrides: tuple[str, ...]  # "section.key=value", as `--set` and `attentive.load_recipe` take them


@dataclass(frozen=True)
class Grid:
    path: Path
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    candidates: dict[str, Candidate]  # in run order


class _UniqueKeys(yaml.SafeLoader):
    """YAML that refuses a key written twice in one mapping (PyYAML keeps the last one silently): two candidates of
    one name, or one setting given twice in a `set`."""


def _mapping(loader: _UniqueKeys, node: yaml.MappingNode) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.MarkedYAMLError(problem=f"{key!r} written twice", problem_mark=key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def grid_path(grid: str) -> Path:
    """A grid's file: GRIDS/NAME.yaml for a bare name, else the path given."""
    return Path(grid) if grid.endswith((".yaml", ".yml")) else GRIDS / f"{grid}.yaml"


def as_text(value) -> str:
    """A YAML scalar as `--set` spells it: true, null, 0.15."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _names(value, where: str) -> list[str]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise AttentiveError(f"{where}: extends takes a candidate's name or a list of names")
    return names


def _overrides(name: str, spec: dict, where: Path) -> dict[str, str]:
    """One candidate's own `set`, checked: a mapping of section.key to a scalar."""
    own = spec.get("set") or {}
    if not isinstance(own, dict):
        raise AttentiveError(f"{where}: candidate {name!r}: set takes a mapping of section.key: value")
    listed = [key for key, value in own.items() if isinstance(value, (list, dict))]
    if listed:
        raise AttentiveError(f"{where}: candidate {name!r}: {listed[0]} takes one value, not a list or mapping")
    return {str(key): as_text(value) for key, value in own.items()}


def _lineage(name: str, specs: dict[str, dict], where: Path, path: tuple[str, ...] = ()) -> list[str]:
    """`name`'s ancestors, each once, an ancestor before the candidates extending it, then `name` itself."""
    if name in path:
        raise AttentiveError(f"{where}: candidates extend each other in a circle: {' -> '.join((*path, name))}")
    if name not in specs:
        raise AttentiveError(f"{where}: candidate {path[-1]!r} extends {name!r}, which is no candidate here")
    order: list[str] = []
    for parent in _names(specs[name].get("extends", []), f"{where}: candidate {name!r}"):
        order += [n for n in _lineage(parent, specs, where, (*path, name)) if n not in order]
    return order + [name]


def load_grid(grid: str) -> Grid:
    """The grid of `grid` (a name or a path), every candidate's recipe and overrides resolved."""
    path = grid_path(grid)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeys)
    except OSError as error:
        raise AttentiveError(f"{path}: cannot read the grid ({error.strerror})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark else ""
        raise AttentiveError(f"{path}:{line} {getattr(error, 'problem', None) or error}") from None
    if not isinstance(data, dict) or GRID_KEYS - set(data) or set(data) - GRID_KEYS:
        raise AttentiveError(f"{path}: a grid is a mapping of exactly {', '.join(sorted(GRID_KEYS))}")
    datasets, seeds, specs = data["datasets"], data["seeds"], data["candidates"]
    if not isinstance(datasets, list) or not datasets or not all(isinstance(d, str) for d in datasets):
        raise AttentiveError(f"{path}: datasets takes a list of dataset names")
    if not isinstance(seeds, list) or not seeds or not all(type(seed) is int for seed in seeds):
        raise AttentiveError(f"{path}: seeds takes a list of whole numbers")
    if not isinstance(specs, dict) or not specs:
        raise AttentiveError(f"{path}: candidates takes a mapping of names to candidates")
    for name, spec in specs.items():
        if not isinstance(spec, dict) or set(spec) - CANDIDATE_KEYS:
            raise AttentiveError(f"{path}: candidate {name!r} takes only {', '.join(sorted(CANDIDATE_KEYS))}")
    own = {name: _overrides(name, spec, path) for name, spec in specs.items()}
    candidates = {}
    for name, spec in specs.items():
        merged: dict[str, str] = {}
        for ancestor in _lineage(name, specs, path):
            for key, value in own[ancestor].items():
                merged.pop(key, None)  # the later setting replaces the earlier and comes last, as on a command line
                merged[key] = value
        candidates[name] = Candidate(name, spec.get("recipe", data["recipe"]),
                                     tuple(f"{key}={value}" for key, value in merged.items()))
    return Grid(path, tuple(datasets), tuple(seeds), candidates)


def job_lines(grid: Grid, candidates: Sequence[str] = (), datasets: Sequence[str] = (), seeds: Sequence[int] = (),
              held: float | None = None) -> list[str]:
    """The job lines of `candidates` (default: all, in the grid's order), each over `seeds`, then `datasets`
    (default: the grid's), for benchmarks/jobs.sh's `run_jobs`."""
    unknown = [name for name in candidates if name not in grid.candidates]
    if unknown:
        raise AttentiveError(f"{grid.path}: no candidate {unknown[0]!r} (it has {', '.join(grid.candidates)})")
    to = ["--results-dir", HELD, "--held-out-dev", str(held)] if held else ["--results-dir", SWEEPS]
    lines = []
    for candidate in (grid.candidates[name] for name in candidates or grid.candidates):
        for seed in seeds or grid.seeds:
            for dataset in datasets or grid.datasets:
                words = [candidate.recipe, dataset, str(seed), "--variant", candidate.name, *to]
                words += [word for override in candidate.overrides for word in ("--set", override)]
                lines.append(" ".join(shlex.quote(word) for word in words))  # xargs reads quotes as the shell does
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # passed on to every benchmarks.run
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("grid", help="a grid's name (benchmarks/grids/GRID.yaml) or a YAML file")
    parser.add_argument("--candidates", nargs="*", default=[], metavar="NAME", help="default: every candidate")
    parser.add_argument("--datasets", nargs="*", default=[], metavar="NAME", help="default: the grid's")
    parser.add_argument("--seeds", type=int, nargs="*", default=[int(s) for s in os.environ.get("SEEDS", "").split()],
                        help="default: SEEDS, else the grid's")
    parser.add_argument("--held", type=float, default=os.environ.get("HELD") or None, metavar="F",
                        help="hold a fraction F of dev back to score candidates on (default: HELD)")
    parser.add_argument("--dry-run", action="store_true", help="print the job lines instead of running them")
    args = parser.parse_args(argv)
    try:
        lines = job_lines(load_grid(args.grid), args.candidates, args.datasets, args.seeds, args.held)
    except AttentiveError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.dry_run:
        print("\n".join(lines))
        return 0
    run = 'source benchmarks/jobs.sh "$@" && run_jobs'  # jobs.sh quotes the extra arguments into each job
    return subprocess.run(["bash", "-c", run, "benchmarks.sweep", "--", *extra], input="\n".join(lines) + "\n",
                          text=True, cwd=REPO_ROOT).returncode


if __name__ == "__main__":
    raise SystemExit(main())
