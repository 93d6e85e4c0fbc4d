"""IMDB Large Movie Review v1.0 (Maas et al. 2011) repacked as gzip JSON Lines.

Labelled files hold `{"id", "rating", "label": "pos"|"neg", "text"}` a line; the unsup file holds `{"id", "text"}`.
The HTML line breaks `<br />` that the original reviews contain are replaced by a space.

There is no official dev split. aclImdb's README says the train and test sets hold disjoint sets of movies (at most 30
reviews a movie), and review ids look numbered movie by movie within each label (`benchmarks.imdb_id_adjacency`), so
`read_imdb_train_dev` cuts dev from train in blocks of consecutive ids rather than review by review: a dev set drawn
review by review shares its movies with train, and rewards a model for memorising names and titles that the test set
never shows (`benchmarks.imdb_dev_leak` measures how much each way of cutting shares with train).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from attentive.data.example import Example
from attentive.data.names import RepeatedKey, loads_keys_once
from attentive.data.readers._common import iter_lines
from attentive.data.splits import split_by_group
from attentive.errors import DataError

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def clean_review(text: str) -> str:
    """Replace `<br />` tags with a space and trim the ends."""
    return _BR.sub(" ", text).strip()


DEV_BLOCK = 250  # review ids per block: a movie has at most 30 reviews; benchmarks.imdb_dev_leak chose the size


def read_imdb(path: str | Path, labelled: bool = True) -> list[Example]:
    """Read `imdb_{train,test}.jsonl.gz` (labelled=True) or `imdb_unsup.jsonl.gz` (labelled=False: label None)."""
    return read_imdb_with_ids(path, labelled)[0]


def read_imdb_train_dev(path: str | Path, fraction: float = 0.1, seed: int = 13,
                        block: int = DEV_BLOCK) -> dict[str, list[Example]]:
    """Train and dev from the official train file: `fraction` of the blocks of `block` consecutive review ids of each
    label go to dev (seeded), the rest to train, so that most movies sit wholly on one side."""
    examples, ids = read_imdb_with_ids(path)
    blocks = [f"{example.label}:{number // block}" for example, number in zip(examples, ids)]
    splits = split_by_group(examples, blocks, (1 - fraction, fraction, 0.0), seed)
    return {"train": splits["train"], "dev": splits["dev"]}


def read_imdb_with_ids(path: str | Path, labelled: bool = True) -> tuple[list[Example], list[int]]:
    """The reviews of one file and, row for row, their ids."""
    examples, ids = [], []
    for number, line in iter_lines(path):
        try:
            row = loads_keys_once(line)
            text, review_id = row["text"], row["id"]
            label = row["label"] if labelled else None
        except RepeatedKey as err:
            raise DataError(path, str(err), number) from None
        except json.JSONDecodeError as err:
            raise DataError(path, f"malformed JSON ({err.msg})", number) from None
        except (KeyError, TypeError) as err:
            raise DataError(path, f"missing field {err}", number) from None
        if not isinstance(text, str) or not isinstance(review_id, int) or (labelled and label not in ("pos", "neg")):
            raise DataError(path, "expected a string 'text', an integer 'id' and a 'label' of 'pos' or 'neg'", number)
        examples.append(Example(text=clean_review(text), label=label))
        ids.append(review_id)
    return examples, ids
