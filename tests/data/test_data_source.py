"""The data a command reads is resolved in one place (attentive/data/source.py): given one way, with one message
for none or several, whether from Python, the CLI, cv or tune."""
import pytest

import attentive
from attentive.cli import main
from attentive.data.source import CLI, PYTHON, DataSource
from attentive.errors import AttentiveError

PYTHON_MESSAGE = "give the data one way: a dataset name (or a Dataset), texts= and labels= or train= (a file)"
CLI_MESSAGE = "give the data one way: --dataset NAME (see `attentive datasets`) or --train FILE"


def test_one_way_and_one_message(tmp_path):
    assert PYTHON.message() == PYTHON_MESSAGE and CLI.message() == CLI_MESSAGE
    for given in ({}, {"dataset": "sst2_sample", "train": tmp_path / "a.csv"},
                  {"dataset": "sst2_sample", "texts": ["a"], "labels": ["x"]}):
        with pytest.raises(AttentiveError) as error:
            DataSource(**given).load()
        assert str(error.value) == PYTHON_MESSAGE
    assert len(DataSource(dataset="sst2_sample").load(dev_fraction=0.0).splits["dev"]) == 872  # its own dev split
    texts = DataSource(texts=["good", "bad"] * 10, labels=["pos", "neg"] * 10).load(dev_fraction=0.0)
    assert len(texts.splits["train"]) == 20 and not texts.splits["dev"]


@pytest.mark.parametrize("call", [
    lambda: attentive.train(),
    lambda: attentive.train("sst2_sample", texts=["a"], labels=["b"]),
    lambda: attentive.cv(),
    lambda: attentive.tune(),
])
def test_the_python_entry_points_say_the_same(call):
    with pytest.raises(AttentiveError, match="give the data one way: a dataset name"):
        call()


def test_the_cli_refuses_a_dataset_and_files_together(tmp_path, capsys):
    data = tmp_path / "train.csv"
    data.write_text("text,label\ngood,pos\nbad,neg\n")
    for args in (["train", "--out", str(tmp_path / "run")],
                 ["train", "--dataset", "sst2_sample", "--train", str(data), "--out", str(tmp_path / "run")],
                 ["cv", "--out", str(tmp_path / "cv")], ["tune", "--out", str(tmp_path / "tune")]):
        capsys.readouterr()
        assert main(args) == 2
        assert capsys.readouterr().err.strip() == f"error: {CLI_MESSAGE}"
    assert not (tmp_path / "run").exists()
