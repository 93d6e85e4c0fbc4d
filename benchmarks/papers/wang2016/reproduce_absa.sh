#!/usr/bin/env bash
# Aspect-category sentiment on SemEval-2014 restaurants (Wang et al. 2016 setting), 3-way and binary:
# LSTM, AE-LSTM, AT-LSTM, ATAE-LSTM, ATAE-LSTM + each attention regulariser (Bao et al. 2019), LAMA and SAN given
# the aspect; 5 seeds each. Then two 3-seed variants: AT/ATAE-LSTM with Wang et al.'s literal Eq. 1 (form=concat),
# and ATAE-LSTM with Wang et al.'s optimiser (AdaGrad 0.01, L2 0.001). Then `python -m benchmarks.render`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
SEEDS=(0 1 2 3 4)
for data in semeval14_category semeval14_category_binary; do
  for recipe in lstm ae_lstm at_lstm atae_lstm lama_aspect san_aspect; do
    $PY -m benchmarks.harness.run --recipe $recipe --dataset $data --seeds "${SEEDS[@]}" "$@"
  done
  for regulariser in std neg_entropy; do
    $PY -m benchmarks.harness.run --recipe atae_lstm --dataset $data --seeds "${SEEDS[@]}" --variant $regulariser-0.1 \
      --set train.regulariser.type=$regulariser --set train.regulariser.weight=0.1 "$@"
  done
done
for data in semeval14_category semeval14_category_binary; do
  for recipe in at_lstm atae_lstm; do
    $PY -m benchmarks.harness.run --recipe $recipe --dataset $data --seeds 0 1 2 --variant concat --set pooler.form=concat "$@"
  done
  $PY -m benchmarks.harness.run --recipe atae_lstm --dataset $data --seeds 0 1 2 --variant adagrad --set train.optimizer=adagrad \
    --set train.lr=0.01 --set train.weight_decay=0.001 "$@"
done
