"""BENCHMARKS.md's scaling section (issue 36), from `python -m benchmarks.product.scale.scaling`: epoch time of one
process of 1 and
2 threads against two torchrun processes of 1 thread on this machine's cores, and training lanes side by side."""
from __future__ import annotations

from benchmarks.harness.results_io import machine_short

TITLE = "Scaling out: threads, torchrun processes, lanes, batch scoring"


def scaling_section(results: list[dict]) -> list[str]:
    """The section's lines: the latest `scaling` result, then data-parallel accuracy (`ddp_accuracy`) and batch
    scoring (`throughput`: Ray against `predict --jobs`); [] without any."""
    scaling = [r for r in results if r.get("kind") == "scaling"]
    rest = _ddp_lines([r for r in results if r.get("kind") == "ddp_accuracy"]) + \
        _scoring_lines([r for r in results if r.get("kind") == "throughput"])
    if not scaling and not rest:
        return []
    return [f"## {TITLE}", ""] + (_epoch_lines(max(scaling, key=lambda r: r.get("date", ""))) if scaling else []) + rest


def _epoch_lines(result: dict) -> list[str]:
    lines = [
             f"The default recipe, mean epoch seconds over {result['epochs']} epochs, on {machine_short(result)} "
             f"([{result['name']}](benchmarks/results/{result['file']})). Efficiency: the 1-thread time "
             "over twice the 2-core time (1.0 perfect; 0.5: the second core bought nothing).", "",
             "| dataset | 1 process × 1 thread | 1 process × 2 threads | 2 processes × 1 thread (torchrun) | "
             "threads' efficiency | torchrun's efficiency | measured on |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for dataset, row in result["epoch_time"].items():
        lines.append(f"| {dataset} | {row['one_process_1_thread_s']:.1f} s | {row['one_process_2_threads_s']:.1f} s | "
                     f"{row['two_processes_1_thread_s']:.1f} s | {row['threads_efficiency']:.2f} | "
                     f"{row['ddp_efficiency']:.2f} | {row['measured_on']} |")
    lanes = result["lanes"]
    lines += ["", f"Lanes (SST-2, one epoch): alone with 1 thread {lanes['alone_1_thread_s']:.1f} s; two 1-thread "
                  f"lanes at once {' and '.join(f'{s:.1f} s' for s in lanes['two_lanes_1_thread_s'])} "
                  f"(slowdown {lanes['two_lanes_slowdown']:.2f}×, target ≤ 2×); two 2-thread jobs at once "
                  f"{' and '.join(f'{s:.1f} s' for s in lanes['two_jobs_2_threads_s'])} "
                  f"(slowdown {lanes['two_jobs_2_threads_slowdown']:.2f}×: what the thread defaults prevent).", ""]
    return lines


def _pct(summary: dict) -> str:
    return f"{100 * summary['mean']:.2f} ± {100 * summary['std']:.2f}"


def _ddp_lines(results: list[dict]) -> list[str]:
    lines = []
    for result in results:
        one, two, checks = result["one_process"], result["two_processes"], result["checks"]
        verdict = "within" if checks["two_process_test_mean_within_spread"] else "outside"
        lines += [f"Data-parallel accuracy ({result['dataset']}, recipe `{result['recipe']}`, seeds "
                  f"{', '.join(map(str, result['seeds']))}; [{result['name']}](benchmarks/results/"
                  f"{result['file']})): one process dev {_pct(one['dev_accuracy'])}, test "
                  f"{_pct(one['test_accuracy'])}; two torchrun processes dev {_pct(two['dev_accuracy'])}, test "
                  f"{_pct(two['test_accuracy'])}: {verdict} the one-process runs' mean ± 2 std.", ""]
    return lines


def _scoring_lines(results: list[dict]) -> list[str]:
    lines = []
    for result in results:
        checks = result["checks"]
        speeds = {name: result[key] for name, key in (("`predict --jobs 1`", "predict_jobs1"),
                                                      ("`predict --jobs 2`", "predict_jobs2"), ("Ray Data", "ray"))}
        shown = ", ".join(f"{name} {cell['texts_per_s_mean']:,.0f} ± {cell['texts_per_s_std']:,.0f} texts/s"
                          for name, cell in speeds.items())
        lines += [f"Batch scoring of {result['texts']:,} {result['dataset']} {result['split']} texts by an exported "
                  f"`{result['recipe']}` model ({result['repeats']} repeats; [{result['name']}](benchmarks/"
                  f"results/{result['file']})): {shown} (Ray: {result['ray']['actors']} actors of "
                  f"{result['ray']['threads']} thread, after {result['ray']['ray_init_s']:.1f} s of `ray.init`). "
                  f"`--jobs 2` wrote the same bytes as `--jobs 1`: {checks['jobs2_same_bytes_as_jobs1']}; Ray gave "
                  f"the same labels in order: {checks['same_labels_in_order']}. The machine was not quiet (load "
                  f"average {result['load_average_at_end'][0]:.1f} on 2 cores at the end), and `predict` also "
                  f"computes each text's top words: the speeds are not a fair comparison.", ""]
    return lines
