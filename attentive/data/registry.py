"""Named benchmark datasets and user files, loaded into a `Dataset` with "train", "dev" and "test" splits.

Each `DatasetSpec.load(data_dir, seed)` returns the splits that the source defines, each a `list[Example]` or a
`Rows` (examples plus dropped-row counts). `load_dataset` then carves a seeded, stratified dev set from train where
the source has none, fills a missing test with [], records dropped rows in `Dataset.skipped` / `notes` (and rows that
span several lines in `notes`), fixes the label order (sorted), raises AttentiveError when two labels are the same
number written two ways ("1" in train, "1.0" in test), and puts labels of dev/test that train never shows in
`Dataset.warnings` (see `attentive.data.checks`). Nothing is cached on disk.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attentive.data import readers as r
from attentive.data.checks import (
    LABEL_SETS,
    check_label_kinds,
    check_labels_given,
    data_warnings,
    label_warnings,
    same_number,
)
from attentive.data.example import Dataset, Example
from attentive.data.paths import resolve_data_dir
from attentive.data.reading import DEFAULTS as READING_KEYS
from attentive.data.reading import reading_of
from attentive.data.splits import SPLITS, carve_dev
from attentive.errors import AttentiveError
from attentive.util.checks import ArgumentError, as_list, check_unicode_strings

Loaded = dict[str, "list[Example] | r.Rows"]
SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample"


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    description: str
    load: Callable[[Path | None, int], Loaded]  # (data dir, seed) -> the source's own splits
    packaged: bool = False  # True: ships inside the package, needs no data dir
    note: str = ""  # added to Dataset.notes; "{seed}" is filled in


def _splits(reader: Callable, pattern: str, names=SPLITS) -> Callable[[Path, int], Loaded]:
    """Loader that applies `reader` to `pattern.format(split=...)` under the data dir for each split name."""
    return lambda root, seed: {name: reader(root / pattern.format(split=name)) for name in names}


def _barnes_sst(binary: bool):
    tree = "barnes2017/stanford_sentanalysis/{split}.txt"
    return _splits(lambda path: r.read_ptb_trees(path, binary=binary), tree)


def _sentube(domain: str):
    return _splits(lambda path: r.read_label_folder(path, ["neg", "pos"]), f"barnes2017/SenTube/{domain}/{{split}}")


def _semeval14(reader: Callable, binary: bool = False):
    files = {"train": "Restaurants_Train_v2.xml", "test": "Restaurants_Test_Gold.xml"}
    return lambda root, seed: {s: reader(root / "semeval14_absa" / f, binary=binary) for s, f in files.items()}


def _imdb(root: Path, seed: int) -> Loaded:
    return {**r.read_imdb_train_dev(root / "imdb/imdb_train.jsonl.gz", seed=seed),
            "test": r.read_imdb(root / "imdb/imdb_test.jsonl.gz")}


def _news(root: Path, seed: int) -> Loaded:
    return r.read_news_splits(root / "news_aggregator" / "newsCorpora_nourl.tsv.gz", seed=seed)


def _tweeteval(task: str):
    labels = r.TWEETEVAL_LABELS[task]
    return _splits(lambda path: r.read_labelled_jsonl(path, labels), f"tweeteval/{task}/{{split}}.jsonl")


def _sst2_sample(root, seed: int) -> Loaded:
    return {name: r.read_label_tab(SAMPLE_DIR / f"sst2_{name}.tsv") for name in SPLITS}


_SPECS = [
    DatasetSpec("imdb", "IMDB movie reviews (Maas et al. 2011), pos/neg, 25k train / 25k test", _imdb,
                note="no official dev split: dev holds 10% of the blocks of 250 consecutive review ids of each label "
                     "(seed {seed}), so that its movies are mostly not in train, as the test set's are not"),
    DatasetSpec("imdb_unsup", "IMDB unlabelled reviews (50k), train split only, label None",
                lambda root, seed: {"train": r.read_imdb(root / "imdb/imdb_unsup.jsonl.gz", labelled=False)}),
    DatasetSpec("r8", "Reuters-21578 R8 topics (8 classes), 5,485 train / 2,189 test",
                _splits(r.read_label_tab, "r8/r8-{split}-all-terms.txt", ("train", "test"))),
    DatasetSpec("sst2", "SST-2 sentences (stsa.binary), labels 0/1, 6,920 / 872 / 1,821",
                _splits(r.read_stsa, "sst/stsa.binary.{split}")),
    DatasetSpec("sst5", "SST-1 sentences (stsa.fine), labels 0..4, 8,544 / 1,101 / 2,210",
                _splits(r.read_stsa, "sst/stsa.fine.{split}")),
    DatasetSpec("sst2_sample", "Packaged SST-2 demo sample: 2,500 train / 872 dev / 1,821 test, negative/positive",
                _sst2_sample, packaged=True),
    DatasetSpec("barnes_sst_fine", "Barnes et al. 2017 SST-fine from PTB trees (root label 0..4)", _barnes_sst(False)),
    DatasetSpec("barnes_sst_binary", "Barnes et al. 2017 SST-binary from PTB trees (neutral roots dropped)",
                _barnes_sst(True)),
    DatasetSpec("opener", "OpeNER opinion expressions, 4 classes strneg/neg/pos/strpos (Barnes et al. 2017)",
                _splits(lambda p: r.read_label_folder(p, ["strneg", "neg", "pos", "strpos"]),
                        "barnes2017/opener/{split}")),
    DatasetSpec("sentube_auto", "SenTube automobiles YouTube comments, pos/neg (Barnes et al. 2017)", _sentube("auto")),
    DatasetSpec("sentube_tablets", "SenTube tablets YouTube comments, pos/neg (Barnes et al. 2017)",
                _sentube("tablets")),
    DatasetSpec("semeval2013", "SemEval-2013 Twitter sentiment, positive/negative/neutral (Barnes et al. 2017)",
                _splits(r.read_semeval2013, "barnes2017/semeval/{split}.tsv")),
    DatasetSpec("semeval14_category", "SemEval-2014 restaurants aspect categories, 3-way (conflict dropped)",
                _semeval14(r.read_semeval14_categories)),
    DatasetSpec("semeval14_category_binary",
                "SemEval-2014 restaurants aspect categories, pos/neg (conflict, neutral dropped)",
                _semeval14(r.read_semeval14_categories, binary=True)),
    DatasetSpec("semeval14_term", "SemEval-2014 restaurants aspect terms, 3-way (conflict dropped)",
                _semeval14(r.read_semeval14_terms)),
    DatasetSpec("news", "UCI News Aggregator headlines, 4 topics, 422,937 rows, split 80/10/10 by STORY", _news,
                note="no official split: train/dev/test hold whole STORY clusters, 80/10/10 of the stories "
                     "of each category (seed {seed})"),
    DatasetSpec("newsgroups20", "20 Newsgroups (bydate) message bodies, headers dropped, 20 topics, 11,314 train / "
                "7,532 test", _splits(r.read_table, "newsgroups20/{split}.jsonl", ("train", "test"))),
    DatasetSpec("banking77", "Banking77 customer queries (Casanueva et al. 2020), 77 intents, 10,003 train / 3,080 "
                "test", _splits(lambda path: r.read_table(path, label_column="category"), "banking77/{split}.csv",
                                ("train", "test"))),
    DatasetSpec("tweeteval_emotion", "TweetEval emotion tweets (Barbieri et al. 2020), anger/joy/optimism/sadness, "
                "3,257 / 374 / 1,421", _tweeteval("emotion")),
    DatasetSpec("tweeteval_irony", "TweetEval irony tweets (Barbieri et al. 2020), irony/non_irony, 2,862 / 955 / 784",
                _tweeteval("irony")),
    DatasetSpec("tweeteval_offensive", "TweetEval offensive tweets (Barbieri et al. 2020), offensive/not-offensive, "
                "11,916 / 1,324 / 860", _tweeteval("offensive")),
    DatasetSpec("clinc150", "CLINC150 in-scope queries (Larson et al. 2019, full), 150 intents, 15,000 / 3,000 / "
                "4,500; the out-of-scope queries are clinc150_oos", _splits(r.read_in_scope, "clinc150/{split}.jsonl")),
    DatasetSpec("clinc150_oos", "CLINC150 out-of-scope queries (label oos), 100 / 100 / 1,000: the test of "
                "abstaining, not a set to train on",
                _splits(r.read_out_of_scope, "clinc150/oos_{split}.jsonl")),
    DatasetSpec("sick", "SICK sentence pairs, entailment 3-way, 4,439 / 495 / 4,906",
                lambda root, seed: r.read_sick(root / "sick/SICK.txt.gz")),
]
DATASETS: dict[str, DatasetSpec] = {spec.name: spec for spec in _SPECS}


def _assemble(name: str, loaded: Loaded, dev_fraction: float, seed: int, notes: list[str],
              report: bool = False) -> Dataset:
    """Turn a loader's splits into a Dataset with train/dev/test, dropped-row counts and sorted labels; with
    `report` (the user's files and texts), the data report's warnings too (`checks.data_warnings`)."""
    splits: dict[str, list[Example]] = {}
    skipped: dict[str, int] = {}
    respaced: dict[str, Counter] = {}
    for split, rows in loaded.items():
        if isinstance(rows, r.Rows):
            if rows.skipped:
                skipped[split] = rows.skipped
                reasons = ", ".join(f"{count} {reason}{_lines(rows.dropped_lines.get(reason) if report else None)}"
                                    for reason, count in sorted(rows.dropped.items()))
                notes.append(f"{split}: dropped {rows.skipped} rows ({reasons})")
            if rows.respaced:
                respaced[split] = rows.respaced
            if rows.multiline:
                notes.append(f"{split}: {rows.multiline} rows span several lines (quoted line breaks)")
            rows = rows.examples
        splits[split] = list(rows)
    _check_label_kinds(name, splits)
    splits.setdefault("train", [])
    if "dev" not in splits:
        labelled = bool(splits["train"]) and all(ex.is_labelled for ex in splits["train"])
        if labelled and dev_fraction > 0:
            splits["train"], splits["dev"] = carve_dev(splits["train"], dev_fraction, seed)
            notes.append(f"no official dev split: dev is a stratified {dev_fraction:g} of train (seed {seed})")
        else:
            splits["dev"] = []
    splits.setdefault("test", [])
    labels = sorted({label for part in splits.values() for ex in part
                     for label in (ex.labels if ex.labels is not None else (ex.label,)) if label is not None})
    _check_label_numbers(name, splits)
    dataset = Dataset(name=name, splits={s: splits[s] for s in SPLITS}, labels=labels, skipped=skipped, notes=notes)
    dataset.warnings.extend(label_warnings(dataset))
    if report:
        dataset.warnings.extend(data_warnings(dataset, respaced))
    return dataset


def _lines(numbers: list[int] | None) -> str:
    """": line 7" or ": lines 7, 9, 12 ..." (at most 10 named) for a note, "" where the lines are not known."""
    if not numbers:
        return ""
    shown = ", ".join(map(str, numbers[:10])) + (" ..." if len(numbers) > 10 else "")
    return f": line{'s' * (len(numbers) > 1)} {shown}"


def _check_label_kinds(name: str, splits: dict[str, list[Example]]) -> None:
    """AttentiveError when one split holds label sets (multi-label) and another single labels: one split's sets
    must not turn the others' labels into sets silently (each split is one kind throughout: its reader checked)."""
    kinds = {split: ex.labels is not None for split, part in splits.items() for ex in part if ex.is_labelled}
    if len(set(kinds.values())) > 1:
        sets = next(split for split, is_set in kinds.items() if is_set)
        single = next(split for split, is_set in kinds.items() if not is_set)
        raise AttentiveError(f"{name}: {sets} holds label sets (multi-label) but {single} single labels: give every "
                             "split's labels one way (--label-separator reads every label of every file as a set)")


def _check_label_numbers(name: str, splits: dict[str, list[Example]]) -> None:
    """AttentiveError when two splits write the same number two ways ("1" and "1.0"): they would be two classes."""
    first_split = {}
    for split, examples in splits.items():
        for ex in examples:
            for label in ex.labels if ex.labels is not None else (ex.label,):
                if label is not None:
                    first_split.setdefault(label, split)
    clash = same_number(first_split)
    if clash:
        a, b = clash
        raise AttentiveError(f"{name}: labels {a!r} ({first_split[a]}) and {b!r} ({first_split[b]}) are the same "
                             "number written two ways and would be two classes; write them one way")


def load_dataset(name: str, data_dir: str | Path | None = None, dev_fraction: float = 0.1, seed: int = 13) -> Dataset:
    """Load a named dataset (see `DATASETS`) with splits "train", "dev", "test"."""
    spec = DATASETS.get(name)
    if spec is None:
        from ..util.spelling import did_you_mean

        raise AttentiveError(f"unknown dataset {name!r}{did_you_mean(name, DATASETS)}; known: "
                             f"{', '.join(sorted(DATASETS))}")
    root = None if spec.packaged else resolve_data_dir(data_dir)
    notes = [spec.note.format(seed=seed)] if spec.note else []
    return _assemble(name, spec.load(root, seed), dev_fraction, seed, notes)


def load_files(
    train: str | Path,
    dev: str | Path | None = None,
    test: str | Path | None = None,
    dev_fraction: float = 0.1,
    seed: int = 13,
    unlabelled_rows: list | None = None,
    **columns,
) -> Dataset:
    """A Dataset from the user's CSV / TSV / JSONL files; dev is carved from train when not given, test may be absent.
    `columns`: how each file is read, `read_table`'s keywords (`format`, `text_column`, `label_column`,
    `aspect_column`, `pair_column`, `label_separator`, `id_column`). With `label_separator` (or JSONL lists of labels)
    the texts are multi-label (attentive/data/label_sets.py). With `unlabelled_rows` a list, the texts of the train
    file's rows without a label go there (`read_table`); the other files' must have one."""
    files = {"train": train, "dev": dev, "test": test}
    loaded = {split: r.read_table(path, **columns, **({"unlabelled_rows": unlabelled_rows} if split == "train" else {}))
              for split, path in files.items() if path is not None}
    dataset = _assemble(Path(train).name, loaded, dev_fraction, seed, [], report=True)
    dataset.reading = reading_of(**{key: columns.get(key) for key in READING_KEYS})
    return dataset


def load_test_file(path: str | Path, format: str | None = None, text_column: str = "text",
                   label_column: str = "label", aspect_column: str | None = None,
                   pair_column: str | None = None, label_separator: str | None = None) -> Dataset:
    """A Dataset whose only split is "test": the user's labelled file, for evaluating a trained model."""
    rows = r.read_table(path, format=format, text_column=text_column, label_column=label_column,
                        aspect_column=aspect_column, pair_column=pair_column, label_separator=label_separator)
    dataset = _assemble(Path(path).name, {"test": rows}, 0.0, 0, [])
    dataset.reading = reading_of(text_column, label_column, pair_column, aspect_column, label_separator)
    return dataset


def load_texts(texts, labels, dev_texts=None, dev_labels=None, name: str = "texts", dev_fraction: float = 0.1,
               seed: int = 13) -> Dataset:
    """A Dataset from texts and labels in memory (any labels; they become strings); dev is carved from train when
    not given. Blank texts are dropped and counted, as the file readers do. A single string where a list belongs, a
    text that is not a string or not valid Unicode, a missing label (None, NaN), a blank or infinite one, and texts
    and labels of different lengths are an ArgumentError naming the argument (and the index). A label that is a
    list, tuple or set is a text's label set (multi-label: every label of the split must be one; its items become
    strings, an empty one or one given twice is an ArgumentError)."""
    splits = {"train": ("texts", texts, "labels", labels)}
    if dev_texts is not None or dev_labels is not None:
        splits["dev"] = ("dev_texts", dev_texts, "dev_labels", dev_labels)
    loaded = {}
    for split, (texts_name, split_texts, labels_name, split_labels) in splits.items():
        if split_texts is None or split_labels is None:
            raise ArgumentError(f"{split}: give both {texts_name}= and {labels_name}=")
        split_texts, split_labels = as_list(split_texts, texts_name), as_list(split_labels, labels_name)
        if len(split_texts) != len(split_labels):
            raise ArgumentError(f"{split}: {len(split_texts)} texts but {len(split_labels)} labels "
                                f"({texts_name} and {labels_name} must be as long)")
        check_unicode_strings(split_texts, texts_name)
        check_labels_given(split_labels, labels_name)
        check_label_kinds(split_labels, labels_name)
        rows = r.Rows([])
        for text, label in zip(split_texts, split_labels):
            if not text.strip():
                rows.dropped["empty text"] += 1
                continue
            if isinstance(label, LABEL_SETS):
                rows.examples.append(Example(text=text.strip(), labels=_label_set(label, labels_name)))
            else:  # the spaces around a label dropped and said, as the file readers do
                written = str(label)
                if written.strip() != written:
                    rows.respaced[written] += 1
                rows.examples.append(Example(text=text.strip(), label=written.strip()))
        loaded[split] = rows
    return _assemble(name, loaded, dev_fraction, seed, [], report=True)


def _label_set(labels, name: str) -> tuple[str, ...]:
    """A label set given in memory, as a sorted tuple of strings; an empty or repeated label is an ArgumentError."""
    items = [str(label).strip() for label in labels]
    if any(not item for item in items) or len(set(items)) != len(items):
        raise ArgumentError(f"{name}: the label set {sorted(items)!r} holds an empty label or one twice"[:200])
    return tuple(sorted(items))
