"""BENCHMARKS.md's scaling section (issue 36), from `python -m benchmarks.scaling`: epoch time of one process of 1 and
2 threads against two torchrun processes of 1 thread on this machine's cores, and training lanes side by side."""
from __future__ import annotations

from benchmarks.results_io import machine_short

TITLE = "Training on several cores: threads, torchrun processes, lanes"


def scaling_section(results: list[dict]) -> list[str]:
    """The section's lines (the latest scaling result); [] without one."""
    if not results:
        return []
    result = max(results, key=lambda r: r.get("date", ""))
    lines = [f"## {TITLE}", "",
             f"The default recipe, mean epoch seconds over {result['epochs']} epochs, on {machine_short(result)} "
             f"([{result['name']}.json](benchmarks/results/{result['name']}.json)). Efficiency: the 1-thread time "
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
