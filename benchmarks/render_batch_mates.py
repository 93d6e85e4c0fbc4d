"""The appendix's section on how an export's answer to a text moves with the texts batched with it
(`python -m benchmarks.batch_mates --dataset D`): per dataset and graph (fp32, int8), the largest and the mean change
of a probability between a text answered alone and in calls of 128, the labels changed, and the accuracy either way."""
from __future__ import annotations

from benchmarks.results_io import of_kind_by_dataset


def batch_mates_section(results: list[dict]) -> list[str]:
    runs = of_kind_by_dataset(results, "batch_mates")
    if not runs:
        return []
    lines = ["## An int8 answer and its batch-mates", "",
             "Each test text answered alone (a call of one text) and in calls of 128 in the test set's order, by the "
             "default's export, one thread (`python -m benchmarks.batch_mates --dataset D`). ONNX Runtime's int8 "
             "graph scales each matrix product's input to int8 by the range of the whole batch, so a text's "
             "probabilities move a little with the texts batched with it; the fp32 graph's only by rounding.", "",
             "| dataset | graph | texts | largest change | mean change | labels changed | accuracy alone | "
             "accuracy in calls |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for result in runs:
        for graph, found in result["graphs"].items():
            lines.append(f"| {result['dataset']} | {graph} | {result['n_texts']:,} | "
                         f"{found['max_probability_change']:.2g} | {found['mean_probability_change']:.2g} | "
                         f"{found['labels_changed']} | {100 * found['accuracy_alone']:.2f} | "
                         f"{100 * found['accuracy_batched']:.2f} |")
    return lines + [""]
