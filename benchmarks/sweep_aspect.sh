#!/usr/bin/env bash
# The dev-accuracy sweep behind the default aspect recipe (issue 15, item 5; protocol in benchmarks/notes.md,
# "Choosing the defaults"): each candidate is an aspect recipe plus overrides, trained on the visible aspect-category
# sets; candidates are compared by MEAN DEV accuracy over them (python -m benchmarks.sweep_table --aspect), never by
# test. Results go to benchmarks/results/sweeps/ (not rendered into BENCHMARKS.md); with HELD=F, a fraction F of dev
# is held back to score them on (benchmarks/results/sweeps-held/, `sweep_table --aspect --held`).
# A candidate is its recipe as it was when the candidate ran, plus its overrides.
#   [JOBS=1] [SEEDS="0 1"] [HELD=0.5] benchmarks/sweep_aspect.sh [CANDIDATE ...]     (default: every candidate)
set -euo pipefail
cd "$(dirname "$0")/.."
DEFAULT_SEEDS="0 1"
source benchmarks/jobs.sh
SWEEP_DATASETS=(semeval14_category semeval14_category_binary)
DIST="--set embedder.vectors=distilled+glove --set embedder.scale=0.15 --set tokenizer.keep_known=true --set tokenizer.pieces=true"
declare -A CANDIDATES=(
  [lama_aspect]="lama_aspect"
  [lama_aspect-dist]="lama_aspect $DIST"
  [san_aspect-dist]="san_aspect $DIST"
  [atae_lstm-dist]="atae_lstm $DIST"
  [lama_aspect-edrop02]="lama_aspect --set embedder.dropout=0.2"
  [lama_aspect-m5]="lama_aspect --set pooler.heads=5"
  [lama_aspect-edrop02-m5]="lama_aspect --set embedder.dropout=0.2 --set pooler.heads=5"
  [lama_aspect-edrop03]="lama_aspect --set embedder.dropout=0.3"
  [lama_aspect-edrop02-ae]="lama_aspect --set embedder.dropout=0.2 --set aspect.append_to_words=true"
  [lama_aspect-edrop02-h150]="lama_aspect --set embedder.dropout=0.2 --set encoder.hidden=150"
  [default_aspect]="default_aspect"
  [default_aspect-ema1]="default_aspect --set train.ema_epochs=1"
)
ORDER=(lama_aspect lama_aspect-dist san_aspect-dist atae_lstm-dist lama_aspect-edrop02 lama_aspect-m5
       lama_aspect-edrop02-m5 lama_aspect-edrop03 lama_aspect-edrop02-ae lama_aspect-edrop02-h150 default_aspect
       default_aspect-ema1)
[[ ${#DATASETS[@]} -gt 0 ]] && ORDER=("${DATASETS[@]}")
for name in "${ORDER[@]}"; do
  read -r recipe overrides <<< "${CANDIDATES[$name]}"
  for seed in "${SEEDS[@]}"; do
    for dataset in "${SWEEP_DATASETS[@]}"; do
      echo "$recipe $dataset $seed --variant $name $SWEEP_TO ${overrides:-}"
    done
  done
done | sed "s/ *$//" | run_jobs
