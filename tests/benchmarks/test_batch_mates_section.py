"""The appendix's batch-mates section (benchmarks/render_batch_mates.py): one row a dataset and graph."""
from benchmarks.render_batch_mates import batch_mates_section


def graph(change: float, flipped: int) -> dict:
    return {"max_probability_change": change, "mean_probability_change": change / 10, "labels_changed": flipped,
            "accuracy_alone": 0.8312, "accuracy_batched": 0.8307}


def test_each_dataset_and_graph_is_a_row():
    result = {"kind": "batch_mates", "dataset": "sst2", "n_texts": 1821, "call": 128,
              "graphs": {"fp32": graph(2e-7, 0), "int8": graph(0.011, 3)}}
    lines = batch_mates_section([result, {"kind": "shipped", "dataset": "sst2"}])
    assert lines[0] == "## An int8 answer and its batch-mates"
    assert "| sst2 | fp32 | 1,821 | 2e-07 | 2e-08 | 0 | 83.12 | 83.07 |" in lines
    assert "| sst2 | int8 | 1,821 | 0.011 | 0.0011 | 3 | 83.12 | 83.07 |" in lines
    assert batch_mates_section([]) == []
