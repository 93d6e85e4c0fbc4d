"""UCI News Aggregator headlines (Gasparetti 2016), `newsCorpora_nourl.tsv.gz`.

gzip TSV with a header `ID TITLE PUBLISHER CATEGORY STORY HOSTNAME TIMESTAMP`, 422,937 rows. Values are raw bytes,
not CSV-quoted: lines are split on TAB only (a csv reader would join rows whose title starts with a double quote).
text = TITLE, label = CATEGORY mapped b/t/e/m -> business/science_tech/entertainment/health.

There is no official split. `read_news_splits` assigns whole STORY clusters (near-duplicate headlines of one story) to
train/dev/test: within each category the story ids are shuffled with `random.Random(seed)` and cut 80/10/10 by
story count, so no story straddles two splits (rows per split are therefore only roughly 80/10/10).
"""
from __future__ import annotations

from pathlib import Path

from attentive.data.example import Example
from attentive.data.names import check_names
from attentive.data.readers._common import iter_lines
from attentive.data.splits import split_by_group
from attentive.errors import DataError

CATEGORIES = {"b": "business", "t": "science_tech", "e": "entertainment", "m": "health"}
HEADER = ["ID", "TITLE", "PUBLISHER", "CATEGORY", "STORY", "HOSTNAME", "TIMESTAMP"]


def read_news(path: str | Path) -> tuple[list[Example], list[str]]:
    """All headlines, and row for row the STORY id of each (for grouped splits)."""
    examples, stories = [], []
    lines = iter_lines(path)
    number, line = next(lines, (1, ""))
    check_names(path, line.split("\t"), number)
    if line.split("\t") != HEADER:
        raise DataError(path, f"expected the header {' '.join(HEADER)}", number)
    categories = CATEGORIES
    for number, line in lines:
        fields = line.split("\t")
        if len(fields) != 7 or fields[3] not in categories or not fields[1].strip() or not fields[4]:
            raise DataError(path, "expected 7 TAB-separated columns with a TITLE, a CATEGORY in b/t/e/m and a STORY",
                            number)
        examples.append(Example(text=fields[1].strip(), label=categories[fields[3]]))
        stories.append(fields[4])
    return examples, stories


def read_news_splits(path: str | Path, seed: int = 13, fractions=(0.8, 0.1, 0.1)) -> dict[str, list[Example]]:
    """Train/dev/test grouped by STORY and stratified by category (see the module docstring)."""
    examples, stories = read_news(path)
    return split_by_group(examples, stories, fractions, seed)
