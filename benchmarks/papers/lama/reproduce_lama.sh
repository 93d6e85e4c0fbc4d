#!/usr/bin/env bash
# The LAMA / LAMA+Ctx rows of BENCHMARKS.md with the settings dev selected (see the sweep rows there), 3 seeds each.
# Runs on the CPU by default; add `--device cuda` to use a GPU. Then `python -m benchmarks.render`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
IMDB=(--set embedder.word2vec_extra=imdb_unsup --set tokenizer.max_length=800 --set pooler.heads=10 --set pooler.score_scale=5)
R8=(--set train.epochs=20 --set train.patience=5 --set tokenizer.max_length=1000 --set pooler.score_scale=5)
for recipe in lama_ctx lama; do
  $PY -m benchmarks.harness.run --recipe $recipe --dataset imdb --seeds 0 1 2 "${IMDB[@]}" --variant m10-scale5 "$@"
done
$PY -m benchmarks.harness.run --recipe lama_ctx --dataset r8 --seeds 0 1 2 "${R8[@]}" --variant L1000-scale5 "$@"
