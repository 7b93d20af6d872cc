"""Tests of paucity.datasets: the synthetic count generator and the bundled loaders."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from paucity._errors import ParameterError
from paucity.datasets import SyntheticCounts, make_scrna_counts
from paucity.datasets import synthetic


@pytest.fixture(scope="module")
def data() -> SyntheticCounts:
    return make_scrna_counts(n_cells=6000, n_genes=800, n_types=6, n_markers=60, density=0.12, random_state=3)


def test_shapes_and_types(data):
    X = data.X
    assert sp.issparse(X) and X.format == "csr"
    assert X.shape == (6000, 800)
    assert X.dtype == np.float32
    assert X.has_sorted_indices
    assert data.labels.shape == (6000,) and data.labels.dtype == np.int64
    assert set(np.unique(data.labels)) == set(range(6))
    assert data.means.shape == (6, 800)
    assert len(data.marker_genes) == 6 == data.n_types
    assert (data.n_cells, data.n_genes) == (6000, 800)


def test_counts_are_positive_integers(data):
    values = data.X.data
    assert values.min() >= 1
    np.testing.assert_array_equal(values, np.round(values))


@pytest.mark.parametrize("density", [0.03, 0.12, 0.4])
def test_density_matches_target(density):
    d = make_scrna_counts(n_cells=4000, n_genes=500, n_types=5, n_markers=50, density=density, random_state=0)
    observed = d.X.nnz / (4000 * 500)
    assert abs(observed - density) < 0.01 * max(1.0, density / 0.1)


def test_types_are_balanced(data):
    sizes = np.bincount(data.labels)
    assert sizes.max() - sizes.min() <= 1
    # shuffled, not sorted
    assert np.any(np.diff(data.labels) < 0)


def test_marker_sets(data):
    sizes = [len(g) for g in data.marker_genes]
    assert sizes == [10] * 6
    every = np.concatenate(data.marker_genes)
    assert len(np.unique(every)) == 60  # disjoint
    assert every.min() >= 0 and every.max() < 800
    for genes in data.marker_genes:
        assert genes.dtype == np.int64
        assert np.all(np.diff(genes) > 0)


def test_uneven_marker_split():
    d = make_scrna_counts(n_cells=100, n_genes=50, n_types=4, n_markers=10, random_state=0)
    assert [len(g) for g in d.marker_genes] == [3, 3, 2, 2]


def test_markers_are_up_regulated_in_their_type(data):
    X = data.X.tocsc()
    for t, genes in enumerate(data.marker_genes):
        inside = data.labels == t
        mean_in = np.asarray(X[inside][:, genes].mean(axis=0)).ravel()
        mean_out = np.asarray(X[~inside][:, genes].mean(axis=0)).ravel()
        assert np.all(mean_in > mean_out), f"type {t}: {mean_in} vs {mean_out}"
        # Fold changes are 4 to 16: on average well above 2.
        assert np.median(mean_in / np.maximum(mean_out, 1e-12)) > 2.5
        elsewhere = np.delete(data.means, t, axis=0)[:, genes].max(axis=0)
        assert np.all(data.means[t, genes] >= 4 * elsewhere * (1 - 1e-12))


def test_non_markers_have_the_same_mean_everywhere(data):
    markers = np.concatenate(data.marker_genes)
    others = np.setdiff1d(np.arange(800), markers)
    means = data.means[:, others]
    np.testing.assert_allclose(means, np.broadcast_to(means[0], means.shape))


def test_empirical_means_follow_the_model(data):
    X = data.X.tocsc()
    t = 0
    inside = data.labels == t
    observed = np.asarray(X[inside].mean(axis=0)).ravel()
    expected = data.means[t]
    # Genes with moderate means: the sample mean of ~1000 NB draws is close.
    moderate = (expected > 0.5) & (expected < 20)
    assert moderate.sum() > 20
    rel = np.abs(observed[moderate] - expected[moderate]) / expected[moderate]
    assert np.median(rel) < 0.1


def test_zero_truncated_sampler_matches_the_law():
    rng = np.random.default_rng(0)
    size = 2.0
    for mu in (0.05, 3.0, 60.0):  # inversion, inversion, redraw
        n = 200_000
        mus = np.full(n, mu)
        p0 = synthetic._prob_zero(mus, 1 / size)
        draws = synthetic._zero_truncated_negative_binomial(rng, mus, p0, size)
        assert draws.min() >= 1
        expected_mean = mu / (1 - p0[0])
        assert abs(draws.mean() - expected_mean) / expected_mean < 0.02
        # P(X = 1 | X > 0)
        p1 = p0[0] * size * (mu / (size + mu))
        assert abs(np.mean(draws == 1) - p1 / (1 - p0[0])) < 0.01


def test_deterministic():
    a = make_scrna_counts(n_cells=1500, n_genes=300, n_types=4, n_markers=20, random_state=7)
    b = make_scrna_counts(n_cells=1500, n_genes=300, n_types=4, n_markers=20, random_state=7)
    c = make_scrna_counts(n_cells=1500, n_genes=300, n_types=4, n_markers=20, random_state=8)
    assert (a.X != b.X).nnz == 0
    np.testing.assert_array_equal(a.labels, b.labels)
    for ga, gb in zip(a.marker_genes, b.marker_genes):
        np.testing.assert_array_equal(ga, gb)
    assert (a.X != c.X).nnz > 0


def test_generator_random_state():
    a = make_scrna_counts(n_cells=200, n_genes=50, n_types=2, n_markers=4, random_state=np.random.default_rng(5))
    b = make_scrna_counts(n_cells=200, n_genes=50, n_types=2, n_markers=4, random_state=np.random.default_rng(5))
    assert (a.X != b.X).nnz == 0


def test_many_blocks_match_model(monkeypatch):
    """Generation in many small row blocks still gives a valid CSR matrix."""
    monkeypatch.setattr(synthetic, "_BLOCK_ENTRIES", 1000)
    d = make_scrna_counts(n_cells=3000, n_genes=200, n_types=3, n_markers=9, random_state=0)
    d.X.check_format(full_check=True)
    assert abs(d.X.nnz / (3000 * 200) - 0.12) < 0.01


def test_no_markers():
    d = make_scrna_counts(n_cells=300, n_genes=40, n_types=3, n_markers=0, random_state=0)
    assert all(len(g) == 0 for g in d.marker_genes)
    np.testing.assert_allclose(d.means, np.broadcast_to(d.means[0], d.means.shape))


def test_to_anndata(data):
    adata = data.to_anndata()
    assert adata.shape == (6000, 800)
    assert adata.X is data.X or (adata.X != data.X).nnz == 0
    assert list(adata.obs["cell_type"].cat.categories) == [f"type{t}" for t in range(6)]
    np.testing.assert_array_equal(adata.obs["cell_type"].cat.codes.to_numpy(), data.labels)
    assert adata.var_names[0] == "gene0" and adata.var_names[-1] == "gene799"
    assert adata.obs_names[0] == "cell0"
    for t, genes in enumerate(data.marker_genes):
        assert (adata.var["marker_of"].to_numpy()[genes] == f"type{t}").all()


def test_to_anndata_more_than_ten_types_keeps_numeric_order():
    d = make_scrna_counts(n_cells=240, n_genes=60, n_types=12, n_markers=24, random_state=0)
    cats = list(d.to_anndata().obs["cell_type"].cat.categories)
    assert cats[:3] == ["type0", "type1", "type2"] and cats[-1] == "type11"


def test_repr(data):
    text = repr(data)
    assert "n_cells=6000" in text and "n_markers=60" in text


def test_frozen(data):
    with pytest.raises(AttributeError):
        data.labels = None


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"n_cells": 0}, "n_cells"),
        ({"n_cells": 2.5}, "n_cells"),
        ({"n_genes": -3}, "n_genes"),
        ({"n_types": 0}, "n_types"),
        ({"n_cells": 5, "n_types": 6}, "n_types=6"),
        ({"n_genes": 100, "n_markers": 101}, "n_markers"),
        ({"n_markers": -1}, "n_markers"),
        ({"density": 0.0}, "density"),
        ({"density": 1.0}, "density"),
        ({"density": "dense"}, "density"),
        ({"dispersion": 0.0}, "dispersion"),
        ({"dispersion": float("nan")}, "dispersion"),
        ({"dispersion": True}, "dispersion"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_arguments(kwargs, fragment):
    args = {"n_cells": 100, "n_genes": 200, "n_types": 4, "n_markers": 20}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=fragment):
        make_scrna_counts(**args)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError):
        make_scrna_counts(density=2.0)
