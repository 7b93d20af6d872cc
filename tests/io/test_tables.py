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


# -- columns by position, the header alone, and rows longer than the header -----------------------------------------
from paucity._errors import LongRowError  # noqa: E402
from paucity.io import read_header  # noqa: E402


def _ids_table(path):
    """A table whose first column holds ids that look like numbers, written in the format its name says."""
    frame = pd.DataFrame({"whatever": ["007", "NA", "010"], "text": ["01", "02", "03"], "score": [1.5, 2.0, 3.0]})
    if path.name.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, sep="\t" if ".tsv" in path.name else ",", index=False)
    return frame


@pytest.mark.parametrize("name", ["t.csv", "t.tsv.gz", "t.parquet"])
def test_text_columns_may_be_given_by_position(tmp_path, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = tmp_path / name
    _ids_table(path)
    frame = read_frame(path, text_columns=[0, "absent", 7])  # the first column, whatever its name
    assert frame.columns.tolist() == ["whatever", "text", "score"]
    assert frame["whatever"].tolist() == ["007", "NA", "010"]
    assert frame["score"].tolist() == [1.5, 2.0, 3.0]
    last = read_frame(path, text_columns=[0, -2], numeric_columns=True)  # -1 the last column, -2 the one before
    assert last["text"].tolist() == ["01", "02", "03"] and last["whatever"].tolist() == ["007", "NA", "010"]
    assert last["score"].dtype == np.float64  # numeric_columns=True: every column not read as text
    if not name.endswith(".parquet"):  # a delimited table: a column not named as text is parsed as pandas does
        assert frame["text"].tolist() == [1, 2, 3]
        assert read_frame(path, text_columns=[True])["whatever"].tolist()[0] == 7  # a boolean is no position


@pytest.mark.parametrize("name", ["t.csv", "t.tsv.gz", "t.parquet"])
def test_read_header_names_the_columns_as_read_frame_does(tmp_path, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = tmp_path / name
    frame = pd.DataFrame({"=formula": ["a", "b"], "x": [1.0, 2.0]}, index=pd.Index(["r1", "r2"], name=None))
    if name.endswith(".parquet"):
        frame.to_parquet(path)
    else:
        from paucity.io import write_csv

        write_csv(frame, path, sep="\t" if name.endswith(".tsv.gz") else ",")
    header = read_header(path)
    assert header == read_frame(path).columns.tolist()
    if name.endswith(".parquet"):
        assert header == ["index", "=formula", "x"]  # the stored index is a column, first
    else:
        assert header == ["Unnamed: 0", "=formula", "x"]  # the formula quote removed, the empty field named


def test_read_header_reads_a_stored_index_by_its_name_and_a_range_index_not_at_all(tmp_path):
    pytest.importorskip("pyarrow")
    named = tmp_path / "named.parquet"
    pd.DataFrame({"a": [1.0]}, index=pd.Index(["007"], name="cell")).to_parquet(named)
    assert read_header(named) == ["cell", "a"] == read_frame(named).columns.tolist()
    plain = tmp_path / "plain.parquet"
    pd.DataFrame({"a": [1.0], "b": ["x"]}).to_parquet(plain)
    assert read_header(plain) == ["a", "b"] == read_frame(plain).columns.tolist()


def test_read_header_reads_the_header_alone(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2,3,4\nnot,a,table,at,all\n")  # read_frame refuses the rows; the header is fine
    assert read_header(path) == ["a", "b"]
    header_only = tmp_path / "h.csv"
    header_only.write_text("a,b\n")
    assert read_header(header_only) == ["a", "b"]


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("absent.csv", None, ["does not exist"]),
        ("empty.csv", "", ["is empty"]),
        ("t.xlsx", "a,b\n", ["unknown extension"]),
        ("twice.csv", "a,a\n1,2\n", ["two columns named 'a'"]),
        ("garbage.parquet", "not a parquet file\n", ["could not read", "as a parquet file"]),
    ],
)
def test_read_header_refuses_what_read_frame_refuses(tmp_path, name, text, words):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    for read in (read_header, read_frame):
        with pytest.raises(ReaderError) as caught:
            read(path)
        for word in words:
            assert word in str(caught.value)


@pytest.mark.parametrize(
    ("name", "text", "row", "width", "header_width"),
    [
        ("t.csv", "a,b\n1,2,3\n4,5\n", 1, 3, 2),
        ("t.csv", "a,b\n1,2\n4,5,6,7\n", 2, 4, 2),  # two fields more than the header
        ("t.csv", "a,b\n1,2\n\n4,5,\n", 2, 3, 2),  # a blank line is not a row; an empty field is a field
        ("t.csv", 'a,b\n"1,2",3\n4,"5,6",7\n', 2, 3, 2),  # a quoted separator is no separator
        ("t.tsv", "\ta\tb\n\nx\t1\t0.5\t0.2\n", 1, 4, 3),
        ("t.txt", "x a b\na 1 0.5\nb 0.5 1 0.3 0.1\n", 2, 5, 3),
    ],
)
def test_a_row_longer_than_the_header_is_a_long_row_error_saying_where(tmp_path, name, text, row, width,
                                                                       header_width):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(LongRowError) as caught:
        read_frame(path)
    error = caught.value
    assert isinstance(error, ReaderError)
    assert (error.row, error.width, error.header_width, error.path) == (row, width, header_width, str(path))
    assert str(error) == (
        f"{path} has a row longer than its header: data row {row} has more than the header's {header_width} "
        "field(s). Name every column in the header (the first line), or remove the extra fields (check the "
        "separator: ',' for .csv, tab for .tsv)."
    )
