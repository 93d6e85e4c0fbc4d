"""`predict --input` on a table: a file without the column the model reads says so, and how to put it right (the
model reads the column it was trained with; predict takes no column option)."""
from __future__ import annotations

import pytest

from attentive.errors import AttentiveError
from attentive.scoring.input_tables import table_records


def test_a_table_without_the_models_column_names_it_and_a_column_spelt_like_it(tmp_path):
    path = tmp_path / "new.csv"
    path.write_text("id,body\n1,hello\n")
    with pytest.raises(AttentiveError) as err:
        table_records(path, {"text": "Body", "text_pair": None, "aspect": None}, "prediction", False)
    assert str(err.value) == (f"{path}:1: no column 'Body' in the header (found: 'id', 'body'): the model reads the "
                              "column it was trained with; name yours 'Body'; 'body' is spelt like it")
