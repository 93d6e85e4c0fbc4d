"""IMDB Large Movie Review v1.0 (Maas et al. 2011) repacked as gzip JSON Lines.

Labelled files hold `{"id", "rating", "label": "pos"|"neg", "text"}` a line; the unsup file holds `{"id", "text"}`.
The HTML line breaks `<br />` that the original reviews contain are replaced by a space.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from attentive.data.example import Example
from attentive.data.readers._common import iter_lines
from attentive.errors import DataError

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def clean_review(text: str) -> str:
    """Replace `<br />` tags with a space and trim the ends."""
    return _BR.sub(" ", text).strip()


def read_imdb(path: str | Path, labelled: bool = True) -> list[Example]:
    """Read `imdb_{train,test}.jsonl.gz` (labelled=True) or `imdb_unsup.jsonl.gz` (labelled=False: label None)."""
    examples = []
    for number, line in iter_lines(path):
        try:
            row = json.loads(line)
            text = row["text"]
            label = row["label"] if labelled else None
        except json.JSONDecodeError as err:
            raise DataError(path, f"malformed JSON ({err.msg})", number) from None
        except (KeyError, TypeError) as err:
            raise DataError(path, f"missing field {err}", number) from None
        if not isinstance(text, str) or (labelled and label not in ("pos", "neg")):
            raise DataError(path, "expected a string 'text' and a 'label' of 'pos' or 'neg'", number)
        examples.append(Example(text=clean_review(text), label=label))
    return examples
