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


# -- the options every reader of a table shares --------------------------------------------------------------------
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from paucity._errors import InputError, ReaderError  # noqa: E402


@pytest.mark.parametrize(
    ("body", "kwargs", "error", "words"),
    [
        ("a,b\n1,2,3\n4,5\n", {}, ReaderError, ["row longer than its header", "data row 1", "2 field(s)"]),
        ("a,b\n1,2\n4,5,6\n", {}, ReaderError, ["row longer than its header", "data row 2"]),
        ("a,b\n1,2\n4,x\n", {"numeric_columns": True}, InputError, ["column 'b'", "not numeric", "data row 2 has 'x'"]),
        ("a,b\n1,2\n4,x\n", {"numeric_columns": ["a"]}, None, []),
        ("a,b\n1,2\n4,inf\n", {"numeric_columns": True, "finite": True}, InputError,
         ["column 'b'", "infinite", "data row 2"]),
        ("a,b\n1,2\n4,\n", {"numeric_columns": True, "finite": True}, InputError, ["missing", "data row 2"]),
        ("id,a\n,1\n", {"index_column": "id"}, InputError, ["no id in column 'id' (index_column), data row 1"]),
        ("id,a\ns,1\n", {"index_column": "name"}, InputError, ["index_column 'name' is not a column", "'id', 'a'"]),
        ("id,a\ns,1\n", {"index_column": "name", "spelling": {"index_column": "--item-column"}}, InputError,
         ["--item-column 'name' is not a column"]),
        ("id,a\ns,x\n", {"numeric_columns": True}, InputError, ["column 'id'", "pass index_column 'id'"]),
        ("a,b\nTrue,1\n", {"numeric_columns": ["a"]}, InputError, ["column 'a'", "not numeric"]),
        ("a\n1\n", {"numeric_columns": ["z"]}, InputError, ["numeric_columns: 'z' is not a column"]),
    ],
)
def test_the_options_refuse_in_one_line_naming_the_row(tmp_path, body, kwargs, error, words):
    path = tmp_path / "t.csv"
    path.write_text(body)
    if error is None:
        read_frame(path, **kwargs)
        return
    with pytest.raises(error) as caught:
        read_frame(path, **kwargs)
    for word in words:
        assert word in str(caught.value)


def test_index_column_is_text_and_numbers_come_back_bit_for_bit(tmp_path):
    values = np.random.default_rng(0).normal(size=(20, 3)) * 10.0 ** np.arange(-8, 12, 1)[:, None]
    frame = pd.DataFrame(values, columns=["x", "y", "z"], index=pd.Index([f"{k:05d}" for k in range(20)], name="id"))
    for name in ("t.csv", "t.tsv.gz", "t.txt"):
        path = tmp_path / name
        frame.to_csv(path, sep="," if name.endswith("csv") else "\t")
        back = read_frame(path, index_column="id", numeric_columns=True)
        assert back.index.tolist() == frame.index.tolist()
        assert np.array_equal(back.to_numpy(), values)  # exactly, not approximately


def test_a_parquet_index_becomes_a_column_again(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1.0, 2.0]}, index=pd.Index(["007", "NA"], name="cell")).to_parquet(path)
    frame = read_frame(path, index_column="cell", numeric_columns=True)
    assert frame.index.tolist() == ["007", "NA"] and frame["a"].tolist() == [1.0, 2.0]
