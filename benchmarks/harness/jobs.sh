# Sourced by the reproduce scripts and benchmarks/sweep.py as `source benchmarks/harness/jobs.sh "$@"`: reads their
# `[DATASET ...] [-- extra benchmarks.harness.run arguments]` into DATASETS and EXTRA, the SEEDS variable (default
# DEFAULT_SEEDS) into the array SEEDS, and defines run_jobs, which runs benchmarks.harness.run jobs JOBS at a time.
PY=${PY:-.venv/bin/python}
read -r -a SEEDS <<< "${SEEDS:-$DEFAULT_SEEDS}"
DATASETS=()
while [[ $# -gt 0 && "$1" != "--" ]]; do DATASETS+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
EXTRA=""  # the extra arguments, quoted into the command each job runs
[[ $# -gt 0 ]] && EXTRA=$(printf ' %q' "$@")

# stdin: one job per line, `RECIPE DATASET SEED [benchmarks.harness.run arguments]` (no trailing blank: xargs -L joins a line
# that ends in one with the next). Each job runs on one thread unless OMP_NUM_THREADS says otherwise, and a run
# whose result file exists is skipped, so an interrupted script resumes where it stopped.
run_jobs() {
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} xargs -P "${JOBS:-1}" -L 1 bash -c \
    "$PY"' -m benchmarks.harness.run --recipe "$1" --dataset "$2" --seeds "$3" "${@:4}" --skip-existing --no-progress'"$EXTRA" _
}
