"""The appendix's section on bf16 autocast on the lent GPU (issue 45, item 3; `benchmarks/gpu_precision.py`, run
there): milliseconds a MiniLM training step takes in fp32 and bf16, and `attentive train --recipe minilm` on SST-2
per batch size and precision, each epoch's seconds and dev accuracy."""
from __future__ import annotations


def gpu_precision_section(results: list[dict]) -> list[str]:
    runs = [r for r in results if r.get("kind") == "gpu_precision"]
    if not runs:
        return []
    lines = ["## bf16 autocast on the lent GPU", ""]
    for result in runs:
        micro = result["micro"]
        lines += [f"`{result['command']}` at `{result['git_commit']}` on an {result['device']} (torch "
                  f"{result['torch']}, TF32 {'on' if result['tf32_matmul'] else 'off'}), one seed. MiniLM-L6's "
                  f"training step, 32 random texts: fp32 {micro['fp32_one_length_ms_per_step']} ms at one length, "
                  f"{micro['fp32_new_lengths_ms_per_step']} ms at lengths each met once; bf16 autocast "
                  f"{micro['bf16_one_length_ms_per_step']} and {micro['bf16_new_lengths_ms_per_step']} ms. "
                  "`attentive train --dataset sst2 --recipe minilm` for two epochs, the forward pass under bf16 "
                  "autocast or not:", "",
                  "| batch | precision | epoch 1 s | epoch 2 s | dev accuracy after epoch 1, 2 |",
                  "| ---: | --- | ---: | ---: | --- |"]
        for run in result["runs"]:
            first, second = run["epoch_s"]
            lines.append(f"| {run['batch_size']} | {run['precision']} | {first:.2f} | {second:.2f} | "
                         + ", ".join(f"{100 * accuracy:.2f}" for accuracy in run["dev_accuracy"]) + " |")
        batches = dict.fromkeys(run["batch_size"] for run in result["runs"])  # each once, in the runs' order
        slower = {batch: [b / f for f, b in zip(by_precision(result, batch, "fp32"),
                                                by_precision(result, batch, "bf16"))] for batch in batches}
        lines += ["", "bf16 against fp32, epoch time: " + "; ".join(
            f"batch {batch}: {first:.1f}× in the first epoch (each padded length met once), {second:.1f}× in the "
            "second" for batch, (first, second) in slower.items()) + ".", ""]
    return lines


def by_precision(result: dict, batch_size: int, precision: str) -> list[float]:
    """The epoch seconds of the run at `batch_size` and `precision`."""
    return next(run["epoch_s"] for run in result["runs"]
                if run["batch_size"] == batch_size and run["precision"] == precision)
