#!/usr/bin/env bash
# The number of heads (LAMA paper §5.2): LAMA on IMDB with m = 1, 5, 10, 15, 20 heads, 3 seeds each (SEEDS to
# change), dev and test accuracy per m in BENCHMARKS.md's "Number of heads" section. A CPU budget: texts cut to 400
# tokens, at most 3 epochs with patience 1 (variant `heads-L400-m<m>`). Each (m, seed) is its own job: JOBS=N runs N
# at once, one thread each, and runs whose result file exists are skipped. Then `python -m benchmarks.render`.
# Usage: [SEEDS="0 1 2"] [JOBS=2] benchmarks/papers/lama/reproduce_heads.sh [-- extra benchmarks.harness.run arguments]
set -euo pipefail
cd "$(dirname "$0")/../../.."
DEFAULT_SEEDS="0 1 2"
source benchmarks/harness/jobs.sh "$@"
SETTINGS="--set embedder.word2vec_extra=imdb_unsup --set tokenizer.max_length=400 --set train.epochs=3 --set train.patience=1"
for seed in "${SEEDS[@]}"; do
  for heads in 1 5 10 15 20; do
    echo "lama imdb $seed --variant heads-L400-m$heads --set pooler.heads=$heads $SETTINGS"
  done
done | run_jobs
