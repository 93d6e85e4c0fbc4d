#!/usr/bin/env bash
# The dev-accuracy sweep behind the default pair recipe: its candidates are benchmarks/grids/pair.yaml,
# run by benchmarks/sweep.py.
#   [JOBS=2] [SEEDS="0 1 2"] [HELD=0.5] benchmarks/sweep_pair.sh [CANDIDATE ...] [-- benchmarks.run arguments]
cd "$(dirname "$0")/.." && exec .venv/bin/python -m benchmarks.sweep pair ${1:+--candidates} "$@"
