"""The PDA / SPARDA estimator: directions, supports, inputs and errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from paucity._errors import InputError, InputTypeError, NotFittedError, ParameterError, ShapeMismatchError
from paucity.differences import PDA, MannWhitney, Wasserstein, wasserstein_1d


def planted(n=200, m=180, d=6, feature=2, scale=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, feature] *= scale
    return X, Y


def test_sparda_with_k_one_finds_the_planted_feature():
    X, Y = planted()
    model = PDA(sparsity="l1", k=1, random_state=0).fit(X, Y)
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
    model = PDA(divergence=MannWhitney(smoothing=0.2), sparsity="l1", k=1, random_state=0).fit(X, Y)
    assert model.selected_.tolist() == [2]


def test_row_blocks_find_the_planted_feature():
    X, Y = planted(n=400, m=350, seed=9)
    model = PDA(sparsity="l1", k=1, batch_size=120, random_state=0).fit(X, Y)
    assert model.selected_.tolist() == [2]


def test_dataframes_carry_names_and_are_matched_by_name():
    X, Y = planted()
    names = [f"g{k}" for k in range(6)]
    frame_x = pd.DataFrame(X, columns=names)
    frame_y = pd.DataFrame(Y, columns=names)[names[::-1]]  # same features, other order
    model = PDA(sparsity="l1", k=2, random_state=0).fit(frame_x, frame_y)
    reference = PDA(sparsity="l1", k=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.beta_, reference.beta_)
    assert model.selected_.tolist() == [f"g{k}" for k in reference.selected_]
    assert model.feature_names_in_.tolist() == names
    table = model.weights()
    assert table.columns.tolist() == ["feature", "weight", "rank"]
    assert table["feature"].iloc[0] == "g2"
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
    model = PDA(sparsity="l1", k=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(model.transform(Y)[:, 0], Y @ model.beta_)
    assert model.transform(X).shape == (X.shape[0], 1)
    with pytest.raises(ShapeMismatchError, match="fitted on 6 features"):
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
        (np.ones(4), np.ones(4), InputError, "2-D"),
    ],
)
def test_bad_samples_get_clear_errors(X, Y, error, message):
    with pytest.raises(error, match=message):
        PDA().fit(X, Y)


@pytest.mark.parametrize("k", [0, 7, -1, True, 2.5])
def test_k_outside_one_to_d_is_refused(k):
    X, Y = planted()
    with pytest.raises(ParameterError, match="k must be an integer between 1 and the number of features \\(6\\)"):
        PDA(sparsity="l1", k=k).fit(X, Y)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"k": 2}, "pass sparsity='l1'"),
        ({"sparsity": "l2"}, "sparsity must be None"),
        ({"sparsity": "l1", "lam": -1.0}, "lam must be a non-negative"),
        ({"n_restarts": -1}, "n_restarts"),
        ({"batch_size": 1}, "batch_size"),
        ({"divergence": "energy"}, "unknown divergence"),
    ],
)
def test_bad_parameters_are_refused(params, message):
    X, Y = planted()
    with pytest.raises(ParameterError, match=message):
        PDA(**params).fit(X, Y)


def test_fit_transform_needs_both_samples():
    X, Y = planted()
    with pytest.raises(ParameterError, match="two samples"):
        PDA().fit_transform(X)
    assert PDA(sparsity="l1", k=1, random_state=0).fit_transform(X, Y).shape == (X.shape[0], 1)


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
    for params in ({}, {"sparsity": "l1", "k": 6}, {"sparsity": "l1", "lam": 0.01}):
        model = PDA(random_state=0, **params).fit(X, Y)
        assert model.beta_[4] == 0.0 and not model.support_[4]
