"""`attentive train` on a file whose header names a column twice stops before training, with one line naming the
file, the header line and the column (read as a mapping, the last, empty, `text` column would have been learnt)."""
from __future__ import annotations

from attentive.cli import main


def test_train_refuses_a_header_naming_a_column_twice(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("text,label,text\n" + "".join(f"review number {i},{'ab'[i % 2]},\n" for i in range(40)))
    assert main(["train", "--train", str(path), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith("dup.csv:1: the header names the column 'text' more than once: give each column its own "
                          "name")
    assert len(error.splitlines()) == 1 and "Traceback" not in error and not (tmp_path / "run").exists()
