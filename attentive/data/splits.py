"""Seeded splits: a stratified dev set carved from train, and train/dev/test by group (e.g. one news story)."""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from attentive.data.example import Example

SPLITS = ("train", "dev", "test")


def carve_dev(examples: Sequence[Example], fraction: float = 0.1,
              seed: int = 13) -> tuple[list[Example], list[Example]]:
    """Hold out `fraction` of `examples` as dev, stratified by label, reproducibly for a given seed.

    Stratification needs every label at least twice; where that fails (tiny or unlabelled data) the split is a plain
    seeded shuffle. `fraction <= 0` or fewer than 2 examples gives an empty dev set.
    """
    from sklearn.model_selection import train_test_split  # a second to import: not before a file is read

    examples = list(examples)
    if fraction <= 0 or len(examples) < 2:
        return examples, []
    labels = [ex.label for ex in examples]
    counts = Counter(labels)
    stratify = labels if None not in counts and min(counts.values()) >= 2 else None
    try:
        train, dev = train_test_split(examples, test_size=fraction, random_state=seed, stratify=stratify)
    except ValueError:  # e.g. fewer dev places than classes
        train, dev = train_test_split(examples, test_size=fraction, random_state=seed)
    return list(train), list(dev)


def assign_groups(
    groups: Sequence[str],
    strata: Sequence[str] | None = None,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    seed: int = 13,
) -> list[str]:
    """Give each row the split ("train"/"dev"/"test") of its group, so no group straddles two splits.

    The distinct groups (not rows) are shuffled with `random.Random(seed)` and cut by `fractions`. With `strata`
    (e.g. the label, taken from each group's first row) the cut is made within each stratum, so every label keeps
    about the same share of groups in each split. A test fraction of 0 gives every group train or dev.
    """
    if strata is None:
        strata = [""] * len(groups)
    stratum_of: dict[str, str] = {}
    for group, stratum in zip(groups, strata):
        stratum_of.setdefault(group, stratum)
    by_stratum: dict[str, list[str]] = {}
    for group, stratum in stratum_of.items():
        by_stratum.setdefault(stratum, []).append(group)
    rng = random.Random(seed)
    split_of: dict[str, str] = {}
    for stratum in sorted(by_stratum):
        members = sorted(by_stratum[stratum])
        rng.shuffle(members)
        n_train = round(len(members) * fractions[0])
        n_dev = round(len(members) * fractions[1]) if fractions[2] else len(members) - n_train  # no test: none lost
        for i, group in enumerate(members):
            split_of[group] = "train" if i < n_train else "dev" if i < n_train + n_dev else "test"
    return [split_of[group] for group in groups]


def split_by_group(
    examples: Sequence[Example],
    groups: Sequence[str],
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    seed: int = 13,
    stratify: bool = True,
) -> dict[str, list[Example]]:
    """Train/dev/test where all examples of one group land in the same split (see `assign_groups`)."""
    strata = [ex.label or "" for ex in examples] if stratify else None
    splits: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for example, split in zip(examples, assign_groups(groups, strata, fractions, seed)):
        splits[split].append(example)
    return splits
