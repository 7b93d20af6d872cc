"""Draws (y = 0.5) held by Comparisons: the readers, BTL(ties=...) on them, and the one refusal everywhere else."""

from __future__ import annotations

import re
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, PaucityError
from paucity.ranking import BRE, BTL, URE, Comparisons, PlackettLuce, RankCentrality, RankSVM, evaluate, rank
from paucity.ranking.comparisons import require_no_ties
from paucity.ranking.counting import comparison_counts
from paucity.ranking.metrics import held_out_error
from paucity.ranking.siamese import SiameseRanker
from paucity.ranking.transitions import transition_matrix

# a small league with two draws (comparisons 2 and 5)
I = ["a", "b", "c", "a", "b", "c", "a", "b", "c", "a"]
J = ["b", "c", "a", "c", "a", "b", "b", "c", "a", "c"]
Y = [1, 0, 0.5, 1, 0, 0.5, 0, 1, 1, 0]
REFUSAL = r"cannot use draws \(y = 0\.5; comparison 2 is one\): fit BTL\(ties='davidson'\) \(or ties='rao-kupper'\)"


@pytest.fixture()
def drawn():
    return Comparisons(I, J, Y)


def test_lists_arrays_and_series_hold_draws(drawn):
    assert drawn.has_ties
    assert drawn.y.dtype == np.float64 and drawn.y.tolist() == [float(v) for v in Y]
    for y in (np.asarray(Y), pd.Series(Y), np.asarray(Y, dtype=object)):
        assert Comparisons(I, J, y).y.tolist() == drawn.y.tolist()
    assert repr(drawn) == "Comparisons(10 comparisons of 3 items, 2 draws)"
    assert drawn.to_dataframe()["y"].tolist() == drawn.y.tolist()
    decisive = drawn.subset(np.array(Y) != 0.5)
    assert not decisive.has_ties and decisive.win_counts().tolist() == [3.0, 3.0, 2.0]  # a: rows 6, 8, 9; b: 0, 1, 4; c: 3, 7
    plain = Comparisons(I, J, [1] * 10)
    assert not plain.has_ties and plain.y.dtype == np.int8  # without a draw the outcomes stay 0/1 integers


def test_from_dataframe_tie_column_ignores_the_winner_of_a_draw():
    winner = [j if y == 1 else (None if y == 0.5 else i) for i, j, y in zip(I, J, Y)]
    frame = pd.DataFrame({"home": I, "away": J, "won": winner, "draw": [y == 0.5 for y in Y]})
    expected = Comparisons(I, J, Y).y.tolist()
    assert Comparisons.from_dataframe(frame, i="home", j="away", winner="won", tie="draw").y.tolist() == expected
    # a filled-in winner on a draw row is ignored too; 0/1 integers mark the draws as well as booleans
    filled = frame.assign(won=frame["won"].fillna("a"), draw=frame["draw"].astype(int))
    assert Comparisons.from_dataframe(filled, i="home", j="away", winner="won", tie="draw").y.tolist() == expected
    # with a y column the draw row's y is ignored (NaN allowed), and y = 0.5 without a tie column is a draw too
    with_y = frame.assign(y=[np.nan if y == 0.5 else y for y in Y])
    assert Comparisons.from_dataframe(with_y, i="home", j="away", y="y", tie="draw").y.tolist() == expected
    assert Comparisons.from_dataframe(frame.assign(y=Y), i="home", j="away", y="y").y.tolist() == expected


@pytest.mark.parametrize(
    "change, match",
    [
        ({"draw": [0, 1, 2, 0, 0, 0, 0, 0, 0, 0]}, r"column 'draw' \(given as tie=\) must hold booleans or 0/1 \(1 for a draw\); data row 3 has 2"),
        ({"draw": ["no"] * 10}, r"must hold booleans or 0/1 \(1 for a draw\); data row 1 has 'no'"),
        ({"draw": ["0", "1", "0", "maybe"] + ["0"] * 6}, r"booleans or 0/1 \(1 for a draw\); data row 4 has 'maybe'"),
        ({"draw": [0, np.nan] + [0] * 8}, r"column 'draw' \(given as tie=\) has a missing value at data row 2"),
        ({"won": [None] + ["b"] * 9}, r"column 'won' has a missing winner at data row 1"),
        ({"won": ["z"] + ["b"] * 9}, r"data row 1: winner 'z' is neither of the compared items"),
    ],
)
def test_from_dataframe_tie_column_errors(change, match):
    frame = pd.DataFrame({"home": I, "away": J, "won": ["b"] * 10, "draw": [False] * 10}).assign(**change)
    with pytest.raises(InputError, match=match):
        Comparisons.from_dataframe(frame, i="home", j="away", winner="won", tie="draw")


def test_from_dataframe_unknown_tie_column():
    frame = pd.DataFrame({"home": I, "away": J, "y": [1] * 10})
    with pytest.raises(InputError, match=r"the table has no column 'draw' \(the tie column, tie=\)"):
        Comparisons.from_dataframe(frame, i="home", j="away", y="y", tie="draw")


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_btl_ties_fits_comparisons_with_draws_as_it_fits_x_and_y(drawn, model):
    X = np.column_stack([I, J]).astype(object)
    weights = np.linspace(0.5, 2.0, len(Y))
    from_arrays = BTL(ties=model, alpha=0.1).fit(X, Y, sample_weight=weights)
    from_object = BTL(ties=model, alpha=0.1).fit(Comparisons(I, J, Y, weights=weights))
    np.testing.assert_allclose(from_object.scores_.to_numpy(), from_arrays.scores_.to_numpy(), rtol=0, atol=1e-12)
    assert from_object.tie_parameter_ == pytest.approx(from_arrays.tie_parameter_, abs=1e-12)
    assert from_object.log_likelihood_ == pytest.approx(from_arrays.log_likelihood_, abs=1e-12)
    assert list(from_object.items_) == ["a", "b", "c"]


def _refusers(drawn):
    """Every estimator, metric and path that reads outcomes as 0/1, called on comparisons with draws.

    Each entry: (the model its refusal names, the call).
    """
    features = pd.DataFrame({"x": [0.0, 1.0, 2.0]}, index=["a", "b", "c"])
    with_features = drawn.with_features(features)
    fitted = BTL(alpha=1).fit(Comparisons(I, J, [1] * 10))
    X = np.column_stack([I, J]).astype(object)
    return [
        ("RankCentrality", lambda: RankCentrality().fit(drawn)),
        ("RankCentrality", lambda: RankCentrality(regularization="uniform", lam=0.1).fit(drawn)),
        ("RankCentrality", lambda: RankCentrality(regularization="similarity").fit(with_features)),
        ("RankCentrality", lambda: RankCentrality().fit(X, Y)),
        ("RankCentrality", lambda: rank(drawn, "rank_centrality", lam=0.1)),
        ("BTL with ties=None", lambda: BTL(alpha=1).fit(drawn)),
        ("BTL with ties=None", lambda: BTL().fit(X, Y)),
        ("BTL with ties=None", lambda: rank(drawn, "btl", alpha=1.0)),
        ("BTL(home_advantage=True)", lambda: BTL(home_advantage=True, alpha=1).fit(drawn)),
        ("BRE", lambda: BRE(random_state=0).fit(drawn)),
        ("URE", lambda: URE(random_state=0).partial_fit(drawn)),
        ("RankSVM", lambda: RankSVM().fit(with_features)),
        ("SiameseRanker", lambda: SiameseRanker().fit(with_features)),
        ("PlackettLuce", lambda: PlackettLuce().fit(drawn)),
        ("held_out_error", lambda: held_out_error(fitted.scores_, drawn)),
        ("held_out_error", lambda: evaluate(fitted.scores_, drawn)),
        ("BTL.score", lambda: fitted.score(drawn)),
        ("BTL.score", lambda: fitted.score(X, Y)),
        ("Comparisons.winners", lambda: comparison_counts(drawn)),
        ("Comparisons.winners", lambda: drawn.win_counts()),
        ("Comparisons.winners", lambda: drawn.wins),
        ("Comparisons.losers", lambda: drawn.loss_counts()),
        ("Comparisons.pairs (win counts by pair)", lambda: transition_matrix(drawn)),
        ("Comparisons.pairs (win counts by pair)", lambda: drawn.pairs),
    ]


def test_every_other_consumer_refuses_draws_in_one_line(drawn):
    for model, call in _refusers(drawn):
        with pytest.raises(InputError) as caught:
            call()
        message = str(caught.value)
        assert message.startswith(f"{model} cannot use draws"), (model, message)
        assert re.search(REFUSAL, message) and "\n" not in message, message


def test_rank_with_ties_fits_draws(drawn):
    result = rank(drawn, "btl", ties="davidson", alpha=0.1)
    expected = BTL(ties="davidson", alpha=0.1).fit(drawn)
    np.testing.assert_allclose(result.scores.to_numpy(), expected.scores_.to_numpy(), rtol=0, atol=1e-12)


def test_dask_paths_refuse_draws(drawn):
    pytest.importorskip("dask.array")
    from paucity.ranking.distributed import DaskComparisons

    with pytest.raises(InputError, match="^DaskComparisons " + REFUSAL):
        DaskComparisons.from_comparisons(drawn)
    lazy = DaskComparisons.from_arrays([0, 1, 2, 0], [1, 2, 0, 2], [1, 0, 0.5, 1], items=3, chunks=2)
    with pytest.raises(InputError, match=r"^DaskComparisons cannot use draws \(y = 0\.5; comparison 2 is one\)"):
        BRE(random_state=0).fit(lazy)


def test_the_guard_passes_decisive_comparisons():
    assert require_no_ties(Comparisons(I, J, [0, 1] * 5), "anything") is None
    # float outcomes of 0 and 1 only are no draw
    assert not Comparisons(I, J, np.array([0.0, 1.0] * 5)).has_ties


# -- fuzzing the reader with a tie column: only paucity errors escape, and the draws land where marked -----------
junk = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=2), st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_from_dataframe_with_a_tie_column(data):
    m = data.draw(st.integers(0, 6))
    labels = st.sampled_from(["a", "b", "c", 1, 2.5, None])
    frame = pd.DataFrame(
        {
            "i": data.draw(st.lists(labels, min_size=m, max_size=m)),
            "j": data.draw(st.lists(labels, min_size=m, max_size=m)),
            "won": data.draw(st.lists(labels, min_size=m, max_size=m)),
            "y": data.draw(st.lists(st.sampled_from([0, 1, 0.5, 0.25, np.nan, None, "1", True]), min_size=m, max_size=m)),
            "tie": data.draw(
                st.one_of(
                    st.lists(st.booleans(), min_size=m, max_size=m),
                    st.lists(st.sampled_from([0, 1]), min_size=m, max_size=m),
                    st.lists(junk, min_size=m, max_size=m),
                )
            ),
        },
        dtype=object if data.draw(st.booleans()) else None,
    )
    outcome = data.draw(st.sampled_from([{"winner": "won"}, {"y": "y"}]))
    try:
        c = Comparisons.from_dataframe(frame, i="i", j="j", tie="tie", **outcome)
    except PaucityError:
        return
    marked = frame["tie"].to_numpy() == 1
    y = np.asarray(c.y)
    assert (y[marked] == 0.5).all()
    if "winner" in outcome:
        assert c.has_ties == bool(marked.any())
    assert set(np.unique(y)) <= {0, 0.5, 1}
