"""Readers against the real benchmark files: counts must equal the PROVENANCE.md tables of /work/shared/data."""
from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from attentive.data import readers as r
from attentive.data.example import Example
from attentive.data.paths import resolve_data_dir
from attentive.data.registry import DATASETS, load_dataset, load_files
from attentive.data.splits import assign_groups, carve_dev
from attentive.errors import AttentiveError, DataError

try:
    DATA = resolve_data_dir()
except AttentiveError:
    DATA = None
needs_data = pytest.mark.skipif(DATA is None, reason="benchmark data folder not found")


def counts(examples) -> dict[str, int]:
    return dict(Counter(ex.label for ex in examples))


def split_counts(splits) -> dict[str, dict[str, int]]:
    return {name: counts(examples) for name, examples in splits.items()}


# ---------------------------------------------------------------- benchmark readers (real files)

@pytest.fixture(scope="module")
def imdb():
    return {s: r.read_imdb(DATA / f"imdb/imdb_{s}.jsonl.gz") for s in ("train", "test")}


@needs_data
def test_imdb_counts_and_br_tags(imdb):
    assert split_counts(imdb) == {"train": {"neg": 12500, "pos": 12500}, "test": {"neg": 12500, "pos": 12500}}
    assert not any("<br" in ex.text.lower() for part in imdb.values() for ex in part)


def test_imdb_dev_takes_whole_blocks_of_ids_and_loses_no_review(tmp_path):
    path = tmp_path / "imdb_train.jsonl.gz"
    rows = [{"id": i, "rating": 9 if label == "pos" else 2, "label": label, "text": f"{label} review {i}"}
            for label in ("neg", "pos") for i in range(200)]
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    splits = r.read_imdb_train_dev(path, fraction=0.1, seed=13, block=10)
    assert len(splits["train"]) + len(splits["dev"]) == 400
    dev_blocks = {(ex.label, int(ex.text.split()[-1]) // 10) for ex in splits["dev"]}
    train_blocks = {(ex.label, int(ex.text.split()[-1]) // 10) for ex in splits["train"]}
    assert not dev_blocks & train_blocks  # no block straddles the two
    assert {label for label, _ in dev_blocks} == {"neg", "pos"} and len(splits["dev"]) == 40
    assert r.read_imdb_train_dev(path, seed=13, block=10) == splits  # seeded
    assert r.read_imdb_train_dev(path, seed=14, block=10)["dev"] != splits["dev"]


@needs_data
def test_imdb_dataset_dev_is_cut_in_id_blocks():
    dataset = load_dataset("imdb")
    assert {split: len(rows) for split, rows in dataset.splits.items()} == {"train": 22500, "dev": 2500,
                                                                            "test": 25000}
    assert dataset.label_counts("dev") == {"neg": 1250, "pos": 1250}
    assert any("blocks of 250 consecutive review ids" in note for note in dataset.notes)


@needs_data
def test_imdb_unsup():
    unsup = r.read_imdb(DATA / "imdb/imdb_unsup.jsonl.gz", labelled=False)
    assert len(unsup) == 50000 and all(ex.label is None for ex in unsup)


@needs_data
def test_r8():
    train = r.read_label_tab(DATA / "r8/r8-train-all-terms.txt")
    test = r.read_label_tab(DATA / "r8/r8-test-all-terms.txt")
    assert counts(train) == {"acq": 1596, "crude": 253, "earn": 2840, "grain": 41, "interest": 190,
                             "money-fx": 206, "ship": 108, "trade": 251}
    assert counts(test) == {"acq": 696, "crude": 121, "earn": 1083, "grain": 10, "interest": 81,
                            "money-fx": 87, "ship": 36, "trade": 75}


FIRST_TREE = ("The Rock is destined to be the 21st Century 's new `` Conan '' and that he 's going to make a splash "
              "even greater than Arnold Schwarzenegger , Jean-Claud Van Damme or Steven Segal .")
SST_FINE = {"train": [1092, 2218, 1624, 2322, 1288], "dev": [139, 289, 229, 279, 165],
            "test": [279, 633, 389, 510, 399]}
SST_BINARY = {"train": [3310, 3610], "dev": [428, 444], "test": [912, 909]}


@needs_data
@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_sst_stsa(split):
    fine = r.read_stsa(DATA / f"sst/stsa.fine.{split}")
    binary = r.read_stsa(DATA / f"sst/stsa.binary.{split}")
    assert counts(fine) == dict(zip("01234", SST_FINE[split]))
    assert counts(binary) == dict(zip("01", SST_BINARY[split]))


@needs_data
@pytest.mark.parametrize("split", ["train", "dev", "test"])
def test_barnes_sst_trees(split):
    path = DATA / f"barnes2017/stanford_sentanalysis/{split}.txt"
    fine = r.read_ptb_trees(path)
    binary = r.read_ptb_trees(path, binary=True)
    assert counts(fine.examples) == dict(zip("01234", SST_FINE[split])) and fine.skipped == 0
    assert counts(binary.examples) == {"neg": SST_BINARY[split][0], "pos": SST_BINARY[split][1]}
    assert binary.skipped == SST_FINE[split][2]
    assert all("(" not in ex.text and ")" not in ex.text for ex in fine.examples)
    if split == "train":
        assert fine.examples[0] == Example(FIRST_TREE, "3")


BARNES = {  # dataset: {label: (train, dev, test)}
    "opener": {"strneg": (137, 9, 37), "neg": (712, 48, 190), "pos": (1281, 86, 342), "strpos": (650, 43, 174)},
    "sentube_auto": {"neg": (1478, 98, 395), "pos": (1903, 127, 508)},
    "sentube_tablets": {"neg": (2507, 167, 669), "pos": (2490, 166, 665)},
    "semeval2013": {"positive": (2225, 328, 946), "negative": (831, 163, 316), "neutral": (2965, 399, 1114)},
    "barnes_sst_fine": {label: tuple(SST_FINE[s][int(label)] for s in ("train", "dev", "test")) for label in "01234"},
    "barnes_sst_binary": {"neg": (3310, 428, 912), "pos": (3610, 444, 909)},
}


@needs_data
@pytest.mark.parametrize("name", sorted(BARNES))
def test_barnes_six_datasets(name):
    dataset = load_dataset(name)
    for i, split in enumerate(("train", "dev", "test")):
        assert dataset.label_counts(split) == {label: n[i] for label, n in BARNES[name].items()}
    assert dataset.labels == sorted(BARNES[name])


@needs_data
def test_semeval2013_quoted_and_bare_labels():
    assert ({ex.label for ex in r.read_semeval2013(DATA / "barnes2017/semeval/test.tsv")}
            == {"positive", "negative", "neutral"})


def _semeval14(reader, **kw):
    return {s: reader(DATA / f"semeval14_absa/{f}", **kw)
            for s, f in (("train", "Restaurants_Train_v2.xml"), ("test", "Restaurants_Test_Gold.xml"))}


@needs_data
def test_semeval14_categories():
    rows = _semeval14(r.read_semeval14_categories)
    assert counts(rows["train"].examples) == {"positive": 2179, "negative": 839, "neutral": 500}
    assert counts(rows["test"].examples) == {"positive": 657, "negative": 222, "neutral": 94}
    assert rows["train"].dropped == {"conflict": 195} and rows["test"].dropped == {"conflict": 52}
    assert {ex.aspect for ex in rows["train"].examples} == {"food", "service", "price", "ambience",
                                                            "anecdotes/miscellaneous"}
    binary = _semeval14(r.read_semeval14_categories, binary=True)
    assert counts(binary["train"].examples) == {"positive": 2179, "negative": 839}
    assert binary["train"].dropped == {"conflict": 195, "neutral": 500}
    assert binary["test"].dropped == {"conflict": 52, "neutral": 94}


@needs_data
def test_semeval14_terms():
    rows = _semeval14(r.read_semeval14_terms)
    assert counts(rows["train"].examples) == {"positive": 2164, "negative": 805, "neutral": 633}
    assert counts(rows["test"].examples) == {"positive": 728, "negative": 196, "neutral": 196}
    assert rows["train"].dropped == {"conflict": 91} and rows["test"].dropped == {"conflict": 14}
    first = rows["train"].examples[0]
    assert first == Example("But the staff was so horrible to us.", "negative", aspect="staff")


@needs_data
def test_semeval14_registry_carves_dev():
    dataset = load_dataset("semeval14_category")
    train, dev = dataset.label_counts("train"), dataset.label_counts("dev")
    assert {k: train[k] + dev[k] for k in train} == {"negative": 839, "neutral": 500, "positive": 2179}
    assert dataset.skipped == {"train": 195, "test": 52}
    assert any("dev" in note for note in dataset.notes)


@needs_data
def test_news_story_grouped_split():
    examples, stories = r.read_news(DATA / "news_aggregator/newsCorpora_nourl.tsv.gz")
    assert len(examples) == 422937
    assert counts(examples) == {"entertainment": 152828, "business": 115967, "science_tech": 108503, "health": 45639}
    story_labels = {}
    for ex, story in zip(examples, stories):
        story_labels.setdefault(ex.label, set()).add(story)
    assert {k: len(v) for k, v in story_labels.items()} == {
        "entertainment": 2076, "business": 2019, "science_tech": 1789, "health": 1347}
    split_of_row = assign_groups(stories, [ex.label for ex in examples], seed=13)
    splits_of_story = {}
    for story, split in zip(stories, split_of_row):
        splits_of_story.setdefault(story, set()).add(split)
    assert all(len(s) == 1 for s in splits_of_story.values())
    per_split = Counter(split_of_row)
    assert sum(per_split.values()) == 422937 and set(per_split) == {"train", "dev", "test"}
    assert Counter(next(iter(s)) for s in splits_of_story.values())["train"] == pytest.approx(0.8 * 7231, abs=5)
    assert assign_groups(stories[:5000], seed=13) == assign_groups(stories[:5000], seed=13)


@needs_data
def test_sick():
    splits = r.read_sick(DATA / "sick/SICK.txt.gz")
    assert split_counts(splits) == {
        "train": {"NEUTRAL": 2524, "ENTAILMENT": 1274, "CONTRADICTION": 641},
        "dev": {"NEUTRAL": 281, "ENTAILMENT": 143, "CONTRADICTION": 71},
        "test": {"NEUTRAL": 2790, "ENTAILMENT": 1404, "CONTRADICTION": 712},
    }
    assert {k: len(v) for k, v in splits.items()} == {"train": 4439, "dev": 495, "test": 4906}
    assert all(ex.text_pair for ex in splits["train"])


# ---------------------------------------------------------------- registry

@needs_data
@pytest.mark.parametrize("name", ["r8", "sst2", "sst5", "sick"])
def test_registry_splits_and_labels(name):
    dataset = load_dataset(name)
    assert list(dataset.splits) == ["train", "dev", "test"] and all(dataset.splits.values())
    assert dataset.labels == sorted(dataset.labels)
    if name == "sst5":
        assert dataset.labels == ["0", "1", "2", "3", "4"]
    if name == "sst2":
        assert dataset.labels == ["0", "1"]
    if name == "r8":  # dev carved from train, stratified and reproducible
        again = load_dataset(name)
        assert len(dataset.splits["train"]) + len(dataset.splits["dev"]) == 5485
        assert dataset.splits["dev"] == again.splits["dev"]
        assert dataset.label_counts("dev")["grain"] in (4, 5)


@needs_data
def test_newsgroups20_and_banking77_keep_every_message_or_count_it():
    news = load_dataset("newsgroups20")  # 18 train and 16 test messages have an empty body (PROVENANCE.md)
    assert len(news.splits["train"]) + len(news.splits["dev"]) == 11_314 - 18
    assert len(news.splits["test"]) == 7_532 - 16 and len(news.labels) == 20
    assert "train: dropped 18 rows (18 empty text)" in news.notes
    banking = load_dataset("banking77")  # quoted line breaks kept inside their texts
    assert len(banking.splits["train"]) + len(banking.splits["dev"]) == 10_003
    assert len(banking.splits["test"]) == 3_080 and len(banking.labels) == 77
    assert set(banking.label_counts("test").values()) == {40}


@needs_data
@pytest.mark.parametrize("task, sizes, labels", [
    ("emotion", (3_257, 374, 1_421), ["anger", "joy", "optimism", "sadness"]),
    ("irony", (2_862, 955, 784), ["irony", "non_irony"]),
    ("offensive", (11_916, 1_324, 860), ["not-offensive", "offensive"]),
])
def test_tweeteval(task, sizes, labels):  # sizes and labels as in tweeteval/PROVENANCE.md
    dataset = load_dataset(f"tweeteval_{task}")
    assert tuple(len(dataset.splits[s]) for s in ("train", "dev", "test")) == sizes
    assert dataset.labels == labels and not dataset.notes and not dataset.warnings
    assert all(ex.text == ex.text.strip() and ex.text for ex in dataset.splits["test"])


@needs_data
def test_clinc150_in_scope_and_out_of_scope():  # clinc150/PROVENANCE.md: 100 / 20 / 30 a class, oos 100 / 100 / 1,000
    dataset = load_dataset("clinc150")
    assert {s: len(v) for s, v in dataset.splits.items()} == {"train": 15_000, "dev": 3_000, "test": 4_500}
    assert len(dataset.labels) == 150 and "oos" not in dataset.labels and not dataset.notes
    assert set(dataset.label_counts("train").values()) == {100} and set(dataset.label_counts("test").values()) == {30}
    oos = load_dataset("clinc150_oos")
    assert {s: len(v) for s, v in oos.splits.items()} == {"train": 100, "dev": 100, "test": 1_000}
    assert oos.labels == ["oos"]


def test_labelled_jsonl_refuses_a_label_outside_the_set(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_text('{"text": "a", "label": "joy"}\n\n{"text": "b", "label": "fear"}\n')
    with pytest.raises(DataError, match=r"dev\.jsonl:3: label 'fear' is not one of this set's \(anger, joy"):
        r.read_labelled_jsonl(path, r.TWEETEVAL_LABELS["emotion"])
    path.write_text('{"text": "a", "label": "oos"}\n{"text": "b", "label": "translate"}\n')
    with pytest.raises(DataError, match=r"dev\.jsonl:2: label 'translate' is not one of this set's \(oos\)"):
        r.read_out_of_scope(path)
    with pytest.raises(DataError, match=r"dev\.jsonl:1: label 'oos' does not belong in this file"):
        r.read_in_scope(path)


def test_sst2_sample_needs_no_data_dir(monkeypatch):
    monkeypatch.setenv("ATTENTIVE_DATA", "/nonexistent/folder")
    dataset = load_dataset("sst2_sample")
    assert {k: len(v) for k, v in dataset.splits.items()} == {"train": 2500, "dev": 872, "test": 1821}
    assert dataset.labels == ["negative", "positive"]
    assert dataset.label_counts("dev") == {"negative": 428, "positive": 444}


def test_unknown_dataset_lists_names():
    with pytest.raises(AttentiveError, match="known:.*sst2"):
        load_dataset("nope")
    assert len(DATASETS) == 24


def test_data_dir_resolution(monkeypatch, tmp_path):
    assert resolve_data_dir(tmp_path) == tmp_path
    monkeypatch.setenv("ATTENTIVE_DATA", str(tmp_path))
    assert resolve_data_dir() == tmp_path
    with pytest.raises(AttentiveError, match="does not exist"):
        resolve_data_dir(tmp_path / "missing")


# ---------------------------------------------------------------- generic user files

def test_generic_csv(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text('text,label,aspect\n"Great, really",pos,food\n"He said ""no""",neg,service\n,pos,food\n',
                    encoding="utf-8")
    rows = r.read_table(path, aspect_column="aspect")
    assert rows.examples == [Example("Great, really", "pos", "food"), Example('He said "no"', "neg", "service")]
    assert rows.skipped == 1 and rows.dropped == {"empty text": 1}


def test_generic_tsv_custom_columns(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text('premise\thypothesis\ty\n"quoted start\tb\tyes\n  \tc\tno\nx\ty\tno\n', encoding="utf-8")
    rows = r.read_table(path, text_column="premise", label_column="y", pair_column="hypothesis")
    assert rows.examples == [Example('"quoted start', "yes", text_pair="b"), Example("x", "no", text_pair="y")]
    assert rows.skipped == 1


def test_generic_jsonl_and_malformed_line(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('{"text": "fine", "label": 1}\n\n{"text": "", "label": 0}\n{"text": "ok", "label": 0}\n')
    rows = r.read_table(good)
    assert [(ex.text, ex.label) for ex in rows.examples] == [("fine", "1"), ("ok", "0")] and rows.skipped == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine", "label": "a"}\n{"text": "broken", \n')
    with pytest.raises(DataError) as err:
        r.read_table(bad)
    assert "bad.jsonl:2:" in str(err.value) and err.value.line == 2


def test_generic_missing_column(tmp_path):
    csv_path = tmp_path / "x.csv"
    csv_path.write_text("body,label\nhello,a\n")
    with pytest.raises(DataError, match=r"x\.csv:1: no column 'text'"):
        r.read_table(csv_path)
    jsonl = tmp_path / "x.jsonl"
    jsonl.write_text(json.dumps({"text": "a", "label": "b"}) + "\n" + json.dumps({"text": "a"}) + "\n")
    with pytest.raises(DataError, match=r"x\.jsonl:2: no column 'label'"):
        r.read_table(jsonl)


def test_a_missing_column_says_how_to_name_it(tmp_path):
    csv_path = tmp_path / "x.csv"
    csv_path.write_text("ticket,Label \nhello,a\n")
    with pytest.raises(DataError) as err:
        r.read_table(csv_path)
    assert str(err.value).endswith("name your text column with --text-column (text_column= in Python)")
    with pytest.raises(DataError) as err:
        r.read_table(csv_path, text_column="ticket")
    assert "name your label column with --label-column" in str(err.value)
    assert str(err.value).endswith("'Label ' is spelt like it")  # case and spaces aside


def test_generic_errors(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        r.read_table(tmp_path / "absent.csv")
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text("text\tlabel\na\tb\nonly one field\n")
    with pytest.raises(DataError, match=r"ragged\.tsv:3:"):
        r.read_table(ragged)
    notes = tmp_path / "notes.txt"
    notes.write_text("text,label\nx,y\n")
    with pytest.raises(DataError, match="format"):
        r.read_table(notes)
    assert r.read_table(notes, format="csv").examples == [Example("x", "y")]


def test_benchmark_reader_reports_line(tmp_path):
    path = tmp_path / "r8.txt"
    path.write_text("earn\tsome text\nno tab here\n")
    with pytest.raises(DataError, match=r"r8\.txt:2: expected"):
        r.read_label_tab(path)
    trees = tmp_path / "trees.txt"
    trees.write_text("(3 (2 a) (3 b))\n(3 (2 a) (3 b)\n")
    with pytest.raises(DataError, match=r"trees\.txt:2:"):
        r.read_ptb_trees(trees)


def test_load_files_carves_dev(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("text,label\n" + "".join(f"text {i},{'ab'[i % 2]}\n" for i in range(40)) + ",a\n")
    dataset = load_files(train, dev_fraction=0.25, seed=1)
    assert [len(dataset.splits[s]) for s in ("train", "dev", "test")] == [30, 10, 0]
    assert dataset.label_counts("dev") == {"a": 5, "b": 5}
    assert dataset.labels == ["a", "b"] and dataset.skipped == {"train": 1}
    train_, dev_ = carve_dev(dataset.splits["train"] + dataset.splits["dev"], 0.25, seed=1)
    assert len(dev_) == 10


# ---------------------------------------------------------------- nothing lost, no traceback

def _reviews(n: int = 300) -> list[str]:
    return ["text,label"] + [f"review number {i},{'pos' if i % 2 else 'neg'}" for i in range(n)]


def test_csv_stray_quote_that_swallows_rows_is_an_error(tmp_path):
    lines = _reviews()
    lines[101] = '"' + lines[101]  # a stray quote opens a field on line 102 ...
    lines[201] = 'he said "wow" twice,pos'  # ... which the quote on line 202 closes, badly
    path = tmp_path / "stray.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"stray\.csv:102: a double quote opens a field here that runs to line 202, "
                                        r"swallowing 100 lines that look like rows of their own; "
                                        r"close or escape") as err:
        r.read_table(path)
    assert err.value.line == 102


def test_csv_unclosed_quote_reported_where_it_opens(tmp_path):
    lines = _reviews()
    lines[251] = '"' + lines[251]
    path = tmp_path / "open.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"open\.csv:252: a double quote opens a field here and is never closed: "
                                        r"it runs to the end of the file \(line 301\)"):
        r.read_table(path)
    second = tmp_path / "second.csv"  # the unclosed quote opens in the second field of a row, last line unterminated
    second.write_text('text,label\nfine,pos\nalso fine,"neg\nand more')
    with pytest.raises(DataError, match=r"second\.csv:3: a double quote opens a field here and is never closed"):
        r.read_table(second)


def test_csv_multiline_fields_kept_exactly_and_counted(tmp_path):
    path = tmp_path / "multi.csv"
    path.write_bytes(b'text,label\r\n"line one\r\nline two, with ""quotes""",pos\r\nplain,neg\r\n'
                     b'"a\nb,c\nd,e",neg\r\n"  \n  ",pos\r\n')
    rows = r.read_table(path)
    assert rows.examples == [Example('line one\r\nline two, with "quotes"', "pos"), Example("plain", "neg"),
                             Example("a\nb,c\nd,e", "neg")]  # correctly quoted: its lines may look like rows
    assert rows.multiline == 3 and rows.dropped == {"empty text": 1}
    dataset = load_files(path, dev=path)
    assert "train: 3 rows span several lines (quoted line breaks)" in dataset.notes


def test_csv_broken_quoting_within_one_line_or_without_rowlike_lines_is_tolerated(tmp_path):
    path = tmp_path / "sloppy.csv"
    path.write_text('label,text\npos,"great" movie\nneg,"so\nbad" really\n')
    rows = r.read_table(path)
    assert [ex.text for ex in rows.examples] == ["great movie", "so\nbad really"] and rows.multiline == 1


def test_csv_carriage_return_in_unquoted_field(tmp_path):
    path = tmp_path / "cr.csv"
    path.write_bytes(b"text,label\nok,pos\nbad\rtext,neg\n")
    with pytest.raises(DataError, match=r"cr\.csv:3: a carriage return"):
        r.read_table(path)


def test_not_gzip_truncated_gzip_and_unreadable_files(tmp_path, monkeypatch):
    import gzip

    from attentive.util import user_files  # where the readers open files

    fake = tmp_path / "plain.csv.gz"
    fake.write_text("text,label\na,b\n")
    with pytest.raises(DataError, match=r"plain\.csv\.gz:1: not a gzip file"):
        r.read_table(fake)
    data = gzip.compress(b"text,label\n" + b"some text,pos\n" * 5000)
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match=r"cut\.csv\.gz:\d+: truncated gzip data"):
        r.read_table(cut)
    unnamed = tmp_path / "packed.csv"
    unnamed.write_bytes(data)
    with pytest.raises(DataError, match=r"packed\.csv:1: gzip-compressed data in a file not named \.gz"):
        r.read_table(unnamed)
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(DataError, match=r"folder\.csv: is a directory"):
        r.read_table(tmp_path / "folder.csv")
    locked = tmp_path / "locked.csv"
    locked.write_text("text,label\na,b\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(user_files, "open", refuse, raising=False)
    with pytest.raises(DataError, match=r"locked\.csv: cannot read the file \(Permission denied\)"):
        r.read_table(locked)


def test_jsonl_values_python_cannot_parse(tmp_path):
    path = tmp_path / "odd.jsonl"
    path.write_text('{"text": "a", "label": "x"}\n{"text": "b", "label": ' + "9" * 5000 + "}\n")
    with pytest.raises(DataError, match=r"odd\.jsonl:2: malformed JSON"):
        r.read_table(path)
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(DataError, match=r"odd\.jsonl:1: malformed JSON \(nested too deeply\)"):
        r.read_table(path)


def test_one_line_messages_for_odd_column_names(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text('"body\nline",label\nx,y\n')
    with pytest.raises(DataError) as err:
        r.read_table(path)
    assert "\n" not in str(err.value) and "'body\\nline'" in str(err.value)


def test_numeric_labels_written_two_ways(tmp_path):
    path = tmp_path / "nums.jsonl"
    path.write_text('{"text": "a", "label": 1}\n{"text": "b", "label": 0}\n{"text": "c", "label": 1.0}\n')
    with pytest.raises(DataError, match=r"nums\.jsonl:3: labels '1' \(line 1\) and '1\.0' \(line 3\) are the same "
                                        r"number written two ways"):
        r.read_table(path)
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    train.write_text("text,label\na,1\nb,0\n")
    test.write_text("text,label\nc,01\n")
    with pytest.raises(AttentiveError, match=r"train\.csv: labels '1' \(train\) and '01' \(test\) are the same number"):
        load_files(train, test=test)
    from attentive.data.checks import same_number

    assert same_number(["1", "2", "1e0"]) == ("1", "1e0") and same_number(["nan", "NaN", "pos", "10", "1"]) is None


def test_training_label_checks(tmp_path):
    from attentive.data.checks import check_training_labels

    train, dev, test = tmp_path / "train.csv", tmp_path / "dev.csv", tmp_path / "test.csv"
    train.write_text("text,label\n" + "a,pos\n" * 300)
    dev.write_text("text,label\na,pos\nb,neutral\nc,neutral\nd,mixed\n")
    with pytest.raises(AttentiveError,
                       match=r"train has one label, 'pos' \(300 rows\): a classifier needs at least two"):
        check_training_labels(load_files(train, dev=dev))
    train.write_text("text,label\n" + "a,pos\nb,neg\n" * 10)
    test.write_text("text,label\na,neg\n")
    dataset = load_files(train, dev=dev, test=test)
    expected = ["dev: 3 rows with label(s) 'mixed', 'neutral' never seen in train"]
    assert dataset.warnings[:1] == expected and check_training_labels(dataset) == expected
    assert "train: 2 duplicate text(s), e.g. 'a' 10 times" in dataset.warnings  # the data report's, after them
    assert load_files(test, dev_fraction=0).warnings == []  # a one-class file loads; only training refuses it


def test_a_null_or_nan_label_is_an_error_naming_the_line(tmp_path):
    """Python's json reads NaN (which JSON does not have): it must not become a class 'nan'."""
    path = tmp_path / "missing.jsonl"
    path.write_text('{"text": "fine", "label": "pos"}\n{"text": "dull", "label": NaN}\n')
    with pytest.raises(DataError, match=r"missing\.jsonl:2: column 'label' holds NaN, which is not a value"):
        r.read_table(path)
    path.write_text('{"text": "fine", "label": "pos"}\n{"text": "dull", "label": null}\n')
    with pytest.raises(DataError, match=r"missing\.jsonl:2: empty label in column 'label'"):
        r.read_table(path)
    empty = tmp_path / "missing.csv"
    empty.write_text("text,label\nfine,pos\ndull,\n")
    with pytest.raises(DataError, match=r"missing\.csv:3: empty label in column 'label'"):
        r.read_table(empty)


def test_one_column_for_text_and_label_is_refused(tmp_path):
    """Labels read from the text column would be learnt from the texts themselves (dev accuracy 1.0)."""
    path = tmp_path / "reviews.csv"
    path.write_text("text,label\n" + "".join(f"review {i},{'ab'[i % 2]}\n" for i in range(40)))
    with pytest.raises(DataError, match=r"reviews\.csv: the text column and the label column are both 'label'"):
        load_files(path, text_column="label", label_column="label")
    with pytest.raises(DataError, match=r"the text column and the pair column are both 'text'"):
        r.read_table(path, pair_column="text")


def test_a_csv_field_longer_than_the_csv_modules_default_limit_reads(tmp_path):
    long_text = "word " * 60_000  # 300,000 characters; the csv module's default limit is 131,072
    path = tmp_path / "long.csv"
    path.write_text(f'text,label\n"{long_text}",pos\nshort,neg\n')
    rows = r.read_table(path)
    assert [ex.text for ex in rows.examples] == [long_text.strip(), "short"]


def test_an_unknown_extension_says_what_to_do(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("text,label\nx,y\n")
    with pytest.raises(DataError) as err:
        r.read_table(notes)
    message = str(err.value)
    assert "name the file .csv, .tsv or .jsonl" in message and "explicitly" not in message  # the CLI has no such option
