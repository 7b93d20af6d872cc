"""Judgments: the long-format holder, its ragged view, means and variances, and its errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, InputTypeError, PaucityError, ReaderError
from paucity.judgments import Judgments


def frame(rows):
    return pd.DataFrame(rows, columns=["object", "attribute", "value"])


ROWS = [
    ("o2", "tall", 1), ("o1", "tall", 0), ("o1", "tall", 1), ("o1", "fat", 0.5),
    ("o2", "tall", 0), ("o2", "tall", 1), ("o1", "fat", 1.5), ("o2", "fat", 3.0), ("o2", "fat", 5.0),
]


def test_counts_ragged_and_arrival_order():
    judgments = Judgments(frame(ROWS))
    assert judgments.objects.tolist() == ["o1", "o2"]
    assert judgments.attributes.tolist() == ["fat", "tall"]
    assert judgments.counts.to_dict() == {"fat": {"o1": 2, "o2": 2}, "tall": {"o1": 2, "o2": 3}}
    tall = judgments.ragged("tall")
    assert tall["o2"].tolist() == [1.0, 0.0, 1.0]  # in the order given
    assert tall["o1"].tolist() == [0.0, 1.0]
    assert tall.counts.tolist() == [2, 3] and tall.offsets.tolist() == [0, 2, 5]
    assert len(judgments) == 9


def test_means_use_every_judgment_or_the_first_r():
    judgments = Judgments(frame(ROWS))
    means = judgments.means()
    assert means.loc["o2", "tall"] == pytest.approx(2 / 3)  # no padding: three judgments, mean of three
    assert means.loc["o1", "fat"] == 1.0
    first = judgments.means({"tall": 1, "fat": 2})
    assert first.loc["o2", "tall"] == 1.0 and first.loc["o1", "tall"] == 0.0
    assert first.loc["o2", "fat"] == 4.0
    none = judgments.means({"tall": 2})  # fat not used: 0, as the seed's x̄[a] for r[a] = 0
    assert none["fat"].tolist() == [0.0, 0.0]
    with pytest.raises(InputError, match="object 'o1' has 2 judgment.*'tall' but 3"):
        judgments.means({"tall": 3})


def test_variances_are_unbiased_per_object():
    judgments = Judgments(frame(ROWS))
    variances = judgments.variances()
    assert variances.loc["o2", "tall"] == pytest.approx(np.var([1, 0, 1], ddof=1))
    assert variances.loc["o2", "fat"] == pytest.approx(2.0)  # (3, 5): ((−1)² + 1²)/1
    single = Judgments(frame([("a", "x", 1.0), ("b", "x", 2.0), ("b", "x", 4.0)])).variances()
    assert np.isnan(single.loc["a", "x"]) and single.loc["b", "x"] == 2.0


def test_an_object_without_judgments_of_an_attribute_has_no_mean():
    judgments = Judgments(frame([("a", "x", 1.0), ("b", "y", 2.0)]))
    assert judgments.counts.loc["a", "y"] == 0
    assert np.isnan(judgments.means().loc["a", "y"])


def test_round_trip_through_a_frame_and_a_file(tmp_path):
    judgments = Judgments(frame(ROWS))
    again = Judgments(judgments.to_frame())
    pd.testing.assert_frame_equal(again.means(), judgments.means())
    path = tmp_path / "judgments.csv"
    frame(ROWS).rename(columns={"object": "photo"}).to_csv(path, index=False)
    read = Judgments.read(path, object="photo")
    pd.testing.assert_frame_equal(read.counts, judgments.counts)
    with pytest.raises(ReaderError, match="does not exist"):
        Judgments.read(tmp_path / "missing.csv")


def test_complete_names_what_is_short_or_drops_it():
    rows = ROWS + [("o3", "tall", 1.0), ("o3", "fat", 2.0), ("o3", "fat", 2.5)]
    judgments = Judgments(frame(rows))
    with pytest.raises(InputError, match=r"1 object\(s\) \(o3\) are short of attribute\(s\) tall"):
        judgments.complete()
    kept, report = judgments.complete(drop_incomplete=True)
    assert kept.objects.tolist() == ["o1", "o2"] and report.objects == ("o3",)
    assert report.n_judgments == 3 and "dropped 1 object" in str(report)
    # an attribute judged once on every object goes, not every object
    once = Judgments(frame(ROWS + [("o1", "age", 30.0), ("o2", "age", 40.0)]))
    kept, report = once.complete(drop_incomplete=True)
    assert report.attributes == ("age",) and report.objects == () and kept.attributes.tolist() == ["fat", "tall"]


@pytest.mark.parametrize(
    "data, message",
    [
        (frame([("a", "x", "tall")]), r"must hold numbers.*data row 1 holds 'tall'"),
        (frame([("a", "x", 1.0), ("a", "x", np.nan)]), "missing or infinite value at data row 2"),
        (frame([("a", "x", np.inf)]), "missing or infinite value at data row 1"),
        (frame([(None, "x", 1.0)]), "column 'object' has a missing name at data row 1"),
        (pd.DataFrame({"object": ["a"], "value": [1.0]}), r"no column 'attribute' \(the attribute column, attribute=\)"),
        (frame([]), "no rows"),
    ],
)
def test_bad_tables_get_clear_errors(data, message):
    with pytest.raises(InputError, match=message):
        Judgments(data)


def test_not_a_frame_is_refused():
    with pytest.raises(InputTypeError, match="pandas DataFrame"):
        Judgments([("a", "x", 1.0)])


cells = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3), st.none())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["a", "b", None, 1]), st.sampled_from(["x", "y", None]), cells),
                min_size=0, max_size=12))
def test_junk_tables_raise_only_paucity_errors(rows):
    try:
        judgments = Judgments(frame(rows))
    except PaucityError:
        return
    assert judgments.n_judgments == len(rows)
    means = judgments.means()
    assert means.shape == (len(judgments.objects), len(judgments.attributes))
    try:
        judgments.complete()
    except PaucityError:
        pass


def test_from_frame_is_the_constructor_from_a_table():
    frame = pd.DataFrame({"photo": ["007", "007", "NA"], "question": ["tall"] * 3, "answer": [1, 0, 1]})
    built = Judgments.from_frame(frame, object="photo", attribute="question", value="answer")
    assert built.to_frame().equals(Judgments(frame, object="photo", attribute="question", value="answer").to_frame())
    with pytest.raises(InputError, match="data row 2"):
        Judgments.from_frame(frame.assign(answer=[1, "x", 0]), object="photo", attribute="question", value="answer")
