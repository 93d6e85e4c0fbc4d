#!/usr/bin/env bash
# Does the default recipe gain from reading whole texts (tokenizer.max_length=null) instead of the first 400 tokens?
# Only IMDB (19% of training reviews are longer) and R8 (3.6%) hold texts over 400 tokens among the visible
# single-text sets, so on every other set the candidate's runs are the default's own. Compared on dev with the
# defaults table's rows of the same seeds (python -m benchmarks.sweep_table does not read these: they are two sets).
# Session 11's rows (the recipe before 2^20 bigram buckets, IMDB's review-by-review dev) are in
# benchmarks/results/superseded/4a7ab18/sweeps/; session 13 reran them on IMDB's id-block dev.
#   [JOBS=2] [SEEDS="0 1"] benchmarks/sweep_length.sh [DATASET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
DEFAULT_SEEDS="0 1"
source benchmarks/jobs.sh
[[ ${#DATASETS[@]} -eq 0 ]] && DATASETS=(imdb r8)
for dataset in "${DATASETS[@]}"; do
  for seed in "${SEEDS[@]}"; do
    echo "default $dataset $seed --variant whole-texts --results-dir benchmarks/results/sweeps --set tokenizer.max_length=null"
  done
done | run_jobs
