#!/usr/bin/env bash
# Lin et al. 2017, Appendix A / Table 4: the pruned MLP against the full one. `san_pruned` runs with the settings of
# the `san` rows it is set beside (attention penalty 0, the coefficient dev chose on R8; R8 as in
# reproduce_table3.sh), 3 seeds each (SEEDS to change), on SST-2 and R8; the `san` rows come from
# reproduce_table3.sh (R8) and the penalty study (SST-2, `--variant penalty0`), and run here too when missing. Each
# (recipe, dataset, seed) is its own job: JOBS=N runs N at once, one thread each, and runs whose result file exists
# are skipped. Then `python -m benchmarks.render` (the "Pruned MLP" section).
# Usage: [SEEDS="0 1 2"] [JOBS=2] benchmarks/papers/lin2017/reproduce_pruned.sh [-- extra benchmarks.harness.run arguments]
set -euo pipefail
cd "$(dirname "$0")/../../.."
DEFAULT_SEEDS="0 1 2"
source benchmarks/harness/jobs.sh "$@"
R8="--set train.epochs=20 --set train.patience=5 --set tokenizer.max_length=1000"
for seed in "${SEEDS[@]}"; do
  for recipe in san san_pruned; do
    echo "$recipe sst2 $seed --variant penalty0 --set train.regulariser.weight=0"
    echo "$recipe r8 $seed --variant L1000-penalty0 $R8 --set train.regulariser.weight=0"
  done
done | run_jobs
