"""Every warning of paucity points at the user's own line, not at paucity's insides."""

import warnings

import numpy as np
import pandas as pd
import pytest

from paucity._errors import PaucityWarning


def caught(call):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        call()
    return [r for r in records if issubclass(r.category, (PaucityWarning, FutureWarning))]


def test_a_selector_warning_points_here():
    from paucity.markers import InfoSelector

    X = np.random.default_rng(0).poisson(1.0, size=(40, 3)).astype(float)
    y = np.repeat([0, 1], 20)
    records = caught(lambda: InfoSelector(n_features=5).fit(X, y))
    assert records and all(r.filename == __file__ for r in records), [(r.filename, r.lineno) for r in records]
    records = caught(lambda: InfoSelector(n_features=5).fit_transform(X, y))  # through scikit-learn's fit_transform
    assert records and all(r.filename == __file__ for r in records), [(r.filename, r.lineno) for r in records]


def test_an_anndata_warning_points_here():
    anndata = pytest.importorskip("anndata")
    from paucity.markers import select

    rng = np.random.default_rng(0)
    groups = pd.Series(rng.choice(["B", "T"], size=60)).where(lambda s: s.index % 10 != 0)  # a few cells unlabelled
    adata = anndata.AnnData(rng.poisson(1.0, size=(60, 4)).astype(np.float32),
                            obs=pd.DataFrame({"cell_type": groups.to_numpy()}, index=[f"c{i}" for i in range(60)]))
    records = caught(lambda: select(adata, "cell_type", n_features=2))
    assert any("have no label" in str(r.message) for r in records)
    assert all(r.filename == __file__ for r in records), [(r.filename, r.lineno) for r in records]


def test_a_moved_name_points_here():
    from paucity.judgments import estimates

    records = caught(lambda: estimates.full_objective)
    assert records and all(r.filename == __file__ for r in records), [(r.filename, r.lineno) for r in records]
