"""The accuracy–speed frontier (issue 45, item 2; benchmarks/DECISIONS.md, "The accuracy–speed frontier"): models that
read more word order at a higher price, timed as users deploy them, beside the peers, in one process on the same
test texts (benchmarks/product/deploy/deployable.py `timings`: int8 exports in ONNX Runtime on `predict` with its top
five words and
on `predict_proba`, batches of 128 on 2 threads, the systems' passes taken in turn; p50 of one sentence on 1 thread).

    python -m benchmarks.product.deploy.frontier --dataset sst2 [--runs runs/frontier] [--shipped runs/shipped]
    python -m benchmarks.product.deploy.frontier --plot      # results/frontier.png from every frontier run's results

The timed models are each candidate's seed-0 model: the default as `benchmarks.product.deploy.shipped` trained it
(SHIPPED/DATASET/default-s0), and the folders `benchmarks.harness.run --save-models RUNS/DATASET` kept for the default
with a
32-unit biGRU (`--variant bigru32 --set encoder.type=bigru --set encoder.hidden=32`) and for `opinion` (`--variant
frontier`, seed 0). Their accuracy over three seeds comes from the result files, read where the table is rendered
(benchmarks/product/deploy/render_frontier.py); this run records speed and size only. Writes
results/frontier-DATASET.json,
`"kind": "frontier"`. Nothing else may run beside it. `--plot` draws every dataset's points (test accuracy against
texts/s, the frontier joined) into results/frontier.png, which BENCHMARKS.md links.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import attentive
from benchmarks.harness.baselines import split_xy
from benchmarks.harness.common import RESULTS_DIR, commit_at_start, write_result
from benchmarks.harness.results_io import load_results, of_kind_by_dataset
from benchmarks.product.deploy.deployable import timings
from benchmarks.product.deploy.render_frontier import PLOT, SYSTEM_LABELS, on_frontier, points

# system -> (recipe, variant) of its benchmarks.harness.run files (the timed model is seed 0 of them)
CANDIDATES = {"default": ("default", "defaults"), "bigru32": ("default", "bigru32"), "opinion": ("opinion", "defaults")}


def folders(dataset: str, runs: Path, shipped: Path) -> dict[str, Path]:
    """Each candidate's seed-0 model folder (see the module's docstring); an error naming the first one missing."""
    found = {"default": shipped / dataset / "default-s0",
             "bigru32": runs / dataset / f"default-{dataset}-bigru32-s0",
             "opinion": runs / dataset / f"opinion-{dataset}-frontier-s0"}
    for name, folder in found.items():
        if not (folder / "config.json").is_file():
            raise SystemExit(f"no trained {name} model in {folder}: train it first (benchmarks/DECISIONS.md, "
                             f"\"The accuracy–speed frontier\")")
    return found


def plot(results: list[dict], path: Path) -> None:
    """One panel a dataset: each system's mean test accuracy against its texts/s (log scale), the frontier's points
    joined fastest first."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = of_kind_by_dataset(results, "frontier")
    columns, rows = 4, (len(runs) + 3) // 4
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.4 * rows), squeeze=False)
    for axis, result in zip(axes.flat, runs):
        found = {name: p for name, p in points(result, results).items() if p["test"]}
        means = {name: 100 * statistics.fmean(p["test"]) for name, p in found.items()}
        for name, point in found.items():
            ours = name in result["candidates"]
            axis.scatter(point["speed"], means[name], marker="o" if ours else "s", color="C0" if ours else "C1")
            axis.annotate(SYSTEM_LABELS[name], (point["speed"], means[name]), fontsize=7, xytext=(3, 3),
                          textcoords="offset points")
        best = sorted(on_frontier(found), key=lambda name: found[name]["speed"])
        axis.plot([found[n]["speed"] for n in best], [means[n] for n in best], color="grey", linewidth=0.8, zorder=0)
        axis.set_xscale("log")
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # minor labels overlap on a short range
        axis.set_title(result["dataset"], fontsize=9)
        axis.set_xlabel("predict texts/s", fontsize=8)
        axis.set_ylabel("test accuracy (%)", fontsize=8)
        axis.tick_params(labelsize=7)
    for axis in list(axes.flat)[len(runs):]:
        axis.set_visible(False)
    fig.suptitle("test accuracy against predict texts/s: ours (circles), the peers (squares), the frontier joined",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset")
    parser.add_argument("--plot", action="store_true", help="draw results/frontier.png and stop")
    parser.add_argument("--runs", type=Path, default=Path("runs/frontier"))
    parser.add_argument("--shipped", type=Path, default=Path("runs/shipped"))
    parser.add_argument("--n", type=int, default=5000, help="the test texts timed")
    parser.add_argument("--repeats", type=int, default=300, help="calls of one sentence for the p50")
    args = parser.parse_args(argv)
    if args.plot:
        plot(load_results(RESULTS_DIR)[0], RESULTS_DIR / PLOT)
        print(RESULTS_DIR / PLOT)
        return 0
    if not args.dataset:
        parser.error("--dataset is required (or --plot)")
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
