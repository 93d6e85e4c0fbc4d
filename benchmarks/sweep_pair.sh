#!/usr/bin/env bash
# The dev-accuracy sweep behind the default pair recipe (issue 15, item 5; protocol in benchmarks/notes.md,
# "Choosing the defaults"): each candidate is default_pair plus overrides, trained on the one visible pair set (SICK,
# its TRIAL part as dev) with 3 seeds; candidates are compared by mean dev accuracy (python -m benchmarks.sweep_table
# --pair), never by test. Results go to benchmarks/results/sweeps/ (not rendered into BENCHMARKS.md). HELD=F holds a
# fraction F of dev back to score candidates on, as in benchmarks/sweep_defaults.sh (`sweep_table --pair --held`).
# A candidate is default_pair as it was when the candidate ran, plus its overrides.
#   [JOBS=2] [SEEDS="0 1 2"] [HELD=0.5] benchmarks/sweep_pair.sh [CANDIDATE ...]     (default: every candidate)
set -euo pipefail
cd "$(dirname "$0")/.."
DEFAULT_SEEDS="0 1 2"
source benchmarks/jobs.sh
# Candidates on another recipe than default_pair (its name, then the candidate's overrides); a diagnostic, not a pick
declare -A RECIPE_OF=([minilm-frozen-matching]=minilm_frozen)
# Lin et al.'s gated encoder as the defaults table's gated row has it (benchmarks/reproduce_pairs.sh), on default_pair
GATED="--set head.type=gated_pair --set head.factors=50 --set head.normalise=true --set head.same_start=true --set head.offset=1 --set pooler.heads=30 --set head.dropout=0 --set encoder.hidden=100 --set train.ema_epochs=1"
# default_pair's own settings since session 15 (pair-h150-ema1), spelled out so that the pair-h150-ema1-* candidates
# keep their meaning if default_pair moves
H150_EMA1="--set encoder.hidden=150 --set train.ema_epochs=1"
declare -A CANDIDATES=(
  [pair-base]=""
  [pair-edrop02]="--set embedder.dropout=0.2"
  [pair-m5]="--set pooler.heads=5"
  [pair-hdrop05]="--set head.dropout=0.5"
  [pair-uvd]="--set head.features=u,v,difference"
  [pair-h150]="--set encoder.hidden=150"
  [pair-lr5e-4]="--set train.lr=0.0005"
  [pair-hdrop01]="--set head.dropout=0.1"
  [pair-bs32]="--set train.batch_size=32"
  [pair-h150-ema1]="$H150_EMA1"
  [pair-h150-ema05]="--set encoder.hidden=150 --set train.ema_epochs=0.5"
  [pair-h150-ema2]="--set encoder.hidden=150 --set train.ema_epochs=2"
  [pair-h150-ema1-bs32]="$H150_EMA1 --set train.batch_size=32"
  [pair-h150-ema1-s2]="$H150_EMA1 --set pooler.score_scale=2"
  [pair-h150-ema1-s10]="$H150_EMA1 --set pooler.score_scale=10"
  [pair-h150-ema1-lr2e-3]="$H150_EMA1 --set train.lr=0.002"
  [pair-h150-ema1-e15]="$H150_EMA1 --set train.epochs=15"
  [pair-h150-ema1-dist]="$H150_EMA1 --set embedder.vectors=distilled+glove --set embedder.scale=0.15 --set tokenizer.min_frequency=2 --set tokenizer.keep_known=true --set tokenizer.pieces=true"
  [pair-h200-ema1]="--set encoder.hidden=200 --set train.ema_epochs=1"
  [minilm-frozen-matching]="--set head.type=matching_pair --set head.hidden=300 --set head.dropout=0.3"
  [gated-ema1]="$GATED"
  [gated-ema1-e20]="$GATED --set train.epochs=20"
  [gated-ema1-f100]="$GATED --set head.factors=100"
  [gated-ema1-f150]="$GATED --set head.factors=150"
  [gated-ema1-off05]="$GATED --set head.offset=0.5"
  [gated-ema1-bs32]="$GATED --set train.batch_size=32"
)
ORDER=(pair-base pair-edrop02 pair-m5 pair-hdrop05 pair-uvd pair-h150 pair-lr5e-4 pair-hdrop01 pair-bs32
       pair-h150-ema1 pair-h150-ema05 pair-h150-ema2 pair-h150-ema1-bs32 gated-ema1 gated-ema1-e20 gated-ema1-f100
       gated-ema1-f150 gated-ema1-off05 gated-ema1-bs32 pair-h150-ema1-s2 pair-h150-ema1-s10 pair-h150-ema1-lr2e-3
       pair-h150-ema1-e15 pair-h200-ema1 minilm-frozen-matching pair-h150-ema1-dist)
[[ ${#DATASETS[@]} -gt 0 ]] && ORDER=("${DATASETS[@]}")
for name in "${ORDER[@]}"; do
  for seed in "${SEEDS[@]}"; do
    echo "${RECIPE_OF[$name]:-default_pair} sick $seed --variant $name $SWEEP_TO ${CANDIDATES[$name]}"
  done
done | sed "s/ *$//" | run_jobs  # no trailing blank: xargs -L would join the next line
