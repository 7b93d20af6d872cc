"""Reading the clustering tables: similarity matrices (square and long), item lists, answers and pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest  # noqa: F401
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import (
    InputError,
    ParameterError,
    PaucityError,
    ReaderError,
    ShapeMismatchError,
)
from paucity.clustering import read_answers, read_items, read_pairs, read_similarities, similarities_from_frame


def similarities(n=12, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [shift, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


NAMES = ["00024", "NA", "3", "00003", "null", "b", "c", "d", "e", "f", "g", "h"]


# -- reading a complete matrix -------------------------------------------------------------------------------------
def test_a_square_csv_as_pandas_writes_it_keeps_names_as_text(tmp_path):
    W = similarities()
    frame = pd.DataFrame(W, index=NAMES, columns=NAMES)
    frame.to_csv(tmp_path / "W.csv")  # the header's first field is empty
    read = read_similarities(tmp_path / "W.csv")
    assert list(read.index) == NAMES and list(read.columns) == NAMES
    np.testing.assert_array_equal(read.to_numpy(), W)


def test_square_tables_of_every_format_read_alike(tmp_path):
    W = similarities()
    frame = pd.DataFrame(W, index=pd.Index(NAMES, name="item"), columns=NAMES)
    frame.to_csv(tmp_path / "W.tsv", sep="\t")
    frame.to_csv(tmp_path / "W.txt", sep=" ")
    frame.to_parquet(tmp_path / "W.parquet")
    frame.iloc[:, ::-1].to_csv(tmp_path / "shuffled.csv")  # columns in another order
    for name in ("W.tsv", "W.txt", "W.parquet", "shuffled.csv"):
        read = read_similarities(tmp_path / name)
        assert list(read.index) == NAMES, name
        np.testing.assert_array_equal(read.loc[NAMES, NAMES].to_numpy(), W)


def test_a_long_table_in_either_order_makes_the_same_matrix(tmp_path):
    W = similarities(n=6)
    names = NAMES[:6]
    rows = [(names[i], names[j], W[i, j]) if (i + j) % 2 else (names[j], names[i], W[i, j])
            for i in range(6) for j in range(i + 1, 6)]
    pd.DataFrame(rows, columns=["left", "right", "sim"]).to_csv(tmp_path / "pairs.csv", index=False)
    read = read_similarities(tmp_path / "pairs.csv", i_column="left", j_column="right", value_column="sim")
    order = [names.index(name) for name in read.index]
    np.testing.assert_allclose(read.to_numpy()[np.ix_(range(6), range(6))][~np.eye(6, dtype=bool)],
                               W[np.ix_(order, order)][~np.eye(6, dtype=bool)])
    both = pd.DataFrame(rows + [(b, a, v) for a, b, v in rows], columns=["i", "j", "value"])
    both.to_csv(tmp_path / "both.csv", index=False)  # both orders, agreeing: accepted, default columns
    pd.testing.assert_frame_equal(read_similarities(tmp_path / "both.csv").loc[read.index, read.index], read,
                                  check_names=False)


@pytest.mark.parametrize(
    "text, error, words",
    [
        (",a,b,c\na,1,0.5,0.2\nb,0.5,1,0.1\n", ShapeMismatchError, ["not a square matrix", "2 rows and 3 columns"]),
        (",a,b,c\na,1,0.5,0.2\nb,0.5,1,0.1\nd,0.2,0.1,1\n", InputError, ["row 'd'"]),
        (",a,b,c\na,1,0.5,x\nb,0.5,1,0.1\nc,0.2,0.1,1\n", InputError, ["'x'", "row 'a', column 'c'"]),
        (",a,b,a\na,1,0.5,0.2\nb,0.5,1,0.1\na,0.2,0.1,1\n", ReaderError, ["two columns named 'a'"]),
        ("a,b,c\n1,0.5,0.2\n", ShapeMismatchError, ["not a square matrix"]),
        ("i,j,value\na,b,0.5\nb,a,0.4\nb,c,0.1\n", InputError, ["not symmetric", "('b', 'a') is 0.4"]),
        ("i,j,value\na,b,0.5\na,b,0.5\nb,c,0.1\n", InputError, ["twice", "rows 1 and 2"]),
        ("i,j,value\na,b,yes\n", InputError, ["'yes'", "column 'value', data row 1"]),
        ("i,j,value\na,,0.5\n", InputError, ["no item name in column 'j'"]),
        ("i,j,value\na,b,0.5\nb,b,1.0\nb,c,0.1\n", InputError, ["pairs 'b' with itself in data row 2"]),
        ("i,j,sim\na,b,0.5\nb,c,0.1\n", InputError, ["no column 'value'", "with value=, one of 'sim'"]),
    ],
)
def test_malformed_tables_are_refused(tmp_path, text, error, words):
    path = tmp_path / "W.csv"
    path.write_text(text)
    with pytest.raises(error) as caught:
        read_similarities(path)
    for word in words:
        assert word in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "name, text, row, fields, header",
    [
        ("W.csv", ",a,b\na,1,0.5\nb,0.5,1,0.3\n", 2, 4, 3),
        ("W.csv", "a,b\na,1,0.5\nb,0.5,1\n", 1, 3, 2),  # the header has no field for the names' column
        ("W.tsv", "\ta\tb\n\na\t1\t0.5\t0.2\nb\t0.5\t1\n", 1, 4, 3),  # a blank line is not a row
        ("W.txt", "x a b\na 1 0.5\nb 0.5 1 0.3 0.1\n", 2, 5, 3),
    ],
)
def test_a_square_row_longer_than_its_header_is_named_as_a_square_matrix_fault(tmp_path, name, text, row, fields,
                                                                                header):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ReaderError) as caught:
        read_similarities(path)
    message = str(caught.value)
    assert "\n" not in message
    assert f"is a square similarity matrix, but its data row {row} has {fields} fields and its header has {header}" \
        in message
    assert "the header must list every item name once" in message


def test_long_columns_are_named_as_from_frame_names_them_or_by_their_older_spelling(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("left,right,sim\na,b,0.5\nb,c,0.1\n")
    read = read_similarities(path, i="left", j="right", value="sim")
    assert read.loc["a", "b"] == 0.5 and read.loc["c", "b"] == 0.1
    pd.testing.assert_frame_equal(read, read_similarities(path, i_column="left", j_column="right", value_column="sim"))
    pd.testing.assert_frame_equal(read, read_similarities(path, i="left", j_column="right", value="sim"))
    pd.testing.assert_frame_equal(read, similarities_from_frame(pd.read_csv(path), i="left", j="right", value="sim"))


@pytest.mark.parametrize("role", ["i", "j", "value"])
def test_both_spellings_of_one_column_are_refused(tmp_path, role):
    path = tmp_path / "pairs.csv"
    path.write_text("i,j,value\na,b,0.5\n")
    with pytest.raises(ParameterError) as caught:
        read_similarities(path, **{role: "x", f"{role}_column": "x"})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"read_similarities: {role}='x' and {role}_column='x' both name the {role} column")
    assert f"give one ({role}_column is the older spelling of {role})" in message
    with pytest.raises(ParameterError, match=f"{role} must be a string"):
        read_similarities(path, **{role: 3})


def test_a_named_column_must_exist(tmp_path):
    path = tmp_path / "W.csv"
    path.write_text("i,j,value\na,b,0.5\n")
    with pytest.raises(InputError, match="no column 'sim' \\(the value column"):
        read_similarities(path, value_column="sim")


def test_reading_items_and_answers(tmp_path):
    (tmp_path / "items.csv").write_text("photo,room\n00024,kitchen\nNA,hall\n3,hall\n")
    assert read_items(tmp_path / "items.csv") == ["00024", "NA", "3"]
    assert read_items(tmp_path / "items.csv", item_column="room") == ["kitchen", "hall", "hall"]
    with pytest.raises(InputError, match="no column 'name'"):
        read_items(tmp_path / "items.csv", item_column="name")
    (tmp_path / "a.tsv").write_text("left\tright\tsim\n00024\tNA\t0.5\nNA\t3\t\n")
    answers = read_answers(tmp_path / "a.tsv", i_column="left", j_column="right", value_column="sim")
    assert answers["i"].tolist() == ["00024", "NA"] and np.isnan(answers["value"].iloc[1])
    (tmp_path / "bad.csv").write_text("i,j,value\na,b,0.5\nc,,0.5\n")
    with pytest.raises(InputError, match="data row 2 but names no item in column 'j'"):
        read_answers(tmp_path / "bad.csv")


def test_reading_pairs(tmp_path):
    (tmp_path / "p.tsv").write_text("left\tright\tvalue\n00024\tNA\t\nNA\t3\t0.5\n")
    pairs = read_pairs(tmp_path / "p.tsv", i_column="left", j_column="right")
    assert pairs.columns.tolist() == ["i", "j"] and pairs.index.tolist() == [1, 2] and pairs.index.name == "row"
    assert pairs["i"].tolist() == ["00024", "NA"] and pairs["j"].tolist() == ["NA", "3"]
    (tmp_path / "bad.csv").write_text("i,j\na,b\nc,\n")
    with pytest.raises(InputError, match="no item name in column 'j', data row 2; name both items"):
        read_pairs(tmp_path / "bad.csv")
    with pytest.raises(InputError, match="no column 'i' \\(the i column, i_column=\\)"):
        read_pairs(tmp_path / "p.tsv")
    (tmp_path / "header.csv").write_text("i,j\n")
    with pytest.raises(ReaderError, match="a header but no rows"):
        read_pairs(tmp_path / "header.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ReaderError, match="is empty"):
        read_pairs(tmp_path / "empty.csv")
    with pytest.raises(ParameterError, match="i_column"):
        read_pairs(tmp_path / "p.tsv", i_column=3)


def test_an_answer_is_a_number_or_empty_and_nan_text_is_refused(tmp_path):
    """Empty and NA mean "not answered yet", as the docs say; any other text (nan, none, ?) is refused by row."""
    (tmp_path / "a.csv").write_text("i,j,value\na,b,0.5\nb,c,\nc,d,NA\nd,e, 1 \n")
    answers = read_answers(tmp_path / "a.csv")
    assert answers["value"].tolist()[0] == 0.5 and answers["value"].tolist()[3] == 1.0
    assert np.isnan(answers["value"].iloc[1]) and np.isnan(answers["value"].iloc[2])
    for text in ("nan", "NaN", "none", "?", "0.5.1"):
        (tmp_path / "bad.csv").write_text(f"i,j,value\na,b,0.5\nb,c,{text}\n")
        with pytest.raises(InputError) as caught:
            read_answers(tmp_path / "bad.csv")
        assert f"has {text!r} in column 'value', data row 2; a similarity is a number" in str(caught.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "00", "NA", ""]), st.sampled_from(["a", "b", "c", "00", ""]),
                               st.sampled_from(["0.5", "1", "", "x", "0.25"])), min_size=1, max_size=8),
       value=st.sampled_from(["value", "sim"]))
def test_fuzzed_long_tables_read_or_raise_a_paucity_error(tmp_path, rows, value):
    """Any small long table: a square matrix with no self-pair behind it, or a paucity error naming what is wrong."""
    path = tmp_path / "pairs.csv"
    path.write_text(f"i,j,{value}\n" + "".join(f"{i},{j},{v}\n" for i, j, v in rows))
    try:
        matrix = read_similarities(path)
    except PaucityError as error:
        if value != "value":
            assert "value=" in str(error)
        elif any(i == j and i != "" for i, j, _ in rows) and all(i and j for i, j, _ in rows):
            assert "with itself" in str(error) or "'x'" in str(error) or "twice" in str(error) \
                or "not symmetric" in str(error)
        return
    assert value == "value" and all(i != j for i, j, _ in rows)
    assert list(matrix.index) == list(matrix.columns) and (np.diag(matrix.to_numpy()) == 1).all()


def test_similarities_from_frame_reads_both_layouts_as_the_file_reader_does(tmp_path):
    from paucity.clustering import similarities_from_frame

    pairs = pd.DataFrame({"left": ["007", "007", "NA"], "right": ["NA", "b", "b"], "sim": [0.9, 0.1, 0.2]})
    square = similarities_from_frame(pairs, i="left", j="right", value="sim")
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    pd.testing.assert_frame_equal(square, read_similarities(tmp_path / "pairs.csv", i_column="left", j_column="right",
                                                            value_column="sim"))
    again = similarities_from_frame(square.iloc[::-1, :])  # a square frame: index and columns name the items
    pd.testing.assert_frame_equal(again, square.iloc[::-1, ::-1])
    with pytest.raises(InputError, match="the table pairs 'b' with itself in data row 2"):
        similarities_from_frame(pd.DataFrame({"i": ["a", "b"], "j": ["b", "b"], "value": [0.5, 1.0]}))
    with pytest.raises(InputError, match="no column 'value'"):
        similarities_from_frame(pd.DataFrame({"i": ["a"], "j": ["b"]}), i="i")
    with pytest.raises(ShapeMismatchError, match="not a square matrix"):
        similarities_from_frame(pd.DataFrame({"a": [1.0]}, index=["a", ][:1]).assign(b=0.5))


def test_a_square_table_with_a_row_longer_than_its_header_is_refused_naming_it(tmp_path):
    path = tmp_path / "W.csv"
    path.write_text("a,b\na,1,0.5\nb,0.5,1\n")
    with pytest.raises(ReaderError, match="square similarity matrix, but its data row 1 has 3 fields and its header has 2"):
        read_similarities(path)
