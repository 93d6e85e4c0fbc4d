"""`attentive suggest`: the unlabelled texts whose labels would help most, for a person to label next.

Uncertainty and diversity (Settles 2009, "Active Learning Literature Survey", §3.1 margin sampling and §5 density and
diversity): the texts whose two most probable labels are closest (the smallest margin p1 - p2) are the candidates,
four times as many as asked for; from them, the chosen are taken greedily, each time the candidate of the largest
(1 - margin) x (1 - its highest cosine similarity, over TF-IDF word and bigram vectors, to a text already chosen), so
that fifty suggestions are not fifty rewordings of one question. Each suggestion carries the model's guess, the
runner-up, the margin, and, for attentive's own models, the words that pull towards each of the two (the signed
evidence of `explain`: positive for the guess, negative for the runner-up).

The pool is read as `train` reads files (CSV, TSV, JSONL, or .txt one text a line) and the suggestions are written
in the pool's own format, every field of each chosen row as it was (its id column kept) and, after them, an empty
label column to fill in and the model's guess, its probability, the runner-up and why: ready for a spreadsheet, and
once labelled, rows `train --train` reads beside the others (it reads only its text and label columns). In a partly
labelled file only the rows whose label column is empty are offered.

A model trained on a few dozen labels is a poor judge of which texts are hard (benchmarks/DECISIONS.md, "The
labelling loop on SST-2": its first 50 suggestions helped less than 50 texts drawn at random), so the first texts to
label are better drawn at random: `sample_for_labelling` draws them, seeded, with the model's guesses where there is
a model and without any before the first one.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.readers.generic import naming_hint
from ..errors import AttentiveError, DataError

CANDIDATES_PER_SUGGESTION = 4
EVIDENCE_WORDS = 3


@dataclass
class Suggestion:
    """One text to label: its row in the pool (from 0), the model's guess and runner-up with their probabilities,
    the margin between them, and the words pulling towards each (empty where the model gives no word evidence)."""

    row: int
    text: str
    guess: str | None = None  # None: no model was asked
    guess_probability: float = 0.0
    runner_up: str | None = None
    runner_up_probability: float = 0.0
    margin: float = 1.0
    towards_guess: list[str] = field(default_factory=list)
    towards_runner_up: list[str] = field(default_factory=list)

    def why(self) -> str:
        if self.guess is None:
            return ""
        said = f"{self.guess} {self.guess_probability:.2f} or {self.runner_up} {self.runner_up_probability:.2f}"
        if self.towards_guess or self.towards_runner_up:
            said += (f"; for {self.guess}: {', '.join(self.towards_guess) or '-'}; for {self.runner_up}: "
                     f"{', '.join(self.towards_runner_up) or '-'}")
        return said


def rank_for_labelling(model, texts: Sequence[str], n: int) -> list[Suggestion]:
    """The `n` texts of `texts` most worth labelling (see the module's docstring), most uncertain first, each with
    the model's guess, runner-up and the words pulling towards each."""
    suggestions = _ranked(model, texts, n)
    _add_evidence(model, suggestions)
    return suggestions


def choose_for_labelling(model, texts: Sequence[str], n: int) -> list[int]:
    """The rows of `texts` (from 0) that `rank_for_labelling` suggests, in its order: the same choice, without the
    evidence words (for a simulation of the labelling loop, which needs only the rows)."""
    return [suggestion.row for suggestion in _ranked(model, texts, n)]


def sample_for_labelling(model, texts: Sequence[str], n: int, seed: int = 0) -> list[Suggestion]:
    """`n` texts of `texts` drawn at random (seeded, without replacement; all of them where there are fewer), in the
    order drawn; each with the model's guess, runner-up and evidence where `model` is given, none where it is None
    (the first texts to label, before there is a model)."""
    _check_n(n)
    rows = np.random.default_rng(seed).permutation(len(texts))[:n]
    if model is None:
        return [Suggestion(int(i), texts[i]) for i in rows]
    drawn = [texts[i] for i in rows]
    probabilities, order = _scored(model, drawn)
    suggestions = [_suggestion(model, int(row), text, probabilities[at], order[at])
                   for at, (row, text) in enumerate(zip(rows, drawn))]
    _add_evidence(model, suggestions)
    return suggestions


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise AttentiveError(f"n: give 1 or more texts to suggest (got {n!r})")


def _scored(model, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The model's probabilities of `texts` (texts x labels) and each row's labels from the most probable down."""
    if len(model.labels) < 2:
        raise AttentiveError("suggest needs a model of two labels or more")
    probabilities = np.asarray(model.predict_proba(list(texts)), dtype=np.float64)
    return probabilities, np.argsort(-probabilities, axis=1, kind="stable")


def _suggestion(model, row: int, text: str, probabilities: np.ndarray, order: np.ndarray) -> Suggestion:
    """The Suggestion of pool row `row` from its probabilities and their order (`_scored`'s row of it)."""
    top, second = probabilities[order[0]], probabilities[order[1]]
    return Suggestion(row, text, model.labels[order[0]], float(top), model.labels[order[1]], float(second),
                      float(top - second))


def _ranked(model, texts: Sequence[str], n: int) -> list[Suggestion]:
    _check_n(n)
    probabilities, order = _scored(model, texts)
    rows = np.arange(len(texts))
    margins = probabilities[rows, order[:, 0]] - probabilities[rows, order[:, 1]]
    candidates = np.argsort(margins, kind="stable")[: CANDIDATES_PER_SUGGESTION * n]
    chosen = _diverse([texts[i] for i in candidates], 1.0 - margins[candidates], min(n, len(candidates)))
    return [_suggestion(model, int(candidates[i]), texts[candidates[i]], probabilities[candidates[i]],
                        order[candidates[i]]) for i in chosen]


def _diverse(texts: list[str], uncertainty: np.ndarray, n: int) -> list[int]:
    """Greedy: each pick the text of the largest uncertainty x (1 - its highest similarity to those picked)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        vectors = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit_transform(texts)
    except ValueError:  # no word at all in the candidates: uncertainty alone
        return list(np.argsort(-uncertainty, kind="stable")[:n])
    closest = np.zeros(len(texts))
    picked: list[int] = []
    for _ in range(n):
        score = uncertainty * (1.0 - closest)
        score[picked] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        similarity = (vectors @ vectors[best].T).toarray().ravel()
        closest = np.maximum(closest, similarity)
    return picked


def _add_evidence(model, suggestions: list[Suggestion]) -> None:
    """The words of most evidence towards the guess and towards the runner-up, where the model explains."""
    if not suggestions or not hasattr(model, "explain"):
        return
    explanations = model.explain([s.text for s in suggestions])
    for suggestion, explanation in zip(suggestions, explanations):
        evidence = getattr(explanation, "linear_evidence", None)
        if evidence is None:
            continue
        values = np.asarray(evidence, dtype=np.float64)
        words = explanation.words
        up = [i for i in np.argsort(-values, kind="stable") if values[i] > 0][:EVIDENCE_WORDS]
        down = [i for i in np.argsort(values, kind="stable") if values[i] < 0][:EVIDENCE_WORDS]
        suggestion.towards_guess = [words[i] for i in up]
        suggestion.towards_runner_up = [words[i] for i in down]


@dataclass
class Pool:
    """An unlabelled file as it was written: its `kind` (csv, tsv, jsonl, text), the header and rows of a table (each
    row its fields), the records of JSONL, and the text of each row."""

    path: Path
    kind: str
    texts: list[str]
    rows: list
    header: list[str] = field(default_factory=list)
    bom: bool = False
    blank: list[int] = field(default_factory=list)  # the lines of rows with no text, left out
    labelled: list[int] = field(default_factory=list)  # the lines of rows with a label already, left out


def read_pool(path: str | Path, text_column: str = "text", label_column: str | None = None) -> Pool:
    """The pool file (see the module's docstring): a line that is not a row of it is an error naming the line; a row
    whose text is blank is left out, its line kept in `blank`, and so is one whose `label_column` holds a label (a
    partly labelled file: only its other rows are to label), its line kept in `labelled`."""
    from ..util.user_files import check_file

    path = check_file(Path(path))
    raw = path.read_bytes()
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return _table(path, content, "\t" if suffix == ".tsv" else ",", text_column, bom, label_column)
    if suffix == ".txt":
        lines = [line.strip() for line in content.splitlines()]
        texts = [line for line in lines if line]
        return Pool(path, "text", texts, texts)
    records, texts, blank, labelled = [], [], [], []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise DataError(path, f"not JSON ({exc.msg})", number) from None
        if not isinstance(record, dict) or not isinstance(record.get(text_column), str):
            raise DataError(path, f"no {text_column!r} text in this line", number)
        if not record[text_column].strip():
            blank.append(number)
            continue
        if label_column is not None and _has_label(record.get(label_column)):
            labelled.append(number)
            continue
        records.append(record)
        texts.append(record[text_column])
    return Pool(path, "jsonl", texts, records, blank=blank, labelled=labelled)


def _has_label(value) -> bool:
    """Whether a label field holds a label: a non-blank text, a number, or a non-empty list of labels."""
    if isinstance(value, str):
        return bool(value.strip())
    return value is not None and value != []


def _table(path: Path, content: str, delimiter: str, text_column: str, bom: bool,
           label_column: str | None = None) -> Pool:
    reader = csv.reader(io.StringIO(content, newline=""), delimiter=delimiter)
    header = next(reader, None)
    if header is None or text_column not in header:
        hint = naming_hint("text", text_column, header or [])
        raise DataError(path, f"no column {text_column!r} in the header{hint}", 1)
    where = header.index(text_column)
    label_at = header.index(label_column) if label_column in header else None
    rows, texts, blank, labelled = [], [], [], []
    for row in reader:
        if not any(field.strip() for field in row):
            continue
        if len(row) != len(header):
            raise DataError(path, f"{len(row)} fields where the header has {len(header)}", reader.line_num)
        if not row[where].strip():
            blank.append(reader.line_num)
            continue
        if label_at is not None and row[label_at].strip():
            labelled.append(reader.line_num)
            continue
        rows.append(row)
        texts.append(row[where])
    return Pool(path, "tsv" if delimiter == "\t" else "csv", texts, rows, header, bom, blank, labelled)


def suggestions_file(pool: Pool, suggestions: list[Suggestion], label_column: str = "label") -> bytes:
    """The chosen rows in the pool's own format, in the order suggested, with the columns to fill in and to read
    (the model's columns only where a model guessed)."""
    guessed = any(s.guess is not None for s in suggestions)
    added = {label_column: "", **({"guess": None, "guess_probability": None, "runner_up": None, "why": None}
                                  if guessed else {})}
    if pool.kind in ("csv", "tsv"):
        out = io.StringIO()
        writer = csv.writer(out, delimiter="\t" if pool.kind == "tsv" else ",", lineterminator="\n")
        extra = [name for name in added if name not in pool.header]
        writer.writerow(pool.header + extra)
        for s in suggestions:
            values = {label_column: "", "guess": s.guess, "guess_probability": f"{s.guess_probability:.3f}",
                      "runner_up": s.runner_up, "why": s.why()}
            writer.writerow(pool.rows[s.row] + [values[name] for name in extra])
        return (("\ufeff" if pool.bom else "") + out.getvalue()).encode("utf-8")
    lines = []
    for s in suggestions:
        record = dict(pool.rows[s.row]) if pool.kind == "jsonl" else {"text": s.text}
        record.setdefault(label_column, None)
        if guessed:
            record.update({"guess": s.guess, "guess_probability": round(s.guess_probability, 3),
                           "runner_up": s.runner_up, "why": s.why()})
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines).encode("utf-8")
