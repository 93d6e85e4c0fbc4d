"""The appendix's bf16 section (benchmarks/render_gpu_precision.py): the runs' table and bf16's time against fp32's."""
from benchmarks.render_gpu_precision import gpu_precision_section


def run(batch_size: int, precision: str, seconds: list[float]) -> dict:
    return {"batch_size": batch_size, "precision": precision, "epoch_s": seconds, "dev_accuracy": [0.85, 0.86]}


def test_the_section_shows_each_run_and_bf16_against_fp32_per_epoch():
    result = {"kind": "gpu_precision", "command": "python -m benchmarks.gpu_precision", "git_commit": "abc1234",
              "device": "NVIDIA H200", "torch": "2.11", "tf32_matmul": False,
              "micro": {"fp32_one_length_ms_per_step": 13.0, "fp32_new_lengths_ms_per_step": 14.0,
                        "bf16_one_length_ms_per_step": 17.0, "bf16_new_lengths_ms_per_step": 180.0},
              "runs": [run(32, "fp32", [4.0, 3.0]), run(32, "bf16", [20.0, 4.5])]}
    lines = gpu_precision_section([result, {"kind": "other"}])
    assert lines[0] == "## bf16 autocast on the lent GPU"
    assert "| 32 | bf16 | 20.00 | 4.50 | 85.00, 86.00 |" in lines
    assert any("batch 32: 5.0× in the first epoch (each padded length met once), 1.5× in the second" in line
               for line in lines)
    assert gpu_precision_section([{"kind": "other"}]) == []
