#!/usr/bin/env bash
# Issue-6 material: Sun & Lu's model for λ ∈ {1, 10, 100} on SST-2 and IMDB, and the deletion test for LAMA,
# LAMA+Ctx, SAN with and without its penalty (squared as in the paper, and unsquared as in the authors' code)
# and SSAN+RPR on SST-2. Every run also writes its `attentive analyze` report
# (runs/reports/NAME/index.html) and keeps entropy, redundancy and deletion numbers in its result JSON.
# IMDB gets one seed per λ (CPU time). Then `python -m benchmarks.render`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
REPORTS=${REPORTS:-runs/reports}
for scale in 1 10 100; do
  $PY -m benchmarks.harness.run --recipe sunlu --dataset sst2 --seeds 0 1 2 --set pooler.scale=$scale --variant lambda$scale \
    --analyze "$REPORTS" "$@"
done
for recipe in lama_ctx lama san; do
  $PY -m benchmarks.harness.run --recipe $recipe --dataset sst2 --seeds 0 1 2 --variant explain --analyze "$REPORTS" "$@"
done
$PY -m benchmarks.harness.run --recipe san --dataset sst2 --seeds 0 1 2 --variant explain-penalty0 \
  --set train.regulariser.weight=0 --analyze "$REPORTS" "$@"
# the penalty as the authors' code computes it: the Frobenius norm, not its square
$PY -m benchmarks.harness.run --recipe san --dataset sst2 --seeds 0 1 2 --variant explain-norm1 \
  --set train.regulariser.type=frobenius_norm --analyze "$REPORTS" "$@"
# SSAN pools by averaging: its attention is what each word receives in the self-attention (SSANEncoder)
$PY -m benchmarks.harness.run --recipe ssan_rpr --dataset sst2 --seeds 0 1 2 --variant explain --analyze "$REPORTS" "$@"
for scale in 1 10 100; do
  $PY -m benchmarks.harness.run --recipe sunlu --dataset imdb --seeds 0 --set pooler.scale=$scale --variant lambda$scale \
    --set embedder.word2vec_extra=imdb_unsup --set tokenizer.max_length=800 --analyze "$REPORTS" "$@"
done
