"""Spreadsheet formula cells in the CSVs paucity writes: neutralized by write_csv and csv_text, undone by read_frame.

The cases are written out by hand from the rule (OWASP, "CSV injection"): a text cell starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return gets a leading ``'``; numbers are never touched.
"""

from __future__ import annotations

import csv
import io as stdio

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import ReaderError
from paucity.clustering import read_similarities
from paucity.io import csv_text, neutralize_formulas, read_frame, write_csv
from paucity.io.files import FORMULA_STARTS, restore_formulas

STARTS = ["=", "+", "-", "@", "\t", "\r"]


def cells(text: str, delimiter: str = ",") -> list[list[str]]:
    """The fields of a CSV text, as a spreadsheet or the csv module reads them."""
    return list(csv.reader(stdio.StringIO(text, newline=""), delimiter=delimiter))


def file_text(path) -> str:
    """A file's text with its line endings as written."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def test_the_six_formula_characters_are_the_rules():
    assert sorted(FORMULA_STARTS) == sorted(STARTS)


@pytest.mark.parametrize("start", STARTS)
def test_each_formula_character_gets_a_leading_quote(start):
    frame = pd.DataFrame({"item": [f"{start}1+2", f"a{start}b", start]})
    assert neutralize_formulas(frame)["item"].tolist() == [f"'{start}1+2", f"a{start}b", f"'{start}"]
    assert [row[0] for row in cells(csv_text(frame, index=False))] == ["item", f"'{start}1+2", f"a{start}b",
                                                                      f"'{start}"]


def test_the_frame_given_is_not_changed():
    frame = pd.DataFrame({"item": ["=a"]}, index=["-i"])
    neutralize_formulas(frame)
    assert frame["item"].tolist() == ["=a"] and frame.index.tolist() == ["-i"]


def test_other_text_is_left_as_it_is():
    texts = ["a", "", " =a", "'=a", "'x", "1-2", "CD3E", "#N/A", "\n=a", "−a"]  # '−' is not a minus sign
    frame = pd.DataFrame({"item": texts})
    assert neutralize_formulas(frame)["item"].tolist() == texts


def test_numbers_with_a_minus_sign_are_not_touched():
    frame = pd.DataFrame({"score": [-0.5, 1e-3, -np.inf, np.nan], "rank": [-1, 2, 3, -4],
                          "kept": [True, False, True, False], "small": np.array([-1, 0, 1, 2], dtype=np.int8)})
    result = neutralize_formulas(frame)
    pd.testing.assert_frame_equal(result, frame)
    assert csv_text(frame, index=False).splitlines()[1:] == ["-0.5,-1,True,-1", "0.001,2,False,0",
                                                            "-inf,3,True,1", ",-4,False,2"]


def test_text_cells_among_numbers_in_an_object_column():
    frame = pd.DataFrame({"note": [-0.5, "-0.5", None, "=1", 3]}, dtype=object)
    assert neutralize_formulas(frame)["note"].tolist() == [-0.5, "'-0.5", None, "'=1", 3]
    assert [row[0] for row in cells(csv_text(frame, index=False))] == ["note", "-0.5", "'-0.5", "", "'=1", "3"]


def test_an_index_and_a_header_with_formula_names():
    frame = pd.DataFrame([[1.0, -2.0]], index=pd.Index(['=HYPERLINK("http://x","y")'], name="@who"),
                         columns=["-a", "b"])
    assert cells(csv_text(frame)) == [["'@who", "'-a", "b"], ["'=HYPERLINK(\"http://x\",\"y\")", "1.0", "-2.0"]]
    result = neutralize_formulas(frame)
    assert result.index.tolist() == ["'=HYPERLINK(\"http://x\",\"y\")"] and result.index.name == "'@who"
    assert result.columns.tolist() == ["'-a", "b"]


def test_a_number_index_and_header_are_not_touched():
    frame = pd.DataFrame([[1.0, 2.0]], index=[-3], columns=[-1, 0])
    assert cells(csv_text(frame)) == [["", "-1", "0"], ["-3", "1.0", "2.0"]]


def test_a_multi_index_is_neutralized_level_by_level():
    frame = pd.DataFrame({"v": [1.0, 2.0]}, index=pd.MultiIndex.from_tuples([("=a", -1), ("b", 2)], names=["+k", "n"]))
    assert cells(csv_text(frame)) == [["'+k", "n", "v"], ["'=a", "-1", "1.0"], ["b", "2", "2.0"]]


def test_string_dtype_columns_keep_their_dtype():
    frame = pd.DataFrame({"item": pd.array(["-a", "b", None], dtype="string")})
    result = neutralize_formulas(frame)
    assert result["item"].dtype == frame["item"].dtype
    assert result["item"].tolist()[:2] == ["'-a", "b"] and pd.isna(result["item"].iloc[2])


def test_categorical_columns():
    frame = pd.DataFrame({"label": pd.Categorical(["=a", "b", "=a", "@c"], categories=["b", "=a", "@c", "unused"]),
                          "level": pd.Categorical([-1, 2, -1, 3])})
    result = neutralize_formulas(frame)
    assert result["label"].tolist() == ["'=a", "b", "'=a", "'@c"]
    assert result["label"].cat.categories.tolist() == ["b", "'=a", "'@c", "unused"]  # order and unused kept
    assert result["level"].tolist() == [-1, 2, -1, 3]
    assert [row for row in cells(csv_text(frame, index=False))] == [
        ["label", "level"], ["'=a", "-1"], ["b", "2"], ["'=a", "-1"], ["'@c", "3"]]


def test_categories_that_would_collide_are_written_as_text():
    frame = pd.DataFrame({"label": pd.Categorical(["=a", "'=a", "b"])})
    assert neutralize_formulas(frame)["label"].tolist() == ["'=a", "'=a", "b"]


def test_a_series():
    series = pd.Series(["-a", "b"], index=["=i", "j"], name="@s")
    result = neutralize_formulas(series)
    assert result.tolist() == ["'-a", "b"] and result.index.tolist() == ["'=i", "j"] and result.name == "'@s"


def test_columns_header_and_index_label_arguments_name_the_frames_columns():
    frame = pd.DataFrame({"=a": ["-x"], "b": [1]})
    assert cells(csv_text(frame, columns=["=a"], index=False)) == [["'=a"], ["'-x"]]
    assert cells(csv_text(frame, header=["-A", "B"], index_label="+i")) == [["'+i", "'-A", "B"], ["0", "'-x", "1"]]
    assert cells(csv_text(frame, index_label=["@i"])) == [["'@i", "'=a", "b"], ["0", "'-x", "1"]]


def test_a_text_with_a_carriage_return_is_quoted():
    text = csv_text(pd.DataFrame({"item": ["\ra", "b\rc", "d"]}), index=False)
    assert text == 'item\r\n"\'\ra"\r\n"b\rc"\r\nd\r\n'
    assert csv_text(pd.DataFrame({"item": ["a"]}), index=False) == "item\na\n"  # other files keep their lines


def test_write_csv_neutralizes_and_read_frame_gives_the_names_back(tmp_path):
    names = ['=HYPERLINK("http://evil","click")', "+1", "-b", "@SUM(A1)", "\tt", "\rr", "plain", "'quoted", "00024",
             "NA"]
    frame = pd.DataFrame({"item": names, "score": np.arange(len(names)) - 4.5})  # exact in decimal
    for name, sep in (("t.csv", ","), ("t.tsv", "\t"), ("t.csv.gz", ",")):
        path = tmp_path / name
        write_csv(frame, path, index=False, sep=sep)
        read = read_frame(path, text_columns=["item"])
        assert read["item"].tolist() == names
        np.testing.assert_array_equal(read["score"], frame["score"])
    written = [row[0] for row in cells(file_text(tmp_path / "t.csv"))][1:]
    assert written == ["'" + name if name[0] in STARTS else name for name in names]


def test_read_frame_gives_back_a_formula_header_and_leaves_other_columns_as_read(tmp_path):
    path = tmp_path / "t.csv"
    write_csv(pd.DataFrame({"=i": ["-a"], "other": ["-b"]}), path, index=False)
    assert path.read_text() == "'=i,other\n'-a,'-b\n"
    read = read_frame(path, text_columns=["=i"])
    assert read.columns.tolist() == ["=i", "other"]
    assert read["=i"].tolist() == ["-a"]
    assert read["other"].tolist() == ["'-b"]  # not read as text: as pandas reads it


def test_a_name_that_really_starts_with_a_quote_and_a_formula_character_loses_its_quote(tmp_path):
    """The one ambiguity, documented: "'=a" is written as it is and read back as "=a"."""
    path = tmp_path / "t.csv"
    write_csv(pd.DataFrame({"item": ["'=a", "'a"]}), path, index=False)
    assert path.read_text() == "item\n'=a\n'a\n"
    assert read_frame(path, text_columns=["item"])["item"].tolist() == ["=a", "'a"]


def test_a_header_made_ambiguous_by_a_quote_is_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("=a,'=a\n1,2\n")
    with pytest.raises(ReaderError, match="two columns named '=a'"):
        read_frame(path)


def test_restore_formulas():
    values = pd.Series(["'=a", "'+b", "'-c", "'@d", "'\te", "'\rf", "'", "''=g", "'h", None, 3])
    assert restore_formulas(values).tolist() == ["=a", "+b", "-c", "@d", "\te", "\rf", "'", "''=g", "'h", None, 3]
    assert restore_formulas(["'-x"]).tolist() == ["-x"]


def test_the_square_matrix_reader_gives_back_formula_names(tmp_path):
    names = ["=a", "-b", "+c", "@d", "plain"]
    W = np.eye(5) + 0.25 * (1 - np.eye(5))
    path = tmp_path / "square.csv"
    write_csv(pd.DataFrame(W, index=names, columns=names), path)
    assert path.read_text().splitlines()[0] == ",'=a,'-b,'+c,'@d,plain"
    matrix = read_similarities(path)
    assert matrix.index.tolist() == names and matrix.columns.tolist() == names
    np.testing.assert_array_equal(matrix.to_numpy(), W)
    long = tmp_path / "long.csv"
    write_csv(pd.DataFrame({"i": names[:-1], "j": names[1:], "value": 0.5}), long, index=False)
    assert read_similarities(long).index.tolist() == names


def test_the_folds_of_the_marker_benchmark_give_back_formula_names(tmp_path):
    from paucity.markers.benchmark import Folds, make_folds

    samples = ["-1", "=2", "a", "b", "c", "d"]
    folds = make_folds(["x", "y"] * 3, n_folds=3, random_state=0)
    folds = Folds(fold_of=folds.fold_of, n_folds=3, samples=np.array(samples))
    path = tmp_path / "folds.csv"
    folds.save(path)
    assert path.read_text().splitlines()[1].startswith("'-1,")
    assert Folds.load(path, samples=samples).fold_of.tolist() == folds.fold_of.tolist()


# --- any names ----------------------------------------------------------------------------------------------------

NAMES = st.text(
    alphabet=st.one_of(st.sampled_from(STARTS + ["'", '"', ",", "\n", " ", "a", "0", "é"]),
                       st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")),
    min_size=1, max_size=12,
).filter(lambda name: not (name.startswith("'") and name[1:2] in STARTS))  # the one ambiguity, tested above


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAMES, min_size=1, max_size=8), ending=st.sampled_from([".csv", ".tsv"]))
def test_any_names_round_trip_and_no_written_text_cell_starts_a_formula(tmp_path, names, ending):
    frame = pd.DataFrame({"item": names, "score": np.arange(len(names)) - 3.5})
    path = tmp_path / f"names{ending}"
    write_csv(frame, path, index=False, sep="\t" if ending == ".tsv" else ",")
    read = read_frame(path, text_columns=["item"])
    assert read["item"].tolist() == names
    np.testing.assert_array_equal(read["score"], frame["score"])
    rows = cells(file_text(path), "\t" if ending == ".tsv" else ",")
    assert [row[0] for row in rows[1:]] == [("'" if name[0] in STARTS else "") + name for name in names]
    assert not any(row[0].startswith(tuple(STARTS)) for row in rows[1:])
