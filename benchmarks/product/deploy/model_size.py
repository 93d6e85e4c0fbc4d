"""The size of the saved model folder the default path gives on a dataset (issue 15: under 100 MB for IMDB).

    python -m benchmarks.product.deploy.model_size --dataset imdb [--recipe default]

The model is built (vocabulary and initial vectors exactly as training builds them), saved without training, and
measured file by file. Until commit 96637da that was the trained folder's size too, which depends on the shapes
alone; since then a folder stores only the nonzero rows of its n-gram table, which untrained holds none, so this
measures the folder without them (a lower bound) and the deployable table's `saved MB` measures trained folders.
Writes results/size-RECIPE-DATASET.json.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from attentive.api import untrained
from benchmarks.harness.common import write_result


def folder_size(recipe_name: str, dataset_name: str) -> dict:
    """The files of the folder of the untrained model `recipe_name` builds on `dataset_name`. The model is built by
    `attentive.api.untrained`, as training builds it."""
    model = untrained(dataset_name, recipe_name)
    with tempfile.TemporaryDirectory() as tmp:
        model.save(Path(tmp) / "model")
        files = {path.name: path.stat().st_size for path in sorted((Path(tmp) / "model").iterdir())}
    return {"files_bytes": files, "folder_mb": round(sum(files.values()) / 1e6, 2),
            "vocab_size": model.config["vocab_size"], "embedding_dim": model.recipe.embedder.dim,
            "params": sum(p.numel() for p in model.network.parameters())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--recipe", default="default")
    args = parser.parse_args(argv)
    measured = folder_size(args.recipe, args.dataset)
    path = write_result(f"size-{args.recipe}-{args.dataset}", {"kind": "size", "recipe": args.recipe,
                                                                "dataset": args.dataset, **measured})
    print(f"{args.recipe} on {args.dataset}: {measured['folder_mb']} MB ({measured['files_bytes']}) -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
