"""Make the packaged SST-2 demo sample from the stsa.binary files of the shared data folder.

    python -m attentive.sample.make_sample [DATA_DIR]

train: a seeded random 2,500 of the 6,920 lines of `sst/stsa.binary.train` (random.Random(13).sample of line indices,
kept in file order); dev and test: all of `stsa.binary.dev` (872) and `stsa.binary.test` (1,821).
Each `<0|1> <sentence>` line is written as `negative|positive<TAB>sentence`.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from attentive.data.paths import resolve_data_dir

SEED, TRAIN_SIZE = 13, 2500
NAMES = {"0": "negative", "1": "positive"}
OUT = Path(__file__).resolve().parent


def convert(line: str) -> str:
    label, _, text = line.partition(" ")
    return f"{NAMES[label]}\t{text.strip()}\n"


def main(data_dir: str | None = None) -> None:
    sst = resolve_data_dir(data_dir) / "sst"
    for split in ("train", "dev", "test"):
        text = (sst / f"stsa.binary.{split}").read_text(encoding="utf-8")
        lines = text.removesuffix("\n").split("\n")  # split on "\n" only
        if split == "train":
            keep = sorted(random.Random(SEED).sample(range(len(lines)), TRAIN_SIZE))
            lines = [lines[i] for i in keep]
        (OUT / f"sst2_{split}.tsv").write_text("".join(convert(line) for line in lines), encoding="utf-8")
        print(f"sst2_{split}.tsv: {len(lines)} lines")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
