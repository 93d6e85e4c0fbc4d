"""A header or a JSON line that names a column twice is refused, in one line naming the file, the line and the name:
read as a mapping, the last of the repeated columns would win and the others' values would be lost silently."""
from __future__ import annotations

import gzip
import json

import pytest

from attentive.data import readers as r
from attentive.data.registry import load_files
from attentive.errors import DataError
from attentive.scoring.input_lines import BadLine, jsonl_records

TEXTS = [f"a real review number {i}" for i in range(20)]


def _rows(separator: str) -> str:
    return "".join(f"{text}{separator}{'pos' if i % 2 else 'neg'}{separator}\n" for i, text in enumerate(TEXTS))


@pytest.mark.parametrize("suffix, separator", [(".csv", ","), (".tsv", "\t"), (".csv.gz", ",")])
def test_a_header_naming_a_column_twice_is_refused(tmp_path, suffix, separator):
    path = tmp_path / f"dup{suffix}"
    data = f"text{separator}label{separator}text\n" + _rows(separator)  # the last "text" column is empty
    path.write_bytes(gzip.compress(data.encode()) if suffix.endswith(".gz") else data.encode())
    with pytest.raises(DataError, match=rf"/{path.name.replace('.', '[.]')}:1: the header names the column 'text' "
                                        "more than once: give each column its own name$"):
        r.read_table(path)
    with pytest.raises(DataError, match=":1: the header names the column 'text' more than once"):
        load_files(path)


def test_every_repeated_name_of_a_header_is_named(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("label,text,id,text,label,label\n")
    with pytest.raises(DataError, match=r"dup\.csv:1: the header names the columns 'label', 'text' more than once"):
        r.read_table(path)


def test_a_byte_order_mark_does_not_hide_a_repeated_name(tmp_path):
    """The reader drops a byte order mark before the header: what is left of the name is the name."""
    for suffix, separator in ((".csv", ","), (".tsv", "\t")):
        path = tmp_path / f"bom{suffix}"
        path.write_bytes(f"\ufefftext{separator}label{separator}text\n".encode() + _rows(separator).encode())
        with pytest.raises(DataError, match=rf"bom\{suffix}:1: the header names the column 'text' more than once"):
            r.read_table(path)


def test_names_that_differ_are_not_repeats(tmp_path):
    """The reader takes header names as they are written (no whitespace is stripped): ` text` is another column."""
    path = tmp_path / "spaced.csv"
    path.write_text("text,label, text\n" + "".join(f"{text},pos,other\n" for text in TEXTS[:2]))
    assert [ex.text for ex in r.read_table(path).examples] == TEXTS[:2]


def test_a_jsonl_training_line_giving_a_key_twice_is_refused(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text('{"text": "a", "label": "pos"}\n{"text": "a", "label": "pos", "text": "b"}\n')
    with pytest.raises(DataError, match=r"/dup\.jsonl:2: the key 'text' is given twice: keep one$"):
        r.read_table(path)
    with pytest.raises(DataError, match=r"dup\.jsonl:2: the key 'text' is given twice"):
        load_files(path)


def test_every_jsonl_reader_refuses_a_key_given_twice_alike(tmp_path):
    """Training files, the IMDB files and predict's --input lines share one rule and one message."""
    line = '{"id": 1, "text": "a", "label": "pos", "text": "b"}'
    path = tmp_path / "imdb.jsonl.gz"
    path.write_bytes(gzip.compress(f'{json.dumps({"id": 0, "text": "x", "label": "neg"})}\n{line}\n'.encode()))
    with pytest.raises(DataError, match=r"/imdb\.jsonl\.gz:2: the key 'text' is given twice: keep one$"):
        r.read_imdb(path)
    training = tmp_path / "train.jsonl"
    training.write_text(f"{line}\n")
    with pytest.raises(DataError) as refused:
        r.read_table(training)
    [bad] = jsonl_records(training, ("text",))
    assert isinstance(bad, BadLine) and bad.problem == refused.value.problem


def test_a_key_twice_inside_a_nested_value_is_the_values_own_problem(tmp_path):
    """Only the line's own object is held to one value a key; a nested object is refused as a value."""
    path = tmp_path / "nested.jsonl"
    path.write_text('{"text": {"a": 1, "a": 2}, "label": "pos"}\n')
    with pytest.raises(DataError, match=r"nested\.jsonl:1: column 'text' holds a dict, expected a string"):
        r.read_table(path)


def test_the_sick_header_naming_a_column_twice_is_refused(tmp_path):
    header = ["pair_ID", "sentence_A", "sentence_B", "entailment_label", "sentence_A", "SemEval_set"]
    row = ["1", "a man plays", "a man is playing", "ENTAILMENT", "", "TRAIN"]
    path = tmp_path / "SICK.txt"
    path.write_text("\t".join(header) + "\n" + "\t".join(row) + "\n")
    with pytest.raises(DataError, match=r"SICK\.txt:1: the header names the column 'sentence_A' more than once"):
        r.read_sick(path)


def test_the_news_header_naming_a_column_twice_is_refused_naming_it(tmp_path):
    path = tmp_path / "news.tsv"
    path.write_text("ID\tTITLE\tPUBLISHER\tCATEGORY\tSTORY\tTITLE\tTIMESTAMP\n")
    with pytest.raises(DataError, match=r"news\.tsv:1: the header names the column 'TITLE' more than once"):
        r.read_news(path)


def test_an_xml_attribute_given_twice_is_refused(tmp_path):
    """SemEval-2014's XML: the parser itself refuses an attribute given twice."""
    path = tmp_path / "absa.xml"
    path.write_text('<sentences>\n<sentence id="1"><text>good food</text><aspectCategories>\n'
                    '<aspectCategory category="food" polarity="positive" polarity="negative"/>\n'
                    "</aspectCategories></sentence></sentences>\n")
    with pytest.raises(DataError, match=r"absa\.xml:3: malformed XML \(duplicate attribute\)"):
        r.read_semeval14_categories(path)
