"""Tests of the crowd-judgment generators: simulate_crowd and grouped_feature_crowd."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare, multivariate_normal, norm

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.datasets import (
    GroupedFeatureCrowd,
    SimulatedCrowd,
    grouped_feature_crowd,
    simulate_crowd,
)
from paucity.datasets.judgments import (
    _covariance_root,
    _normal_orthant_excess,
    _root_from_eigenpairs,
)

MIXED = np.array([True, False, True, False, True, False])


def _mean_judgments(judged: pd.DataFrame, n_rows: int, repeats: np.ndarray) -> np.ndarray:
    """Per-row mean of each attribute's judgments, from the documented object-major row order."""
    values = judged["value"].to_numpy().reshape(n_rows, int(repeats.sum()))
    bounds = np.concatenate([[0], np.cumsum(repeats)])
    return np.column_stack([values[:, bounds[a] : bounds[a + 1]].mean(axis=1) for a in np.flatnonzero(repeats)])


def _least_squares_loss(features: np.ndarray, labels: np.ndarray) -> float:
    design = np.column_stack([np.ones(len(labels)), features])
    coef, *_ = np.linalg.lstsq(design, labels, rcond=None)
    return float(np.mean((design @ coef - labels) ** 2))


# -- simulate_crowd: shapes, names, defaults ------------------------------------------------------
def test_shapes_names_and_types():
    crowd = simulate_crowd(50, 5, judgments=3, random_state=0)
    assert isinstance(crowd, SimulatedCrowd)
    judged = crowd.judgments
    assert list(judged.columns) == ["object", "attribute", "value"]
    assert judged.shape == (50 * 5 * 3, 3)
    assert judged["value"].dtype == np.float64
    assert all(isinstance(v, str) for v in judged["object"]) and all(isinstance(v, str) for v in judged["attribute"])
    assert list(crowd.attributes) == [f"a{a}" for a in range(5)]
    assert list(crowd.objects) == [f"o{i}" for i in range(50)]
    assert crowd.labels.name == "label" and crowd.labels.index.name == "object"
    assert crowd.labels.dtype == np.float64
    assert crowd.object_means.shape == (50, 5)
    assert list(crowd.object_means.index) == list(crowd.objects)
    assert list(crowd.object_means.columns) == list(crowd.attributes)
    counts = judged.groupby(["object", "attribute"]).size()
    assert len(counts) == 250 and (counts == 3).all()
    # ordered by object, then attribute
    assert judged["object"].iloc[:15].eq("o0").all()
    assert judged["attribute"].iloc[:6].tolist() == ["a0"] * 3 + ["a1"] * 3
    assert crowd.n_objects == 50 and crowd.n_attributes == 5
    assert "n_objects=50" in repr(crowd)


def test_per_attribute_judgment_counts():
    crowd = simulate_crowd(4, 3, judgments={"a0": 1, "a1": 4, "a2": 2}, random_state=0)
    sizes = crowd.judgments.groupby("attribute").size()
    assert sizes.to_dict() == {"a0": 4, "a1": 16, "a2": 8}
    assert crowd.judgment_counts.tolist() == [1, 4, 2]
    crowd = simulate_crowd(4, 3, judgments=np.array([2, 1, 3]), random_state=0)
    assert crowd.judgments.groupby("attribute").size().tolist() == [8, 4, 12]


def test_defaults():
    crowd = simulate_crowd(3, random_state=0)
    assert crowd.n_attributes == 8
    np.testing.assert_allclose(crowd.internal_variance, np.linspace(0.2, 3.0, 8))
    w = crowd.coefficients.to_numpy()
    assert w[0] == 1.0 and (np.diff(w) <= 0).all() and (w == 0).sum() >= 1 and (w > 0).sum() >= 4
    expected = np.full((8, 8), 0.3) + 0.7 * np.eye(8)
    np.testing.assert_allclose(crowd.external_covariance, expected)
    np.testing.assert_allclose(crowd.mean_covariance, expected)
    assert not crowd.binary.any()
    assert crowd.noise == 0.5 and crowd.intercept == 0.0


def test_labels_follow_the_linear_model():
    crowd = simulate_crowd(20000, 4, intercept=3.0, noise=0.7, random_state=1)
    residual = crowd.labels - 3.0 - crowd.object_means.to_numpy() @ crowd.coefficients.to_numpy()
    assert abs(residual.mean()) < 0.03
    assert residual.std() == pytest.approx(0.7, rel=0.03)
    np.testing.assert_allclose(np.cov(crowd.object_means.to_numpy().T), crowd.external_covariance, atol=0.05)


def test_full_external_covariance():
    a = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.5], [0.2, 0.0, 1.0]])
    covariance = a @ a.T
    crowd = simulate_crowd(20000, 3, external_covariance=covariance, correlation=0.99, random_state=2)
    np.testing.assert_allclose(crowd.external_covariance, covariance)
    np.testing.assert_allclose(np.cov(crowd.object_means.to_numpy().T), covariance, atol=0.06)
    # a singular covariance is accepted
    singular = simulate_crowd(10, 2, external_covariance=np.ones((2, 2)), random_state=0)
    means = singular.object_means.to_numpy()
    np.testing.assert_allclose(means[:, 0], means[:, 1])


_EIGH = np.linalg.eigh


def _equicorrelated_eigh_variants(covariance):
    """eigh's output, then the same with eigenvector signs flipped and the repeated eigenspace rotated."""
    eigenvalues, eigenvectors = _EIGH(covariance)
    yield eigenvalues, eigenvectors
    signs = np.where(np.arange(len(eigenvalues)) % 2 == 0, -1.0, 1.0)
    yield eigenvalues, eigenvectors * signs
    # the equicorrelated covariance's d - 1 smallest eigenvalues are equal: any orthonormal basis of their
    # space is as valid, and LAPACK builds differ in which one they return
    rotation, _ = np.linalg.qr(np.random.default_rng(7).standard_normal((len(eigenvalues) - 1,) * 2))
    rotated = eigenvectors.copy()
    rotated[:, :-1] = eigenvectors[:, :-1] @ rotation
    yield eigenvalues, rotated * signs


def test_covariance_root_is_the_same_for_every_valid_eigenvector_choice():
    covariance = np.full((6, 6), 0.3)
    np.fill_diagonal(covariance, 1.0)
    for eigenvalues, eigenvectors in _equicorrelated_eigh_variants(covariance):
        root = _root_from_eigenpairs(eigenvalues, eigenvectors)
        np.testing.assert_allclose(root, root.T, atol=0)
        np.testing.assert_allclose(root @ root, covariance, atol=1e-12)
        np.testing.assert_allclose(root, _covariance_root(covariance), atol=1e-12)


def test_simulated_crowd_does_not_depend_on_eigh_signs_or_basis(monkeypatch):
    """A crowd drawn with eigh's eigenvectors flipped or rotated is the one drawn with them as returned."""
    arguments = {"judgments": 2, "correlation": 0.3, "binary": [True, False] * 6, "noise": 0.5, "random_state": 2013}
    expected = simulate_crowd(200, 12, **arguments)
    for variant in (1, 2):
        monkeypatch.setattr(np.linalg, "eigh", lambda a, variant=variant: list(_equicorrelated_eigh_variants(a))[variant])
        crowd = simulate_crowd(200, 12, **arguments)
        np.testing.assert_allclose(crowd.object_means, expected.object_means, rtol=0, atol=1e-12)
        np.testing.assert_allclose(crowd.labels, expected.labels, rtol=0, atol=1e-12)
        np.testing.assert_allclose(crowd.judgments["value"], expected.judgments["value"], rtol=0, atol=1e-12)


# -- judgments converge to the per-object means and variances ------------------------------------
def test_real_judgments_converge_to_object_means_and_internal_variance():
    crowd = simulate_crowd(20, 4, internal_variance=[0.5, 1.0, 2.0, 4.0], random_state=3)
    many = 3000
    judged = crowd.draw(None, many, random_state=4)
    stats = judged.groupby(["object", "attribute"])["value"].agg(["mean", "var"])
    means = stats["mean"].unstack().loc[crowd.objects, crowd.attributes]
    v = crowd.internal_variance.to_numpy()
    tolerance = 5 * np.sqrt(v / many)
    assert (np.abs(means.to_numpy() - crowd.object_means.to_numpy()) < tolerance).all()
    variances = stats["var"].unstack().loc[crowd.objects, crowd.attributes]
    np.testing.assert_allclose(variances.mean(axis=0), v, rtol=0.03)


def test_binary_judgments():
    crowd = simulate_crowd(30, 6, binary=MIXED, means=[0.5, 0, -0.5, 0, 1.5, 0], random_state=5)
    assert crowd.binary.tolist() == MIXED.tolist()
    p = crowd.object_means.loc[:, MIXED].to_numpy()
    assert ((p > 0) & (p < 1)).all()
    many = 3000
    judged = crowd.draw(None, np.where(MIXED, many, 0), random_state=6)
    assert set(judged["value"].unique()) <= {0.0, 1.0}
    stats = judged.groupby(["object", "attribute"])["value"].agg(["mean", "var"])
    means = stats["mean"].unstack().loc[crowd.objects].to_numpy()
    variances = stats["var"].unstack().loc[crowd.objects].to_numpy()
    bound = 5 * np.sqrt(p * (1 - p) / many) + 1e-9
    assert (np.abs(means - p) < bound).all()
    np.testing.assert_allclose(variances, p * (1 - p), atol=0.02)
    # the real attributes keep Gaussian judgments
    real = crowd.draw(["o0"], {"a1": 5}, random_state=0)["value"]
    assert not set(real.unique()) <= {0.0, 1.0}


def test_binary_population_moments_match_a_large_sample():
    crowd = simulate_crowd(
        1, 6, binary=MIXED, means=[0.5, 0, -0.5, 0, 1.5, 0], correlation=0.5, internal_variance=1.0, random_state=0
    )
    sample = crowd.new_objects(200_000, judgments=0, random_state=7)
    means = sample.object_means.to_numpy()
    np.testing.assert_allclose(np.cov(means.T), crowd.mean_covariance, atol=0.01)
    p = means[:, MIXED]
    np.testing.assert_allclose((p * (1 - p)).mean(axis=0), crowd.internal_variance[MIXED], rtol=0.01)
    np.testing.assert_allclose(crowd.internal_variance[~MIXED], 1.0)
    # the covariance of the latent means is the parameter, not that of p
    assert crowd.external_covariance.loc["a0", "a2"] == pytest.approx(0.5)
    assert crowd.mean_covariance.loc["a0", "a2"] < 0.5


@settings(max_examples=60, deadline=None)
@given(
    h=st.floats(-4, 4),
    k=st.floats(-4, 4),
    rho=st.floats(-0.995, 0.995),
)
def test_orthant_excess_matches_scipy(h, k, rho):
    reference = multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([h, k]) - norm.cdf(h) * norm.cdf(k)
    assert _normal_orthant_excess(h, k, rho) == pytest.approx(reference, abs=1e-7)


# -- true_loss --------------------------------------------------------------------------------------
@pytest.mark.parametrize("binary", [None, MIXED], ids=["real", "mixed"])
def test_true_loss_matches_monte_carlo(binary):
    crowd = simulate_crowd(
        1, 6, binary=binary, means=[0.3, 0, -0.5, 0, 1.0, 0], correlation=0.4, noise=0.4, random_state=8
    )
    repeats = np.array([3, 1, 2, 0, 4, 1])
    m = 60_000
    sample = crowd.new_objects(m, judgments=repeats, random_state=9)
    features = _mean_judgments(sample.judgments, m, repeats)
    empirical = _least_squares_loss(features, sample.labels.to_numpy())
    assert crowd.true_loss(repeats) == pytest.approx(empirical, rel=0.03)
    assert crowd.label_variance == pytest.approx(sample.labels.var(), rel=0.03)


def test_true_loss_equals_the_scoring_formula_for_uncorrelated_attributes():
    # seed 002, Eq. (1): Var(y) - ℓ(r) = Σ b² / (σ² + v / r) when Σ is diagonal
    crowd = simulate_crowd(1, 5, correlation=0.0, random_state=0)
    r = np.array([2, 0, 5, 1, 3])
    w = crowd.coefficients.to_numpy()
    v = crowd.internal_variance.to_numpy()
    gain = sum(w[a] ** 2 / (1.0 + v[a] / r[a]) for a in range(5) if r[a] > 0)
    assert crowd.projected_gain(r) == pytest.approx(gain, rel=1e-10)
    assert crowd.true_loss(r) == pytest.approx(crowd.label_variance - gain, rel=1e-10)


def test_true_loss_limits():
    crowd = simulate_crowd(1, 4, binary=[False, True, False, True], noise=0.3, random_state=0)
    assert crowd.true_loss(0) == crowd.label_variance
    assert crowd.true_loss({}) == crowd.label_variance
    assert crowd.projected_gain(0) == 0.0
    # with unboundedly many judgments of every attribute only the label noise is left
    assert crowd.true_loss(10**9) == pytest.approx(0.3**2, rel=1e-4)
    assert crowd.true_loss({"a0": 2}) == crowd.true_loss([2, 0, 0, 0])
    assert crowd.true_loss(pd.Series({"a3": 1})) == crowd.true_loss(np.array([0, 0, 0, 1.0]))


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(1, 6),
    correlation=st.floats(0.0, 0.9),
    n_binary=st.integers(0, 6),
    seed=st.integers(0, 10**6),
    data=st.data(),
)
def test_true_loss_decreases_as_judgments_are_added(d, correlation, n_binary, seed, data):
    rng = np.random.default_rng(seed)
    binary = np.arange(d) < min(n_binary, d)
    crowd = simulate_crowd(
        1,
        d,
        correlation=correlation,
        binary=binary,
        means=rng.normal(0, 1, d),
        coefficients=rng.normal(0, 1, d),
        random_state=seed,
    )
    r = np.array(data.draw(st.lists(st.integers(0, 6), min_size=d, max_size=d)))
    a = data.draw(st.integers(0, d - 1))
    more = r.copy()
    more[a] += 1
    loss = crowd.true_loss(r)
    assert crowd.true_loss(more) <= loss + 1e-10
    assert crowd.noise**2 - 1e-10 <= loss <= crowd.label_variance + 1e-10


# -- draw and new_objects -------------------------------------------------------------------------
def test_draw_is_reproducible_and_counts_match_repeats():
    crowd = simulate_crowd(10, 4, random_state=0)
    objects = ["o3", "o1", "o7"]
    repeats = {"a0": 2, "a2": 0, "a3": 5}
    first = crowd.draw(objects, repeats, random_state=11)
    second = crowd.draw(objects, repeats, random_state=11)
    pd.testing.assert_frame_equal(first, second)
    other = crowd.draw(objects, repeats, random_state=12)
    assert not np.array_equal(first["value"], other["value"])
    assert first.groupby("attribute").size().to_dict() == {"a0": 6, "a3": 15}
    assert first["object"].drop_duplicates().tolist() == objects
    by_array = crowd.draw(pd.Index(objects), np.array([2, 0, 0, 5]), random_state=11)
    pd.testing.assert_frame_equal(first, by_array)
    assert crowd.draw(None, 1, random_state=0).shape == (40, 3)
    assert crowd.draw("o2", 1, random_state=0)["object"].eq("o2").all()
    empty = crowd.draw(objects, 0, random_state=0)
    assert list(empty.columns) == ["object", "attribute", "value"] and len(empty) == 0
    assert empty["value"].dtype == np.float64


def test_draw_accepts_a_generator_and_leaves_the_crowd_alone():
    crowd = simulate_crowd(5, 2, random_state=0)
    before = crowd.judgments.copy()
    rng = np.random.default_rng(0)
    a = crowd.draw(None, 1, random_state=rng)
    b = crowd.draw(None, 1, random_state=rng)
    assert not np.array_equal(a["value"], b["value"])
    pd.testing.assert_frame_equal(crowd.judgments, before)


def test_new_objects():
    crowd = simulate_crowd(10, 3, judgments=2, binary=[True, False, False], noise=0.2, random_state=0)
    test = crowd.new_objects(5, random_state=1)
    assert list(test.objects) == [f"o{i}" for i in range(10, 15)]
    assert not set(test.objects) & set(crowd.objects)
    assert len(test.judgments) == 5 * 3 * 2
    assert test.true_loss([1, 2, 3]) == crowd.true_loss([1, 2, 3])
    pd.testing.assert_frame_equal(test.mean_covariance, crowd.mean_covariance)
    later = test.new_objects(2, judgments={"a0": 0, "a1": 1, "a2": 0}, random_state=2)
    assert list(later.objects) == ["o15", "o16"]
    assert later.judgments["attribute"].unique().tolist() == ["a1"]
    offset = crowd.new_objects(2, name_offset=100, judgments=0, random_state=3)
    assert list(offset.objects) == ["o100", "o101"] and len(offset.judgments) == 0
    pd.testing.assert_frame_equal(
        crowd.new_objects(3, random_state=4).judgments, crowd.new_objects(3, random_state=4).judgments
    )


# -- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_objects": 0}, ParameterError, "n_objects"),
        ({"n_attributes": 0}, ParameterError, "n_attributes"),
        ({"judgments": 0}, ParameterError, "judgments"),
        ({"judgments": 1.5}, ParameterError, "whole numbers"),
        ({"judgments": [1, 2]}, ShapeMismatchError, "one entry per attribute"),
        ({"judgments": {"a0": 1}}, ParameterError, "no count"),
        ({"judgments": {"b0": 1}}, ParameterError, "do not exist"),
        ({"correlation": -0.5}, ParameterError, "correlation"),
        ({"correlation": 1.5}, ParameterError, "correlation"),
        ({"correlation": float("nan")}, ParameterError, "correlation"),
        ({"external_covariance": np.eye(2)}, ShapeMismatchError, "n_attributes=2"),
        ({"external_covariance": np.diag([1.0, 1.0, -1.0, 1.0])}, InputError, "positive semi-definite"),
        ({"external_covariance": np.triu(np.ones((4, 4)))}, InputError, "symmetric"),
        ({"internal_variance": [1.0, -0.1, 1.0, 1.0]}, InputError, "at least 0"),
        ({"internal_variance": -1.0}, ParameterError, "simulate_crowd: internal_variance must be a number >= 0, got -1.0"),
        ({"binary": [1, 0, 0, 1]}, ParameterError, "boolean mask"),
        ({"binary": [True, False]}, ShapeMismatchError, "binary"),
        ({"coefficients": [1.0, 2.0]}, ShapeMismatchError, "coefficients"),
        ({"means": [0.0, np.nan, 0.0, 0.0]}, InputError, "means"),
        ({"noise": -0.1}, ParameterError, "simulate_crowd: noise must be a number >= 0, got -0.1"),
        ({"noise": float("inf")}, ParameterError, "noise must be a number >= 0, got inf"),
        ({"intercept": "1"}, ParameterError, "intercept must be a finite number, got '1'"),
        ({"random_state": "seed"}, ParameterError, "random_state"),
    ],
)
def test_simulate_crowd_errors(kwargs, error, match):
    arguments = {"n_objects": 5, "n_attributes": 4, "random_state": 0} | kwargs
    with pytest.raises(error, match=match):
        simulate_crowd(**arguments)


def test_method_errors():
    crowd = simulate_crowd(5, 3, random_state=0)
    with pytest.raises(InputError, match="not objects of this crowd"):
        crowd.draw(["o0", "o99"], 1)
    with pytest.raises(ParameterError, match="at least 0"):
        crowd.draw(None, [1, -1, 0])
    with pytest.raises(ParameterError, match="do not exist"):
        crowd.true_loss({"a9": 1})
    with pytest.raises(ShapeMismatchError):
        crowd.true_loss([1, 2])
    with pytest.raises(ParameterError, match="n_objects"):
        crowd.new_objects(0)
    with pytest.raises(ParameterError, match="name_offset"):
        crowd.new_objects(2, name_offset=-1)


# -- grouped_feature_crowd ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    return load_digits()


def test_grouped_digits(digits):
    crowd = grouped_feature_crowd(digits.data, digits.target, group_size=8)
    assert isinstance(crowd, GroupedFeatureCrowd)
    assert list(crowd.attributes) == [f"g{g}" for g in range(8)]
    assert crowd.n_objects == 1797 and list(crowd.objects[:2]) == ["o0", "o1"]
    assert crowd.labels.name == "label" and crowd.labels.index.name == "object"
    np.testing.assert_array_equal(crowd.labels, digits.target.astype(float))
    rows = digits.data.reshape(-1, 8, 8)  # feature g is row g of the image
    np.testing.assert_allclose(crowd.object_means, rows.mean(axis=2))
    np.testing.assert_allclose(crowd.internal_variance, rows.var(axis=2).mean(axis=0))
    assert 0 < crowd.true_loss(4) < crowd.true_loss(1) < crowd.label_variance
    judged = crowd.draw(crowd.objects[:50], 2, random_state=0)
    assert judged.shape == (50 * 8 * 2, 3)
    assert list(judged.columns) == ["object", "attribute", "value"] and judged["value"].dtype == np.float64


def test_grouped_draws_come_from_the_group_uniformly():
    n, p, size = 40, 10, 4
    X = 1000.0 * np.arange(n)[:, None] + np.arange(p)[None, :]  # every value names its row and column
    crowd = grouped_feature_crowd(X, np.arange(n), group_size=size)
    assert [len(g) for g in crowd.groups] == [4, 4, 2]  # the last group holds the rest
    judged = crowd.draw(None, 500, random_state=1)
    values = judged["value"].to_numpy()
    rows = (values // 1000).astype(int)
    columns = (values % 1000).astype(int)
    objects = judged["object"].str[1:].astype(int).to_numpy()
    group = judged["attribute"].str[1:].astype(int).to_numpy()
    np.testing.assert_array_equal(rows, objects)
    np.testing.assert_array_equal(columns // size, group)
    for g, members in enumerate(crowd.groups):
        counts = np.bincount(columns[group == g], minlength=p)[members]
        assert chisquare(counts).pvalue > 1e-3


def test_grouped_judgments_converge_and_true_loss_matches_monte_carlo(digits):
    crowd = grouped_feature_crowd(digits.data[:300], digits.target[:300], group_size=16)
    judged = crowd.draw(None, 400, random_state=2)
    stats = judged.groupby(["object", "attribute"])["value"].agg(["mean", "var"])
    means = stats["mean"].unstack().loc[crowd.objects, crowd.attributes].to_numpy()
    assert np.abs(means - crowd.object_means.to_numpy()).max() < 1.5
    np.testing.assert_allclose(
        stats["var"].unstack()[crowd.attributes].mean(axis=0), crowd.internal_variance, rtol=0.05
    )
    # the population is the 300 objects, each equally likely: judge each many times over
    repeats = np.array([1, 3, 2, 0])
    copies = 100
    objects = np.tile(crowd.objects.to_numpy(), copies)
    sample = crowd.draw(objects, repeats, random_state=3)
    features = _mean_judgments(sample, len(objects), repeats)
    empirical = _least_squares_loss(features, np.tile(crowd.labels.to_numpy(), copies))
    assert crowd.true_loss(repeats) == pytest.approx(empirical, rel=0.03)


def test_grouped_names():
    X = pd.DataFrame(np.arange(12.0).reshape(2, 6), columns=[f"bin{j}" for j in range(6)])
    crowd = grouped_feature_crowd(X, [0.0, 1.0], group_size=3)
    assert list(crowd.attributes) == ["bin0..bin2", "bin3..bin5"]
    crowd = grouped_feature_crowd(X.to_numpy(), [0.0, 1.0], group_size=1, feature_names=list("uvwxyz"))
    assert list(crowd.attributes) == list("uvwxyz")
    crowd = grouped_feature_crowd(X.to_numpy(), pd.Series([0.0, 1.0]), group_size=2)
    assert list(crowd.attributes) == ["g0", "g1", "g2"]
    np.testing.assert_allclose(crowd.object_means, [[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]])
    np.testing.assert_allclose(crowd.internal_variance, [0.25, 0.25, 0.25])
    assert "n_columns=6" in repr(crowd)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"y": [0.0, 1.0]}, ShapeMismatchError, "3 rows"),
        ({"y": [0.0, np.nan, 1.0]}, InputError, "NaN"),
        ({"group_size": 0}, ParameterError, "group_size"),
        ({"group_size": 5}, ParameterError, r"group_size must be an integer in \[1, 4\], got 5. The largest is the number of columns of X"),
        ({"feature_names": ["a", "b"]}, ShapeMismatchError, "feature_names"),
        ({"feature_names": ["a", "b", "a", "b"], "group_size": 1}, ParameterError, "same name"),
        ({"X": np.zeros((3, 0))}, InputError, "empty"),
        ({"X": [["a", "b"], ["c", "d"], ["e", "f"]]}, TypeError, "numbers"),
    ],
)
def test_grouped_errors(kwargs, error, match):
    arguments = {"X": np.arange(12.0).reshape(3, 4), "y": [0.0, 1.0, 2.0], "group_size": 2} | kwargs
    X = arguments.pop("X")
    y = arguments.pop("y")
    with pytest.raises(error, match=match):
        grouped_feature_crowd(X, y, **arguments)


def test_grouped_draw_errors():
    crowd = grouped_feature_crowd(np.arange(12.0).reshape(3, 4), [0.0, 1.0, 2.0], group_size=2)
    with pytest.raises(InputError, match="not objects"):
        crowd.draw(["o5"], 1)
    with pytest.raises(ParameterError, match="do not exist"):
        crowd.draw(None, {"a0": 1})
