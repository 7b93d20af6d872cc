"""The PDA / SPARDA estimator: directions, supports, inputs and errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from paucity._errors import (
    InputError,
    InputTypeError,
    NotFittedError,
    ParameterError,
    PaucityWarning,
    ShapeMismatchError,
)
from paucity.differences import PDA, MannWhitney, Wasserstein, wasserstein_1d


def planted(n=200, m=180, d=6, feature=2, scale=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, feature] *= scale
    return X, Y


def test_sparda_with_k_one_finds_the_planted_feature():
    X, Y = planted()
    model = PDA(sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    assert model.selected_.tolist() == [2]
    np.testing.assert_allclose(model.beta_, np.eye(6)[2])
    assert model.divergence_ == pytest.approx(wasserstein_1d(X[:, 2], Y[:, 2]).value)


def test_beta_is_a_canonical_unit_vector_and_divergence_is_its_value():
    X, Y = planted(seed=3)
    model = PDA(random_state=1).fit(X, Y)
    assert np.linalg.norm(model.beta_) == pytest.approx(1.0)
    assert model.beta_[np.flatnonzero(model.beta_)[0]] > 0
    assert model.divergence_ == pytest.approx(Wasserstein().value(X @ model.beta_, Y @ model.beta_))
    assert model.support_.all()
    assert model.relaxation_.n_iter >= 1 and model.tightening_.value == pytest.approx(model.divergence_)


def test_pda_reaches_the_best_direction_of_a_fine_grid_in_two_dimensions():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 2)) @ np.array([[1.0, 0.6], [0.0, 0.8]])
    Y = rng.normal(size=(130, 2)) @ np.array([[0.7, -0.5], [0.0, 1.4]])
    angles = np.linspace(0, np.pi, 3601)
    grid = max(Wasserstein().value(X @ [np.cos(a), np.sin(a)], Y @ [np.cos(a), np.sin(a)]) for a in angles)
    model = PDA(random_state=0).fit(X, Y)
    assert model.divergence_ >= grid * (1 - 1e-3)


def test_pda_is_at_least_as_good_as_every_single_feature():
    X, Y = planted(d=8, seed=7, scale=1.8)
    model = PDA(random_state=0).fit(X, Y)
    marginal = max(wasserstein_1d(X[:, k], Y[:, k]).value for k in range(8))
    assert model.divergence_ >= marginal * (1 - 1e-9)


def test_the_l1_penalty_keeps_the_features_that_differ():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 12))
    Y = rng.normal(size=(300, 12))
    Y[:, [0, 1]] = Y[:, [0, 1]] @ np.array([[1.0, 1.5], [1.5, 1.0]]) * 0.9  # a change in covariance
    X, Y = X / np.concatenate([X, Y]).std(0), Y / np.concatenate([X, Y]).std(0)
    model = PDA(sparsity="l1", lam=0.3, random_state=0).fit(X, Y)
    assert set(model.selected_.tolist()) == {0, 1}
    assert not model.support_[2:].any()


def test_a_large_lam_keeps_the_feature_that_differs_not_the_widest_one():
    # Feature 0 has the same wide distribution in both samples, feature 2 is shifted by 3.
    # At a large λ every off-diagonal entry of B is thresholded, B's diagonal holds the matched
    # pairs' squared differences and its top entry is the wide feature: RELAX's direction is e0.
    # A one-feature support is the feature with the largest divergence on its own: feature 2
    # (W² = 10.1 against 1.25 for feature 0).
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(200, 4)), rng.normal(size=(200, 4))
    X[:, 0] *= 10
    Y[:, 0] *= 10
    Y[:, 2] += 3.0
    for lam in (50.0, 500.0):
        estimator = PDA(sparsity="l1", lam=lam, random_state=0).fit(X, Y)
        assert np.argmax(np.abs(estimator.relaxation_.beta)) == 0
        assert estimator.selected_.tolist() == [2]
        assert estimator.divergence_ == pytest.approx(Wasserstein()._value(X[:, 2], Y[:, 2]))


def test_same_random_state_same_direction():
    X, Y = planted(seed=2)
    a = PDA(random_state=4).fit(X, Y).beta_
    b = PDA(random_state=4).fit(X, Y).beta_
    np.testing.assert_array_equal(a, b)


def test_mann_whitney_divergence_reports_the_rank_statistic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    Y = rng.normal(size=(110, 4))
    Y[:, 1] += 1.0
    model = PDA(divergence="mann_whitney", random_state=0).fit(X, Y)
    p, q = X @ model.beta_, Y @ model.beta_
    assert model.divergence_ == pytest.approx(MannWhitney().value(p, q))
    assert abs(model.beta_[1]) > 0.9
    assert model.divergence_ >= MannWhitney().value(X[:, 1], Y[:, 1]) - 1e-12


def test_a_divergence_instance_is_accepted():
    X, Y = planted()
    model = PDA(divergence=MannWhitney(smoothing=0.2), sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    assert model.selected_.tolist() == [2]


def test_row_blocks_find_the_planted_feature():
    X, Y = planted(n=400, m=350, seed=9)
    model = PDA(sparsity="l1", n_features=1, batch_size=120, random_state=0).fit(X, Y)
    assert model.selected_.tolist() == [2]


def test_dataframes_carry_names_and_are_matched_by_name():
    X, Y = planted()
    names = [f"g{k}" for k in range(6)]
    frame_x = pd.DataFrame(X, columns=names)
    frame_y = pd.DataFrame(Y, columns=names)[names[::-1]]  # same features, other order
    model = PDA(sparsity="l1", n_features=2, random_state=0).fit(frame_x, frame_y)
    reference = PDA(sparsity="l1", n_features=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.beta_, reference.beta_)
    np.testing.assert_array_equal(model.selected_, reference.selected_)
    assert model.selected_names_.tolist() == [f"g{k}" for k in reference.selected_]
    assert reference.selected_names_.tolist() == [f"x{k}" for k in reference.selected_]
    assert model.feature_names_in_.tolist() == names
    table = model.weights()
    assert table.columns.tolist() == ["feature", "index", "weight", "rank"]
    assert table["feature"].iloc[0] == "g2" and table["index"].iloc[0] == 2
    projected = model.transform(frame_x[names[::-1]])
    np.testing.assert_allclose(projected[:, 0], X @ model.beta_)


def test_mismatched_dataframe_columns_are_refused_by_name():
    X, Y = planted()
    frame_x = pd.DataFrame(X, columns=list("abcdef"))
    frame_y = pd.DataFrame(Y, columns=list("abcdeg"))
    with pytest.raises(ShapeMismatchError, match="missing from Y: f.*only in Y: g"):
        PDA().fit(frame_x, frame_y)


def test_transform_projects_and_checks():
    X, Y = planted()
    model = PDA(sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(model.transform(Y)[:, 0], Y @ model.beta_)
    assert model.transform(X).shape == (X.shape[0], 1)
    with pytest.raises(ShapeMismatchError, match="X has 5 features, but PDA is expecting 6 features"):
        model.transform(X[:, :5])
    with pytest.raises(NotFittedError):
        PDA().transform(X)


def test_clone_and_parameters():
    model = PDA(sparsity="l1", lam=0.1, k=None, random_state=3)
    copy = clone(model)
    assert copy.get_params() == model.get_params()


@pytest.mark.parametrize(
    "X, Y, error, message",
    [
        (np.zeros((5, 3)) + np.arange(3), np.ones((4, 2)), ShapeMismatchError, "X has 3 columns but Y has 2"),
        (np.random.default_rng(0).normal(size=(1, 3)), np.ones((4, 3)), InputError, "X has 1 sample"),
        (np.ones((4, 3)), np.random.default_rng(0).normal(size=(1, 3)), InputError, "Y has 1 sample"),
        (np.array([[0.0, np.nan], [1.0, 2.0]]), np.ones((3, 2)), InputError, "NaN or infinite"),
        (np.ones((3, 2)), np.array([[0.0, np.inf], [1.0, 2.0]]), InputError, "Y has 1 NaN or infinite"),
        (np.ones((4, 3)), np.ones((5, 3)), InputError, "constant"),
        (np.array([["a", "b"], ["c", "d"]]), np.ones((2, 2)), InputTypeError, "numbers"),
        (np.ones(4), np.ones((4, 2)), InputError, "2-dimensional"),
    ],
)
def test_bad_samples_get_clear_errors(X, Y, error, message):
    with pytest.raises(error, match=message):
        PDA().fit(X, Y)


@pytest.mark.parametrize("n_features", [0, -1, True, 2.5])
def test_n_features_that_is_not_a_positive_integer_is_refused(n_features):
    X, Y = planted()
    with pytest.raises(ParameterError, match="PDA: n_features must be an integer >= 1 or None"):
        PDA(sparsity="l1", n_features=n_features).fit(X, Y)


def test_n_features_above_the_number_of_features_is_refused():
    X, Y = planted()
    with pytest.raises(ParameterError, match=r"n_features=7 is larger than the number of features of X \(6\)"):
        PDA(sparsity="l1", n_features=7).fit(X, Y)


def test_k_is_the_deprecated_name_of_n_features():
    X, Y = planted()
    with pytest.warns(FutureWarning, match=r"PDA\(k=...\) is deprecated and will be removed; use n_features="):
        old = PDA(sparsity="l1", k=1, random_state=0).fit(X, Y)
    new = PDA(sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(old.beta_, new.beta_)
    with pytest.warns(FutureWarning), pytest.raises(ParameterError, match="not both"):
        PDA(sparsity="l1", k=1, n_features=2).fit(X, Y)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_features": 2}, "pass sparsity='l1'"),
        ({"sparsity": "l2"}, "PDA: sparsity must be one of 'l1' or None, got 'l2'"),
        ({"sparsity": "l1", "lam": -1.0}, "PDA: lam must be a number >= 0"),
        ({"lam": float("nan")}, "PDA: lam must be a number >= 0"),
        ({"n_restarts": -1}, "n_restarts"),
        ({"batch_size": 1}, "batch_size"),
        ({"divergence": "energy"}, "PDA: divergence must be one of 'wasserstein', 'mann_whitney'"),
        ({"random_state": -1}, "PDA: random_state must be a non-negative integer seed"),
        ({"progress": "yes"}, "PDA: progress must be True or False"),
        ({"max_iter": 0}, "PDA: max_iter must be an integer >= 1"),
    ],
)
def test_bad_parameters_are_refused(params, message):
    X, Y = planted()
    with pytest.raises(ParameterError, match=message):
        PDA(**params).fit(X, Y)


def test_fit_transform_needs_both_samples():
    X, Y = planted()
    with pytest.raises(InputError, match="requires y to be passed.*fit\\(X, Y\\)"):
        PDA().fit_transform(X)
    assert PDA(sparsity="l1", n_features=1, random_state=0).fit_transform(X, Y).shape == (X.shape[0], 1)


junk = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.integers(),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
    st.lists(st.lists(st.one_of(st.floats(allow_nan=True), st.text(max_size=2)), min_size=0, max_size=3), max_size=4),
    st.builds(lambda r, c: np.random.default_rng(r * 7 + c).normal(size=(r, c)),
              st.integers(0, 4), st.integers(0, 4)),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk, junk)
def test_junk_only_raises_paucity_errors(X, Y):
    try:
        PDA(max_iter=5, tighten_max_iter=5, n_restarts=0, random_state=0).fit(X, Y)
    except (InputError, InputTypeError, ShapeMismatchError):
        pass


def test_a_constant_feature_never_carries_weight():
    X, Y = planted(seed=4)
    X[:, 4] = 2.5
    Y[:, 4] = 2.5
    for params in ({}, {"sparsity": "l1", "n_features": 6}, {"sparsity": "l1", "lam": 0.01}):
        with pytest.warns(PaucityWarning, match=r"1 of 6 feature\(s\) are constant over X and Y together \(x4\)"):
            model = PDA(random_state=0, **params).fit(X, Y)
        assert model.beta_[4] == 0.0 and not model.support_[4]
        assert 4 not in model.selected_


def test_the_constant_features_warning_names_the_first_few():
    X, Y = planted(d=9, seed=4)
    X[:, 1:8] = 0.0
    Y[:, 1:8] = 0.0
    frame_x = pd.DataFrame(X, columns=[f"g{j}" for j in range(9)])
    frame_y = pd.DataFrame(Y, columns=[f"g{j}" for j in range(9)])
    with pytest.warns(PaucityWarning, match=r"7 of 9 feature\(s\) are constant .*\(g1, g2, g3, g4, g5 \.\.\.\)"):
        PDA(random_state=0, max_iter=20).fit(frame_x, frame_y)


# -- one matrix and two-valued labels ---------------------------------------------------------------
def test_labels_of_two_values_give_the_same_fit_as_two_samples():
    X, Y = planted(n=120, m=100)
    pooled = np.vstack([X, Y])
    labels = np.array(["b"] * 120 + ["c"] * 100)
    order = np.random.default_rng(0).permutation(220)  # the rows' order within a group does not matter...
    by_labels = PDA(sparsity="l1", n_features=2, random_state=0).fit(pooled, labels)
    by_samples = PDA(sparsity="l1", n_features=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(by_labels.beta_, by_samples.beta_)
    assert by_labels.divergence_ == by_samples.divergence_
    assert by_labels.classes_.tolist() == ["b", "c"] and not hasattr(by_samples, "classes_")
    shuffled = PDA(sparsity="l1", n_features=2, random_state=0).fit(pooled[order], labels[order])
    assert shuffled.selected_.tolist() == by_samples.selected_.tolist()  # ...only which rows are in each
    assert shuffled.divergence_ == pytest.approx(by_samples.divergence_)
    series = PDA(sparsity="l1", n_features=2, random_state=0).fit(pooled, pd.Series(labels))
    np.testing.assert_array_equal(series.beta_, by_samples.beta_)


@pytest.mark.parametrize(
    "labels, message",
    [
        (["a"] * 10, r"y has one class \('a'\).*exactly two values"),
        (["a", "b", "c"] * 3 + ["a"], r"y has 3 classes \('a', 'b', 'c'\)"),
        (["a"] + ["b"] * 9, r"the group y == 'a' has 1 sample\(s\).*at least 2"),
        (["a", "b"] * 4, "y has 8 entries but X has 10 rows"),
    ],
)
def test_labels_that_do_not_make_two_groups_are_refused(labels, message):
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(InputError, match=message):
        PDA().fit(X, labels)


def test_missing_labels_leave_their_rows_out_with_a_warning():
    X, Y = planted(n=60, m=50)
    pooled = np.vstack([X, Y, np.full((3, 6), 99.0)])
    labels = np.array(["x"] * 60 + ["y"] * 50 + [None] * 3, dtype=object)
    with pytest.warns(PaucityWarning, match="3 of 113 samples have no label"):
        model = PDA(sparsity="l1", n_features=1, random_state=0).fit(pooled, labels)
    reference = PDA(sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.beta_, reference.beta_)


def test_pda_runs_in_a_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, Y = planted(n=120, m=100)
    pooled = np.vstack([X, Y])
    labels = np.repeat([0, 1], [120, 100])
    pipeline = make_pipeline(StandardScaler(), PDA(sparsity="l1", n_features=1, random_state=0))
    projected = pipeline.fit_transform(pooled, labels)
    model = pipeline[-1]
    assert model.selected_.tolist() == [2] and projected.shape == (220, 1)
    scaled = StandardScaler().fit_transform(pooled)
    np.testing.assert_allclose(projected[:, 0], scaled @ model.beta_)
    np.testing.assert_allclose(pipeline.transform(pooled), projected)
    assert model.get_support().tolist() == [False, False, True, False, False, False]
    assert model.get_support(indices=True).tolist() == [2]


# -- saying what will take long ----------------------------------------------------------------------
def test_a_long_fit_is_announced_before_it_starts(monkeypatch):
    from paucity.differences import _duration

    X, Y = planted(n=40, m=40)
    monkeypatch.setattr(_duration, "LONG_SECONDS", 1e-9)
    with pytest.warns(PaucityWarning, match=r"This PDA fit \(n=40, m=40, d=6, max_iter=30\) may take up to about 0 s"):
        PDA(max_iter=30, random_state=0).fit(X, Y)


def test_the_duration_estimate_grows_with_the_problem():
    from paucity.differences._duration import fit_seconds

    small = fit_seconds(200, 200, 10, max_iter=300, tighten_runs=5, tighten_max_iter=500)
    pairs = fit_seconds(2000, 2000, 10, max_iter=300, tighten_runs=5, tighten_max_iter=500)
    features = fit_seconds(200, 200, 1000, max_iter=300, tighten_runs=5, tighten_max_iter=500)
    assert small < 10 < pairs and 10 < features
    # beyond 2²² pairs RELAX works on blocks of 2¹¹ rows per side: the pair term stops growing
    blocks = fit_seconds(10_000, 10_000, 10, max_iter=300, tighten_runs=5, tighten_max_iter=500)
    assert blocks < 2 * pairs


def test_the_progress_bar_changes_nothing():
    X, Y = planted(n=60, m=60)
    quiet = PDA(sparsity="l1", n_features=2, random_state=0, max_iter=40).fit(X, Y)
    shown = PDA(sparsity="l1", n_features=2, random_state=0, max_iter=40, progress=True).fit(X, Y)
    np.testing.assert_array_equal(quiet.beta_, shown.beta_)


def test_support_rules_off_tightens_on_relax_support_exactly():
    # a large λ leaves RELAX one feature. With the rules it is replaced by the feature of largest divergence on
    # its own; here that is feature 2, identically distributed in X and Y but with 4 times the spread (the
    # sample W₂² grows with the spread), while RELAX keeps feature 0, the one whose mean is shifted
    rng = np.random.default_rng(3)
    scale = np.array([1.0, 1.0, 4.0, 1.0, 1.0])
    X = rng.normal(size=(150, 5)) * scale
    Y = rng.normal(size=(150, 5)) * scale
    Y[:, 0] += 0.6
    centre = np.vstack([X, Y]).mean(axis=0)
    marginal = [Wasserstein()._value(X[:, j] - centre[j], Y[:, j] - centre[j]) for j in range(5)]
    assert int(np.argmax(marginal)) == 2
    differ = 0
    for lam in (1.0, 2.0, 3.0, 5.0, 10.0):  # B is diagonal: which feature RELAX keeps is won by a hair
        with_rules = PDA(sparsity="l1", lam=lam, random_state=0).fit(X, Y)
        without = PDA(sparsity="l1", lam=lam, random_state=0, support_rules=False).fit(X, Y)
        assert with_rules.selected_.tolist() == [2]
        assert without.selected_.tolist() == [int(np.argmax(np.abs(without.relaxation_.beta)))]
        differ += without.selected_.tolist() == [0]
    assert differ >= 1
    assert without.get_params()["support_rules"] is False


def test_support_rules_must_be_boolean():
    with pytest.raises(ParameterError, match="support_rules"):
        PDA(sparsity="l1", support_rules="yes").fit(np.eye(4), np.eye(4)[::-1] * 2)
