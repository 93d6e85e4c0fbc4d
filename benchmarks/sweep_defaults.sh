#!/usr/bin/env bash
# The dev-accuracy sweep behind the default recipe: its candidates are benchmarks/grids/defaults.yaml,
# run by benchmarks/sweep.py.
#   [JOBS=2] [SEEDS="0 1"] [HELD=0.5] benchmarks/sweep_defaults.sh [CANDIDATE ...] [-- benchmarks.run arguments]
cd "$(dirname "$0")/.." && exec .venv/bin/python -m benchmarks.sweep defaults ${1:+--candidates} "$@"
