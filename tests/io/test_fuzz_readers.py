"""Fuzzing the one reader of tables and every from_frame built on it: a result, or a paucity error and nothing else."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import PaucityError
from paucity.clustering import read_similarities, similarities_from_frame
from paucity.crowd import LabelMatrix
from paucity.io import read_frame
from paucity.judgments import Judgments
from paucity.ranking import Choices, Comparisons, Rankings

CELLS = st.sampled_from(["", "a", "b", "c", "007", "NA", "nan", "1", "0", "0.5", "-2", "1e308", "inf", "True", "'=x",
                         '"q,uoted"', "x y"])
NAMES = st.sampled_from(["i", "j", "value", "a", "", "id", "i"])
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _table(header, rows, sep=","):
    return sep.join(header) + "\n" + "".join(sep.join(row) + "\n" for row in rows)


def _only_paucity_errors(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # oddities may warn; only the errors are checked here
        try:
            return call()
        except PaucityError as error:
            message = str(error)
            assert message and "\n" not in message, message
            return None


@FUZZ
@given(header=st.lists(NAMES, min_size=1, max_size=4),
       rows=st.lists(st.lists(CELLS, min_size=0, max_size=5), min_size=0, max_size=6),
       ending=st.sampled_from([".csv", ".tsv", ".txt"]),
       text=st.lists(NAMES, max_size=3), index=st.one_of(st.none(), NAMES),
       numeric=st.one_of(st.booleans(), st.lists(NAMES, max_size=2)), finite=st.booleans())
def test_read_frame_with_any_options_reads_or_raises_a_paucity_error(tmp_path, header, rows, ending, text, index,
                                                                      numeric, finite):
    path = tmp_path / f"t{ending}"
    path.write_text(_table(header, rows, "," if ending == ".csv" else "\t"))
    frame = _only_paucity_errors(lambda: read_frame(path, text_columns=text, index_column=index,
                                                    numeric_columns=numeric, finite=finite))
    if frame is not None and index is not None:
        assert frame.index.name == index and not frame.index.isna().any()


FRAMES = st.lists(st.tuples(st.sampled_from(["a", "b", "c", None, "007", 1]),
                            st.sampled_from(["a", "b", "c", None, 2.5]),
                            st.sampled_from([0, 1, 0.5, 2, None, "x", "a", "b", True])),
                  min_size=0, max_size=8)


@FUZZ
@given(rows=FRAMES, outcome=st.sampled_from(["y", "winner"]), tie=st.booleans(), weights=st.booleans())
def test_comparisons_from_frame_builds_or_raises_a_paucity_error(rows, outcome, tie, weights):
    df = pd.DataFrame(rows, columns=["i", "j", "v"])
    df["w"] = [row[2] for row in rows]
    kwargs = {outcome: "v", "tie": "w" if tie else None, "weights": "w" if weights else None}
    _only_paucity_errors(lambda: Comparisons.from_frame(df, i="i", j="j", **kwargs))


@FUZZ
@given(rows=FRAMES, kind=st.sampled_from(["rankings", "choices"]))
def test_rankings_and_choices_from_frame_build_or_raise_a_paucity_error(rows, kind):
    df = pd.DataFrame(rows, columns=["observation", "item", "position"])
    if kind == "rankings":
        _only_paucity_errors(lambda: Rankings.from_frame(df))
    else:
        _only_paucity_errors(lambda: Choices.from_frame(df.rename(columns={"position": "chosen"})))


@FUZZ
@given(rows=FRAMES, positive=st.sampled_from([None, "a", 1, "zz"]),
       gold=st.sampled_from([None, "series", "frame"]), researcher=st.sampled_from([None, "R", "a"]))
def test_label_matrix_from_frame_builds_or_raises_a_paucity_error(rows, positive, gold, researcher):
    df = pd.DataFrame(rows, columns=["task", "labeler", "label"])
    gold_labels = {None: None, "series": pd.Series(["a"], index=["t"]),
                   "frame": pd.DataFrame({"task": ["t", None], "label": ["a", "b"]})}[gold]
    _only_paucity_errors(lambda: LabelMatrix.from_frame(df, positive=positive, gold=gold_labels,
                                                        researcher=researcher))


@FUZZ
@given(rows=FRAMES, value=st.sampled_from(["value", "missing"]))
def test_judgments_from_frame_builds_or_raises_a_paucity_error(rows, value):
    df = pd.DataFrame(rows, columns=["object", "attribute", "value"])
    _only_paucity_errors(lambda: Judgments.from_frame(df, value=value))


@FUZZ
@given(rows=FRAMES, named=st.booleans(), square=st.booleans())
def test_similarities_from_frame_builds_or_raises_a_paucity_error(rows, named, square):
    df = pd.DataFrame(rows, columns=["i", "j", "value"])
    if square:
        names = [str(row[0]) for row in rows[:3]]
        frame = pd.DataFrame([[row[2]] * len(names) for row in rows[: len(names)]], index=names, columns=names)
        _only_paucity_errors(lambda: similarities_from_frame(frame))
    else:
        _only_paucity_errors(lambda: similarities_from_frame(df, value="value" if named else None))


@FUZZ
@given(header=st.lists(NAMES, min_size=1, max_size=4),
       rows=st.lists(st.lists(CELLS, min_size=1, max_size=5), min_size=0, max_size=5),
       columns=st.sampled_from([{}, {"i_column": "a"}, {"value_column": "id"}]))
def test_read_similarities_reads_any_table_or_raises_a_paucity_error(tmp_path, header, rows, columns):
    path = tmp_path / "W.csv"
    path.write_text(_table(header, rows))
    _only_paucity_errors(lambda: read_similarities(path, **columns))


def test_the_fuzzers_can_fail():
    """The check itself: an error that is not paucity's escapes."""
    with pytest.raises(ZeroDivisionError):
        _only_paucity_errors(lambda: 1 / 0)
