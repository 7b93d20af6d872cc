"""Selections equal to PicturedRocks 1.0.2's on scanpy's pbmc68k_reduced.

The fixtures were generated once in the anchor's own environment by
``tests/fixtures/make_picturedrocks_fixtures.py`` (see its header); the input
matrix is stored beside them so both sides see the same bits.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from paucity.info import discretize
from paucity.markers import InfoSelector

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def pbmc():
    stored = np.load(FIXTURES / "pbmc68k_raw.npz")
    X = sp.csr_matrix((stored["data"], stored["indices"], stored["indptr"]), shape=tuple(stored["shape"]))
    return X, stored["labels"]


@pytest.fixture(scope="module")
def anchor():
    return json.loads((FIXTURES / "picturedrocks_pbmc68k.json").read_text())


def test_discretization_is_identical_cell_by_cell(pbmc):
    X, _ = pbmc
    expected = sp.load_npz(FIXTURES / "picturedrocks_pbmc68k_discretized.npz")
    assert (discretize(X, 5) != expected).nnz == 0


@pytest.mark.parametrize("method", ["mim", "jmi", "cife"])
def test_supervised_selections_identical(pbmc, anchor, method):
    X, y = pbmc
    selector = InfoSelector(method=method, n_features=20, n_bins=5).fit(X, y)
    expected = anchor["methods"][method]
    assert selector.selected_.tolist() == expected["indices"]
    expected_scores = [step["score"] for step in expected["steps"]]
    np.testing.assert_allclose(selector.selection_scores_, expected_scores, rtol=0, atol=1e-9)


def test_unsupervised_degree_2_identical(pbmc, anchor):
    X, _ = pbmc
    selector = InfoSelector(method="entropy2", n_features=20).fit(X)
    assert selector.selected_.tolist() == anchor["methods"]["cifeunsup"]["indices"]


def test_unsupervised_degree_1_same_choice_up_to_tie_order(pbmc, anchor):
    # 18 genes tie at log2(5) bits; PicturedRocks takes tied genes from the
    # highest index down, paucity from the lowest up (its documented rule).
    X, _ = pbmc
    selector = InfoSelector(method="entropy", n_features=20).fit(X)
    expected = anchor["methods"]["unientropy"]["indices"]
    n_tied = anchor["methods"]["unientropy"]["steps"][0]["n_tied"]
    assert selector.selected_[:n_tied].tolist() == sorted(expected[:n_tied])
    np.testing.assert_allclose(selector.selection_scores_[:n_tied], np.log2(5), atol=1e-9)
