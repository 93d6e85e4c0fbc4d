#!/usr/bin/env bash
# The defaults table (BENCHMARKS.md's first section): the default path — recipe `default`, no --set — on
# every visible single-text dataset with 3 seeds (result files with variant `defaults` and empty overrides), and
# TF-IDF + LR and fastText, tuned on dev, on the same splits. The aspect and pair sets (semeval14_category,
# semeval14_term, sick), where `default` stands for default_aspect, default_aspect_terms and default_pair, are run the
# same way with their own n-gram baseline (TF-IDF + LR on "aspect [ASP] text", the pair BoW). Resumes: a run whose
# result file exists is skipped.
#   [JOBS=N] [SEEDS="0 1 2"] benchmarks/product/accuracy/reproduce_defaults.sh [DATASET ...]
set -euo pipefail
cd "$(dirname "$0")/../../.."
DEFAULT_SEEDS="0 1 2"
source benchmarks/harness/jobs.sh
[[ ${#DATASETS[@]} -eq 0 ]] && DATASETS=(sst2 sst5 opener sentube_auto sentube_tablets semeval2013 r8 imdb news
                                         semeval14_category semeval14_term sick)
for dataset in "${DATASETS[@]}"; do
  case $dataset in
    semeval14_*) baselines=(tfidf_lr) ;;
    sick) baselines=(pair_bow_lr) ;;
    *) baselines=(tfidf_lr fasttext) ;;
  esac
  for model in "${baselines[@]}"; do
    [[ -f "benchmarks/results/$model-$dataset-s0.json" ]] || "$PY" -m benchmarks.harness.baselines --dataset "$dataset" --model "$model"
  done
done
for dataset in "${DATASETS[@]}"; do
  for seed in "${SEEDS[@]}"; do echo "default $dataset $seed --variant defaults"; done
done | run_jobs
