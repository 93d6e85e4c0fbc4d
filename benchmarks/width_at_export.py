"""A reduced width at export, measured before it is built (issue 45, item 1; benchmarks/notes.md, "Where `opinion`'s
lead on the opinion sets lives"): how much of a trained compact model's accuracy its word vectors keep when the
export stores only their leading singular directions.

    python -m benchmarks.width_at_export --dataset sst2 --models "runs/frontier/sst2/default-sst2-w256-s*"

The compact model over word vectors folds into per-word tables (attentive/models/folding.py): the vectors E (V x d)
and the LAMA keys. Its context vector (a mean of vectors) and its pooled vectors (attention-weighted sums of them)
are linear in E, so with E ≈ U_k P_k (the first k singular directions, U_k = U S, V x k) an export could store U_k
and fold P_k into Q and the head's first layer, keeping the keys exact. This probe computes what that graph would
answer, by giving the folded network the rank-k vectors U_k P_k in place of E and the exact keys, and reports dev and
test accuracy at each k with the int8 bytes the vector table would take (V x k). Nothing in the package uses it; it
writes results/width-at-export-DATASET.json, `"kind": "width_at_export"`.
"""
from __future__ import annotations

import argparse
import glob
from pathlib import Path

import numpy as np
import torch

import attentive
from attentive.answer.inference import predict_probabilities
from attentive.models.folding import fold
from benchmarks.baselines import split_xy
from benchmarks.common import commit_at_start, write_result

WIDTHS = (192, 128, 96, 64)


def encoded(model, data, split: str) -> tuple[list, np.ndarray]:
    """A split's items, as the model encodes them, and its gold label indices (encoded once, scored at every k)."""
    texts, gold = split_xy(data, split)
    items, _ = model.inputs.items(texts, None, [None] * len(texts), offsets=False)
    index = {label: i for i, label in enumerate(model.labels)}
    return items, np.array([index[label] for label in gold])


def accuracy(model, network, split: tuple[list, np.ndarray]) -> float:
    items, gold = split
    probabilities = predict_probabilities(network, items, temperature=model.temperature)
    return float((probabilities.argmax(1) == gold).mean())


def widths_of(folder: Path, data) -> dict:
    """Dev and test accuracy of one saved model at its full width and at each of WIDTHS."""
    model = attentive.load(folder, device="cpu")
    folded = fold(model.network)
    if folded is None:
        raise SystemExit(f"{folder}: not a compact model over word vectors (nothing to fold)")
    folded.eval()
    dev, test = encoded(model, data, "dev"), encoded(model, data, "test")
    vectors = folded.vectors.weight.detach().clone()
    left, singular, right = torch.linalg.svd(vectors, full_matrices=False)
    found = {"full": {"width": vectors.shape[1], "dev": accuracy(model, folded, dev),
                      "test": accuracy(model, folded, test)}}
    for width in WIDTHS:
        with torch.no_grad():
            folded.vectors.weight.copy_((left[:, :width] * singular[:width]) @ right[:width])
        found[str(width)] = {"width": width, "dev": accuracy(model, folded, dev), "test": accuracy(model, folded, test),
                             "kept_energy": float((singular[:width] ** 2).sum() / (singular ** 2).sum())}
    return {"folder": str(folder), "rows": vectors.shape[0], **found}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--models", required=True, help="a glob of saved model folders (one a seed)")
    args = parser.parse_args(argv)
    commit_at_start()
    torch.set_num_threads(1)
    data = attentive.api.resolve_dataset(args.dataset)
    models = [widths_of(Path(folder), data) for folder in sorted(glob.glob(args.models))]
    if not models:
        raise SystemExit(f"no saved model matches {args.models}")
    for found in models:
        print(found["folder"], {key: (round(100 * v["dev"], 2), round(100 * v["test"], 2))
                                for key, v in found.items() if isinstance(v, dict)})
    print(write_result(f"width-at-export-{data.name}", {"kind": "width_at_export", "dataset": data.name,
                                                       "models": models}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
