"""How a model reads its files (attentive/data/reading.py): recorded from the options a file was read with, read back
from config.json, an option given winning over the record, and a damaged record one line."""
import pytest

from attentive.data.reading import DEFAULTS, model_reading, reading_for, reading_of
from attentive.data.registry import load_files, load_test_file
from attentive.data.source import is_file_name
from attentive.errors import AttentiveError


def test_a_files_reading_is_recorded_and_read_back(tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text("id,message,category\n1,a fine film,positive\n2,dull,negative\n3,great,positive\n"
                    "4,bad,negative\n", encoding="utf-8")
    data = load_files(path, dev=path, text_column="message", label_column="category")
    assert data.reading == {**DEFAULTS, "text_column": "message", "label_column": "category"}
    config = {"reading": data.reading}
    assert model_reading(config) == data.reading
    assert reading_for(config) == data.reading
    assert reading_for(config, label_column="other")["label_column"] == "other"
    assert reading_for(config, text_column=None)["text_column"] == "message"
    assert load_test_file(path, **reading_for(config)).splits["test"][0].text == "a fine film"


def test_a_model_without_a_record_reads_the_defaults_and_a_damaged_one_is_one_line():
    assert model_reading({}) == DEFAULTS
    assert reading_of() == DEFAULTS
    with pytest.raises(AttentiveError, match="'reading'"):
        model_reading({"reading": {"text_column": 3}})
    with pytest.raises(AttentiveError, match="'reading'"):
        model_reading({"reading": ["message"]})


def test_a_file_name_is_told_from_a_dataset_name(tmp_path):
    assert is_file_name("tickets.csv") and is_file_name(tmp_path / "x") and is_file_name("data/test.jsonl.gz")
    assert not is_file_name("sst2_sample") and not is_file_name("imdb")
