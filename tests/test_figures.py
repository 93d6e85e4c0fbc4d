"""Every figure the README and docs/ quote from the benchmarks is a figure BENCHMARKS.md shows, so that no page keeps a
number the results have moved past and no two pages quote one claim two ways.

A quoted figure is, in a page's prose (not in fenced blocks, backticked spans, link targets or HTML comments), a
number or a range `a-b` of two followed by a unit, `x` or `×` (a ratio), `MB`, `ms`, `texts/s` or `texts a second`,
` s` (seconds) or `points`, a percentage with decimals (`91.27%`), or a number with two or three digits before its
decimal point and one or two after it (an accuracy: `82.43`, each cell of the README's table).

It matches in one way: BENCHMARKS.md shows a number that, rounded to as many decimals as the page writes, is the page's
(a page may round a figure, never add digits to it), its sign aside. A ratio, size, latency or speed must be one
BENCHMARKS.md shows with the same unit: in a table cell under a header naming the unit (`int8 MB`, `predict p50 ms`,
`texts/s`; `ratio` for a ratio) or written with it (`0.74×`, `**31.18 MB**`); anything else may be any number it
shows. A range's two ends must lie in one column of one table (`1.5-9.9 MB`: the int8 MB of the default as deployed),
or the range be written as such in BENCHMARKS.md. A few numbers with a unit are settings or limits, not results
(`NOT_RESULTS`); they are not checked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
UNITS = {"x": r"x\b|×", "MB": r" ?MB\b", "ms": r" ms\b", "texts/s": r" texts(?:/s\b| a second)", "s": r" s\b",
         "points": r" points?\b"}
QUOTED = re.compile(r"(?<![\w.^-])(%s)(?:-(%s))?(%s)"
                    % (NUMBER, NUMBER, "|".join(f"(?:{unit})" for unit in UNITS.values())))
PERCENT = re.compile(r"(?<![\w.])(\d+\.\d+)%")
ACCURACY = re.compile(r"(?<![\w.,^-])(\d{2,3}\.\d{1,2})(?![\w.%-]|\s?(?:x\b|×|MB|ms|s\b|points|texts))")
STRICT = {"x", "MB", "ms", "texts/s"}  # must carry the same unit in BENCHMARKS.md
# Numbers with a unit that the pages give as settings or limits of the code, not as measurements.
NOT_RESULTS = {
    "10 MB": "the longest input line predict reads and the server's default body limit",
}
HEADER_UNITS = [("MB", "MB"), (" ms", "ms"), ("texts/s", "texts/s"), ("ratio", "x")]


@dataclass(frozen=True)
class Figure:
    page: str
    text: str
    unit: str  # one of UNITS, or "" for a number without one
    ends: tuple[str, ...]  # one number, or a range's two

    def __str__(self) -> str:
        return f"{self.page}: {self.text}"


def _prose(text: str) -> str:
    """The page without its fenced blocks, HTML comments, backticked spans and link targets."""
    text = re.sub(r"^```.*?^```", " ", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"(`+)[^`\n]+?\1", " ", text)
    return re.sub(r"\]\([^)\s]*\)", "]", text)


def _unit(written: str) -> str:
    return next(name for name, pattern in UNITS.items() if re.fullmatch(pattern, written))


def quoted(page: str, text: str) -> list[Figure]:
    """The figures `text` (a page) quotes, in order."""
    prose, found = _prose(text), []
    for match in QUOTED.finditer(prose):
        ends = (match.group(1),) + ((match.group(2),) if match.group(2) else ())
        if match.group(0).strip() not in NOT_RESULTS:
            found.append(Figure(page, match.group(0).strip(), _unit(match.group(3)), ends))
    found += [Figure(page, m.group(0), "", (m.group(1),)) for m in PERCENT.finditer(prose)]
    found += [Figure(page, m.group(0), "", (m.group(1),)) for m in ACCURACY.finditer(prose)]
    return found


class Shown:
    """The numbers BENCHMARKS.md shows: all of them, those with each unit, each table column's, its prose ranges."""

    def __init__(self, text: str):
        self.all: set[str] = set()
        self.by_unit: dict[str, set[str]] = {unit: set() for unit in UNITS}
        self.columns: list[set[str]] = []
        self.ranges: set[tuple[str, str, str]] = set()
        header: list[str] | None = None
        for line in text.splitlines():
            if not line.startswith("|"):
                header = None
                self._prose(line)
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if header is None:
                header, first = cells, len(self.columns)
                self.columns += [set() for _ in cells]
                continue
            if all(set(cell) <= set("-: ") for cell in cells):
                continue
            for index, cell in enumerate(cells[:len(header)]):
                numbers = re.findall(NUMBER, cell)
                self.all.update(numbers)
                self.columns[first + index].update(numbers)
                units = {unit for written, unit in HEADER_UNITS if written in header[index]}
                units |= {"x"} if "×" in cell else set()
                for unit in units:
                    self.by_unit[unit].update(numbers)

    def _prose(self, line: str) -> None:
        self.all.update(re.findall(NUMBER, line))
        for match in QUOTED.finditer(line):
            unit = _unit(match.group(3))
            self.by_unit[unit].update(n for n in match.group(1, 2) if n)
            if match.group(2):
                self.ranges.add((unit, match.group(1), match.group(2)))


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def _decimals(number: str) -> int:
    return len(number.partition(".")[2])


def rounds_to(shown: str, quoted_: str) -> bool:
    """Whether `shown` (BENCHMARKS.md's), rounded to `quoted_`'s decimals, is `quoted_` (signs aside)."""
    places = _decimals(quoted_)
    return _decimals(shown) >= places and abs(abs(_value(shown)) - _value(quoted_)) <= 0.5 * 10 ** -places + 1e-9


@cache
def shown() -> Shown:
    return Shown((REPO / "BENCHMARKS.md").read_text(encoding="utf-8"))


def matches(figure: Figure, table: Shown) -> bool:
    pool = table.by_unit[figure.unit] if figure.unit in STRICT else table.all
    if len(figure.ends) == 1:
        return any(rounds_to(number, figure.ends[0]) for number in pool)
    low, high = figure.ends
    if any(unit == figure.unit and rounds_to(a, low) and rounds_to(b, high) for unit, a, b in table.ranges):
        return True
    return any(any(rounds_to(n, low) for n in column & pool) and any(rounds_to(n, high) for n in column & pool)
               for column in table.columns)


def unmatched(pages=PAGES, table: Shown | None = None) -> list[str]:
    table = table or shown()
    return [str(figure) for page in pages
            for figure in quoted(page.relative_to(REPO).as_posix(), page.read_text(encoding="utf-8"))
            if not matches(figure, table)]


def test_every_figure_the_readme_and_docs_quote_is_one_benchmarks_md_shows():
    assert unmatched() == [], "quote BENCHMARKS.md's figure (rounded at most), or say it in words"


def rows(text: str) -> dict[str, set[str]]:
    """Each table row's numbers with decimals, by the first word of its first cell (the dataset), over all tables."""
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if cells and cells[0] and not set(cells[0]) <= set("-: "):
            numbers = {n for cell in cells[1:] for n in re.findall(NUMBER, cell) if "." in n}
            found.setdefault(cells[0].split()[0], set()).update(numbers)
    return found


def test_the_readme_table_is_benchmarks_mds():
    """The README's "How good it is" table is copied from BENCHMARKS.md's defaults and aspect tables: every number
    of a dataset's row (accuracies, their std, Δ) stands in a row of that dataset there."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## How good it is"):].split("\n\n| ")[1].split("\n\n")[0]
    benchmarks = rows((REPO / "BENCHMARKS.md").read_text(encoding="utf-8"))
    copied = rows("| " + table)
    assert len(copied) >= 10
    assert {dataset: sorted(numbers - benchmarks.get(dataset, set())) for dataset, numbers in copied.items()
            if numbers - benchmarks.get(dataset, set())} == {}


def test_a_figure_benchmarks_md_does_not_show_is_caught():
    table = Shown("| dataset | int8 MB (bound) | predict p50 ms | ratio |\n| --- | ---: | ---: | ---: |\n"
                  "| a | 1.52 (5) | 0.087 | 0.88× |\n| b | 9.90 (10) | 0.111 | 3.56× |\n\n"
                  "Score: opinion 82.32, compact 82.43; its texts/s 1.72-2.83× opinion's; 0.974 s.\n")
    page = ("The export is 1.5-9.9 MB, answers in 0.087-0.111 ms, 0.88-3.6x TF-IDF + LR's speed (1.72-2.83x), "
            "and scores 82.43 against 82.3; `--max-size 5MB` and a line over 10 MB are limits.\n"
            "```bash\nattentive predict runs/m --top-k 5  # 99.99 MB\n```\n")
    assert [f.text for f in quoted("p.md", page)] == ["1.5-9.9 MB", "0.087-0.111 ms", "0.88-3.6x", "1.72-2.83x",
                                                     "82.43", "82.3"]
    assert [f.text for f in quoted("p.md", page) if not matches(f, table)] == []
    wrong = ("It is 1.5-7.8 MB, 0.97-4.6x as fast, 0.97x at worst, 82.33 against 82.32, 1.520 MB, 8x the size, "
             "and 1.5-0.1 ms.")
    assert [f.text for f in quoted("p.md", wrong) if not matches(f, table)] == [
        "1.5-7.8 MB", "0.97-4.6x", "0.97x", "1.520 MB", "8x", "1.5-0.1 ms", "82.33"]
