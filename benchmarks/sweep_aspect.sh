#!/usr/bin/env bash
# The dev-accuracy sweep behind the default aspect recipe: its candidates are benchmarks/grids/aspect.yaml,
# run by benchmarks/sweep.py.
#   [JOBS=1] [SEEDS="0 1"] [HELD=0.5] benchmarks/sweep_aspect.sh [CANDIDATE ...] [-- benchmarks.run arguments]
cd "$(dirname "$0")/.." && exec .venv/bin/python -m benchmarks.sweep aspect ${1:+--candidates} "$@"
