#!/usr/bin/env bash
# Does the default recipe gain from reading whole texts? Its one candidate is benchmarks/grids/length.yaml, run by
# benchmarks/sweep.py.
#   [JOBS=2] [SEEDS="0 1"] benchmarks/sweep_length.sh [DATASET ...] [-- benchmarks.run arguments]
cd "$(dirname "$0")/.." && exec .venv/bin/python -m benchmarks.sweep length ${1:+--datasets} "$@"
