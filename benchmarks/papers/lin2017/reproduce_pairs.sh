#!/usr/bin/env bash
# Text pairs on SICK (3-way entailment, TRIAL as dev): LAMA+Ctx attention with the matching-features head and with
# Lin et al.'s gated encoder, SAN with the gated encoder (Lin et al. Appendix B), and the pair bag-of-words baseline;
# 3 seeds each, word2vec trained on SICK or GloVe 6B-50d. Then `python -m benchmarks.render`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
GLOVE=(--set embedder.vectors=glove --set tokenizer.min_frequency=1)
$PY -m benchmarks.harness.baselines --dataset sick --model pair_bow_lr
for recipe in lama_pair san_pair; do
  $PY -m benchmarks.harness.run --recipe $recipe --dataset sick --seeds 0 1 2 "$@"
  $PY -m benchmarks.harness.run --recipe $recipe --dataset sick --seeds 0 1 2 "${GLOVE[@]}" --variant glove "$@"
done
for vectors in word2vec glove; do
  extra=(); variant=gated
  [[ $vectors == glove ]] && extra=("${GLOVE[@]}") && variant=gated-glove
  $PY -m benchmarks.harness.run --recipe lama_pair --dataset sick --seeds 0 1 2 --set head.type=gated_pair \
    --set head.factors=50 "${extra[@]}" --variant $variant "$@"
done
# The gated encoder as it trains here: factors layer-normalised and W_fp started as a copy of W_fh, GloVe; and what
# each matching feature carries on its own (dev-only study, results in benchmarks/results/sweeps/).
$PY -m benchmarks.harness.run --recipe lama_pair --dataset sick --seeds 0 1 2 --set head.type=gated_pair --set head.factors=50 \
  --set head.normalise=true --set head.same_start=true "${GLOVE[@]}" --variant gated-normalised-same-glove "$@"
for features in product difference; do
  $PY -m benchmarks.harness.run --recipe default_pair --dataset sick --seeds 0 1 2 --set head.features=$features \
    --variant features-$features --results-dir benchmarks/results/sweeps "$@"
done
# Commits 558cf12 to 61f2ee3: the gated encoder with 30 attention rows (Lin et al.'s r = 30), a 600-wide MLP, or no
# dropout in it; then with offset factors (6de4cd7; head.offset: F_h + c and F_p - c, whose product carries
# c (F_p - F_h)), alone and with one or more options (7786bf8: the best of them on default_pair's 150-wide biGRU;
# b972e8a: the best with a moving average of the weights, train.ema_epochs, attentive/training/averaging.py; fbb6d59:
# that with batches of 32, the only change above it on the held half of dev, benchmarks/sweep_pair.sh). The defaults
# section's gated row takes the variant with the best mean dev accuracy (benchmarks/product/accuracy/render_defaults.py).
GATED=(--set head.type=gated_pair --set head.factors=50 --set head.normalise=true --set head.same_start=true "${GLOVE[@]}")
for options in "pooler.heads=30" "head.hidden=600" "head.dropout=0" \
               "head.offset=1" "head.offset=1 pooler.heads=30" "head.offset=2 pooler.heads=30" \
               "head.offset=1 pooler.heads=30 head.dropout=0" "head.offset=1 head.factors=150" \
               "head.offset=1 head.hidden=600" "head.offset=1 pooler.heads=30 head.dropout=0 encoder.hidden=150" \
               "head.offset=1 pooler.heads=30 head.dropout=0 train.ema_epochs=1" \
               "head.offset=1 pooler.heads=30 head.dropout=0 train.ema_epochs=1 train.batch_size=32"; do
  sets=(); for option in $options; do sets+=(--set "$option"); done
  variant="gated-normalised-same-glove-$(echo "$options" | tr ' .=' '---')"
  $PY -m benchmarks.harness.run --recipe lama_pair --dataset sick --seeds 0 1 2 "${GATED[@]}" "${sets[@]}" --variant "$variant" "$@"
done
