"""read_frame on tables whose header has an empty field (an index written by DataFrame.to_csv)."""

from __future__ import annotations

import pandas as pd

from paucity.io import read_frame


def test_an_empty_header_field_is_named_as_pandas_names_it_and_may_be_read_as_text(tmp_path):
    path = tmp_path / "square.csv"
    pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["007", "NA"], columns=["007", "NA"]).to_csv(path)
    frame = read_frame(path, text_columns=["", "Unnamed: 0", "007"])
    assert frame.columns.tolist() == ["Unnamed: 0", "007", "NA"]
    assert frame["Unnamed: 0"].tolist() == ["007", "NA"]
    assert frame["007"].tolist() == ["1.0", "0.5"]
