"""The size of the saved folder of the default path's untrained model on a dataset (a lower bound: a trained folder
also stores its n-gram table's nonzero rows).

    python -m benchmarks.product.deploy.model_size --dataset imdb"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from attentive.api import untrained
from benchmarks.harness.common import write_result


def folder_size(recipe_name: str, dataset_name: str) -> dict:
    """The files of the folder of the untrained model `recipe_name` builds on `dataset_name`."""
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
