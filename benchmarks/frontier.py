"""The accuracy–speed frontier (issue 45, item 2; benchmarks/notes.md, "The accuracy–speed frontier"): models that
read more word order at a higher price, timed as users deploy them, beside the peers, in one process on the same
test texts (benchmarks/deployable.py `timings`: int8 exports in ONNX Runtime on `predict` with its top five words and
on `predict_proba`, batches of 128 on 2 threads, the systems' passes taken in turn; p50 of one sentence on 1 thread).

    python -m benchmarks.frontier --dataset sst2 [--runs runs/frontier] [--shipped runs/shipped]

The timed models are each candidate's seed-0 model: the default as `benchmarks.shipped` trained it
(SHIPPED/DATASET/default-s0), and the folders `benchmarks.run --save-models RUNS/DATASET` kept for the default with a
32-unit biGRU (`--variant bigru32 --set encoder.type=bigru --set encoder.hidden=32`) and for `opinion` (`--variant
frontier`, seed 0). Their accuracy over three seeds comes from the result files, read where the table is rendered
(benchmarks/render_frontier.py); this run records speed and size only. Writes results/frontier-DATASET.json,
`"kind": "frontier"`. Nothing else may run beside it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import attentive
from benchmarks.baselines import split_xy
from benchmarks.common import commit_at_start, write_result
from benchmarks.deployable import timings

# system -> (recipe, variant) of its benchmarks.run files (the timed model is seed 0 of them)
CANDIDATES = {"default": ("default", "defaults"), "bigru32": ("default", "bigru32"), "opinion": ("opinion", "defaults")}


def folders(dataset: str, runs: Path, shipped: Path) -> dict[str, Path]:
    """Each candidate's seed-0 model folder (see the module's docstring); an error naming the first one missing."""
    found = {"default": shipped / dataset / "default-s0",
             "bigru32": runs / dataset / f"default-{dataset}-bigru32-s0",
             "opinion": runs / dataset / f"opinion-{dataset}-frontier-s0"}
    for name, folder in found.items():
        if not (folder / "config.json").is_file():
            raise SystemExit(f"no trained {name} model in {folder}: train it first (benchmarks/notes.md, "
                             f"\"The accuracy–speed frontier\")")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--runs", type=Path, default=Path("runs/frontier"))
    parser.add_argument("--shipped", type=Path, default=Path("runs/shipped"))
    parser.add_argument("--n", type=int, default=5000, help="the test texts timed")
    parser.add_argument("--repeats", type=int, default=300, help="calls of one sentence for the p50")
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.api.resolve_dataset(args.dataset)
    texts, _ = split_xy(data, "test")
    measured, sizes = timings(folders(data.name, args.runs, args.shipped), data, texts[: args.n], args.repeats)
    payload = {"kind": "frontier", "dataset": data.name, "seed": 0, "n_texts": len(texts[: args.n]),
               "candidates": {name: list(runs_of) for name, runs_of in CANDIDATES.items()},
               "systems": {name: {**measured[name], **sizes[name]} for name in measured}}
    path = write_result(f"frontier-{data.name}", payload)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
