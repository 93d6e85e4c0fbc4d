"""SST as PTB-style trees, one sentence a line (Barnes et al. 2017, `stanford_sentanalysis/*.txt`).

Every node carries a sentiment label 0..4, e.g. `(3 (2 The) (3 (3 good) (2 film)))`. The sentence label is the root's;
the text is the leaves joined by spaces, kept verbatim (brackets stay as the tokens `-LRB-` / `-RRB-`).
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import Rows, iter_lines
from attentive.errors import DataError

_ROOT = re.compile(r"\(([0-4]) ")
_LEAF = re.compile(r"\([0-4] ([^()\s]+)\)")
BINARY = {"0": "neg", "1": "neg", "3": "pos", "4": "pos"}


def read_ptb_trees(path: str | Path, binary: bool = False) -> Rows:
    """Fine-grained (labels "0".."4") or, with `binary=True`, SST-binary: root label 2 dropped, 0,1 -> neg,
    3,4 -> pos."""
    examples, dropped = [], Counter()
    for number, line in iter_lines(path):
        line = line.strip()
        root = _ROOT.match(line)
        leaves = _LEAF.findall(line)
        if not root or not leaves or line.count("(") != line.count(")"):
            raise DataError(path, "expected a labelled tree like '(3 (2 word) ...)'", number)
        label = root.group(1)
        if binary:
            if label not in BINARY:
                dropped["neutral (root label 2)"] += 1
                continue
            label = BINARY[label]
        examples.append(Example(text=" ".join(leaves), label=label))
    return Rows(examples, dropped)
