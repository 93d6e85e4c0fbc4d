"""The SSAN paper's Table 3 measured here: parameters (with and without word vectors), time to train 10 epochs of
SST-fine, time to predict dev 10 times, peak memory; each recipe in its own subprocess (its own ru_maxrss).

    python -m benchmarks.papers.ssan.characteristics"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.harness.formatting import fmt_seconds, md_head
from benchmarks.harness.results_io import load_papers

RECIPES = ("barnes_lstm", "barnes_bilstm", "barnes_cnn", "ssan", "ssan_pe", "ssan_rpr", "ssan2_rpr",
           "transformer_pe", "transformer_rpr")
HIDDEN_300 = {"encoder": {"lstm": ["hidden=300"], "bilstm": ["hidden=300"], "cnn": ["maps=300"],
                          "transformer": ["ff=1200"]},
              "head": {"mlp": ["hidden=300"]}}
COMMON = ["embedder.vectors=random", "embedder.dim=300", "train.optimizer=adam", "train.lr=0.001",
          "train.batch_size=32", "train.batches_per_epoch=0", "train.patience=1000"]


def overrides_for(recipe_name: str, epochs: int) -> list[str]:
    from attentive import load_recipe

    recipe = load_recipe(recipe_name)
    sizes = [f"{section}.{setting}" for section, kinds in HIDDEN_300.items()
             for setting in kinds.get(getattr(recipe, section).type, [])]
    return COMMON + sizes + [f"train.epochs={epochs}"]


def measure_one(recipe: str, epochs: int) -> dict:
    """In the child: train `recipe` on SST-fine, then time the network alone on the encoded dev set 10 times."""
    import torch

    import attentive

    data = attentive.api.resolve_dataset("barnes_sst_fine")
    model = attentive.train(data, recipe, overrides=overrides_for(recipe, epochs), show_progress=False)
    dev = model.encode_examples(data.splits["dev"])
    started = time.perf_counter()
    for _ in range(10):
        attentive.api.encoded_probabilities(model, dev, batch_size=32)
    inference_seconds = time.perf_counter() - started
    trainable = sum(p.numel() for p in model.network.parameters() if p.requires_grad)
    embedding = model.network.embedder.table.weight.numel()
    return {"recipe": recipe, "params": trainable, "params_without_embeddings": trainable - embedding,
            "train_seconds": round(sum(model.config["training"]["epoch_seconds"]), 1), "epochs": epochs,
            "dev_inference_10x_seconds": round(inference_seconds, 2), "dev_texts": len(dev),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "torch_threads": torch.get_num_threads()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # the child process: measure one recipe
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one, args.epochs)))
        return 0
    commit_at_start()
    rows, started = [], time.perf_counter()
    for recipe in RECIPES:
        child = subprocess.run([sys.executable, "-m", "benchmarks.papers.ssan.characteristics", "--one", recipe,
                                "--epochs", str(args.epochs)], capture_output=True, text=True, check=True)
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    payload = {"kind": "characteristics", "dataset": "barnes_sst_fine", "model": "ssan_table3", "seed": 0,
               "wall_time_s": round(time.perf_counter() - started, 1), "rows": rows,
               "settings": {"hidden": 300, "batch_size": 32, "optimizer": "adam", "vectors": "random 300-d"}}
    print(write_result("characteristics-barnes_sst_fine", payload))
    return 0


def characteristic_ratios(rows: list[dict]) -> list[str]:
    """The paper's comparisons as table rows: its GPU ratio beside ours."""
    by_recipe = {row["recipe"]: row for row in rows}
    paper = load_papers()["ssan"]
    lines = md_head(["comparison", "paper (GPU)", "ours (this CPU)"], "lrr")
    for claim in paper["characteristics"]:  # a ratio of one measurement between two groups of rows
        top, bottom = ([by_recipe[n][claim["measure"]] for n in claim[side] if n in by_recipe]
                       for side in ("numerator", "denominator"))
        if top and bottom:  # a group's mean is over its rows that were measured
            ratio = statistics.fmean(top) / statistics.fmean(bottom)
            lines.append(f"| {claim['label']} | {claim['paper']} | {ratio:.3f} |")
    fewest = min(rows, key=lambda row: row["params_without_embeddings"])["recipe"]
    return lines + [f"| fewest parameters without word vectors | {paper['fewest_parameters_without_vectors']} "
                    f"| {fewest} |"]


def characteristics_section(result: dict) -> list[str]:
    """The SSAN paper's Table 3 on this machine and its comparisons."""
    settings, rows = result["settings"], result["rows"]
    threads = sorted({row.get("torch_threads", "?") for row in rows})
    lines = ["## Model characteristics (SSAN paper Table 3)", "",
             f"SST-fine, hidden {settings['hidden']}, batch {settings['batch_size']}, {settings['optimizer']}, "
             f"{settings['vectors']} vectors; one process per model, one after another on the same machine, "
             f"torch threads {'/'.join(map(str, threads))} (`python -m benchmarks.papers.ssan.characteristics`, commit "
             f"`{result.get('git_commit', '?')}`, {result.get('date', '?')[:10]}). Train time counts the training "
             "steps alone; peak memory is the process's resident set (the paper measured GPU memory).", "",
             f"| recipe | trainable params | without word vectors | train {rows[0]['epochs']} epochs "
             "| dev inference ×10 | peak memory (MiB) |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row['recipe']} | {row['params']:,} | {row['params_without_embeddings']:,} | "
                     f"{fmt_seconds(row['train_seconds'])} | {fmt_seconds(row['dev_inference_10x_seconds'])} | "
                     f"{row['peak_rss_mib']:.0f} |")
    return lines + ["", "The paper's comparisons (its §Model Characteristics) beside the same ratios here:", ""] + \
        characteristic_ratios(rows) + [""]


if __name__ == "__main__":
    raise SystemExit(main())
