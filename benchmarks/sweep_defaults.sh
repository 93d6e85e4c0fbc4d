#!/usr/bin/env bash
# The dev-accuracy sweep behind the default recipe (issue 15; protocol in benchmarks/notes.md, "Choosing the
# defaults"). Each candidate is lama_ctx plus overrides, trained with seed 0 on every cheap visible single-text
# dataset; candidates are compared by their MEAN DEV accuracy over the datasets (python -m benchmarks.sweep_table),
# never by test and never per dataset. Results go to benchmarks/results/sweeps/ (not rendered into BENCHMARKS.md).
# With HELD=F, a stratified fraction F of each dev split chooses no epoch and scores the candidates instead
# (benchmarks/run.py --held-out-dev; results in benchmarks/results/sweeps-held/, `sweep_table --held`): the dev
# accuracy at the chosen epoch grows with the number of dev measurements, which candidates need not share.
#   [JOBS=2] [SEEDS="0 1"] [HELD=0.5] benchmarks/sweep_defaults.sh [CANDIDATE ...]   (default: every candidate, seed 0)
set -euo pipefail
cd "$(dirname "$0")/.."
DEFAULT_SEEDS="0"
source benchmarks/jobs.sh
SWEEP_DATASETS=(sst2 sst5 opener sentube_auto sentube_tablets semeval2013 r8)
DIST="--set embedder.vectors=distilled --set embedder.scale=0.15 --set tokenizer.min_frequency=2 --set tokenizer.keep_known=true --set tokenizer.pieces=true"
# Candidate dist-glove-wide-edrop02-b1m-lr5e-4: the default recipe's settings, at the sweep's 400 tokens (the default
# reads whole texts since session 14); the -lr5e-4-* candidates change it one setting at a time
LR5E4="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set embedder.dropout=0.2 --set wide.buckets=1048576 --set train.lr=0.0005"
declare -A CANDIDATES=(
  [base]=""
  [glove-f1]="--set embedder.vectors=glove --set tokenizer.min_frequency=1"
  [dist]="$DIST"
  [dist-glove]="$DIST --set embedder.vectors=distilled+glove"
  [dist-raw]="$DIST --set embedder.scale=null"
  [dist-m5-s1]="$DIST --set pooler.heads=5 --set pooler.score_scale=1"
  [dist-wide]="$DIST --set wide.type=ngrams --set train.wide_lr=0.03"
  [dist-glove-wide]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03"
  [dist-frozen]="$DIST --set embedder.trainable=false"
  [dist-frozen-wide]="$DIST --set embedder.trainable=false --set wide.type=ngrams --set train.wide_lr=0.03"
  [dist-wide-m5-s1]="$DIST --set wide.type=ngrams --set train.wide_lr=0.03 --set pooler.heads=5 --set pooler.score_scale=1"
  [dist-wide-lr01]="$DIST --set wide.type=ngrams --set train.wide_lr=0.1"
  [dist-glove-wide-w2v]="$DIST --set embedder.vectors=distilled+glove+word2vec --set wide.type=ngrams --set train.wide_lr=0.03"
  [dist-glove-wide-edrop02]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set embedder.dropout=0.2"
  [dist-glove-wide-edrop02-b1m]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set embedder.dropout=0.2 --set wide.buckets=1048576"
  [dist-glove-wide-edrop02-m5]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set embedder.dropout=0.2 --set pooler.heads=5"
  [dist-glove-wide-edrop02-b1m-lr5e-4]="$LR5E4"
  [dist-glove-wide-b1m-lr5e-4]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set wide.buckets=1048576 --set train.lr=0.0005"
  [dist-glove-wide-edrop02-lr5e-4]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set train.wide_lr=0.03 --set embedder.dropout=0.2 --set train.lr=0.0005"
  [dist-glove-wide-edrop02-b1m-lr5e-4-ema05]="$LR5E4 --set train.ema_epochs=0.5"
  [dist-glove-wide-edrop02-b1m-lr5e-4-ema1]="$LR5E4 --set train.ema_epochs=1"
  [dist-glove-wide-edrop02-b1m-lr5e-4-wlr0015]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set embedder.dropout=0.2 --set wide.buckets=1048576 --set train.lr=0.0005 --set train.wide_lr=0.015"
  [dist-glove-wide-edrop02-b1m-lr5e-4-wlr006]="$DIST --set embedder.vectors=distilled+glove --set wide.type=ngrams --set embedder.dropout=0.2 --set wide.buckets=1048576 --set train.lr=0.0005 --set train.wide_lr=0.06"
  [dist-glove-wide-edrop02-b1m-lr5e-4-h150]="$LR5E4 --set encoder.hidden=150"
  [dist-glove-wide-edrop02-b1m-lr5e-4-hdrop03]="$LR5E4 --set head.dropout=0.3"
)
ORDER=(base dist dist-wide dist-frozen glove-f1 dist-glove-wide dist-wide-lr01 dist-wide-m5-s1 dist-m5-s1 dist-raw
       dist-glove dist-frozen-wide dist-glove-wide-w2v dist-glove-wide-edrop02 dist-glove-wide-edrop02-b1m
       dist-glove-wide-edrop02-m5 dist-glove-wide-edrop02-b1m-lr5e-4 dist-glove-wide-b1m-lr5e-4
       dist-glove-wide-edrop02-lr5e-4 dist-glove-wide-edrop02-b1m-lr5e-4-ema05 dist-glove-wide-edrop02-b1m-lr5e-4-ema1
       dist-glove-wide-edrop02-b1m-lr5e-4-wlr0015 dist-glove-wide-edrop02-b1m-lr5e-4-wlr006
       dist-glove-wide-edrop02-b1m-lr5e-4-h150 dist-glove-wide-edrop02-b1m-lr5e-4-hdrop03)
[[ ${#DATASETS[@]} -gt 0 ]] && ORDER=("${DATASETS[@]}")
for name in "${ORDER[@]}"; do
  for seed in "${SEEDS[@]}"; do
    for dataset in "${SWEEP_DATASETS[@]}"; do
      echo "lama_ctx $dataset $seed --variant $name $SWEEP_TO ${CANDIDATES[$name]}"
    done
  done
done | sed "s/ *$//" | run_jobs  # no trailing blank: xargs -L would join the next line
