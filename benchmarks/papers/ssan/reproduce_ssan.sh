#!/usr/bin/env bash
# The SSAN paper's Table 2 shape (Ambartsoumian & Popowich 2018) on the six Barnes et al. (2017) datasets with
# GloVe 6B-50d: BoW and Ave (logistic regression), Barnes et al.'s LSTM, BiLSTM and CNN, 1-layer SSAN without
# positions, with PE and with RPR, 2-layer SSAN + RPR, Transformer + PE and + RPR; 5 seeds each (SEEDS to change).
# Each (recipe, dataset, seed) is its own job: JOBS=N runs N at once (one thread each), and runs whose result
# file exists are skipped, so an interrupted table resumes where it stopped. Then the model-characteristics table
# (Table 3): `python -m benchmarks.papers.ssan.characteristics --epochs 10`, and `python -m benchmarks.render`.
# Barnes et al.'s LSTM, BiLSTM and CNN first run seed 0 at word-vector dropout 0.1 and 0.5 beside the recipes' 0.3;
# every seed then runs the rate dev chose per dataset (`python -m benchmarks.papers.ssan.render_ssan` prints the choices).
# VECTORS=w2v300 runs the neural rows again on 300-d word2vec trained with gensim on each training set (variant
# `w2v300`: d_model 300, so the self-attention rows take the paper's lr 0.1 and a 300-d sentence vector and the
# Transformer a 4 x d_model feed-forward, as their recipes say; Barnes et al.'s rows keep their 50-d ReLU layer and
# the recipes' dropout); BoW and Ave are not rerun.
# Usage: [SEEDS="0 1 2"] [JOBS=2] [VECTORS=w2v300] benchmarks/papers/ssan/reproduce_ssan.sh [DATASET ...] [-- extra run args]
set -euo pipefail
cd "$(dirname "$0")/../../.."
DEFAULT_SEEDS="0 1 2 3 4"
source benchmarks/harness/jobs.sh "$@"
case "${VECTORS:-}" in "" | w2v300) ;; *) echo "VECTORS must be empty or w2v300, not ${VECTORS}" >&2; exit 2 ;; esac
[[ ${#DATASETS[@]} -eq 0 ]] && DATASETS=(barnes_sst_fine barnes_sst_binary opener sentube_auto sentube_tablets semeval2013)
for data in "${DATASETS[@]}"; do
  [[ -n "${VECTORS:-}" ]] && break
  for model in bow_lr ave_lr; do
    $PY -m benchmarks.harness.baselines --dataset "$data" --model $model
  done
done
BARNES=(barnes_lstm barnes_bilstm barnes_cnn)
if [[ -z "${VECTORS:-}" ]]; then  # the dropout sweep (seed 0), then the choices as `RECIPE DATASET [arguments]`
  for data in "${DATASETS[@]}"; do
    for recipe in "${BARNES[@]}"; do
      echo "$recipe $data 0"
      echo "$recipe $data 0 --variant edrop01 --set embedder.dropout=0.1"
      echo "$recipe $data 0 --variant edrop05 --set embedder.dropout=0.5"
    done
  done | run_jobs
  CHOSEN=$($PY -m benchmarks.papers.ssan.render_ssan)
fi
settings_for() {  # RECIPE DATASET -> its run arguments: the dev-chosen dropout, or the VECTORS variant's settings
  case "${VECTORS:-}" in
    "") [[ $1 == barnes_* ]] && grep -m 1 "^$1 $2\( \|$\)" <<< "$CHOSEN" | cut -s -d ' ' -f 3- || true ;;
    w2v300) echo "--variant w2v300 --set embedder.vectors=word2vec --set embedder.dim=300" ;;
  esac
}
for seed in "${SEEDS[@]}"; do
  for data in "${DATASETS[@]}"; do
    for recipe in "${BARNES[@]}" ssan ssan_pe ssan_rpr ssan2_rpr transformer_pe transformer_rpr; do
      settings=$(settings_for $recipe $data)
      echo "$recipe $data $seed${settings:+ $settings}"
    done
  done
done | run_jobs
