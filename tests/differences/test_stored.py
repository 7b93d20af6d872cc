"""StoredDifferences and get: what compare writes into an AnnData, and reading it back."""

import anndata
import numpy as np
import pandas as pd
import pytest

import paucity.differences
import paucity.markers
from paucity._errors import InputError, ParameterError
from paucity.differences import DifferencesResult, StoredDifferences, analyze, compare, get
from paucity.differences.adata import two_groups

TABLE = ["names", "indices", "weights", "ranks", "means_x", "means_y"]


def cells(seed=0, n_genes=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(90, n_genes))
    X[45:, 3] *= 4.0
    X[45:, 1] += 1.0
    obs = pd.DataFrame({"kind": ["a"] * 45 + ["b"] * 45}, index=[f"c{i}" for i in range(90)])
    var = pd.DataFrame(index=[f"gene{k}" for k in range(n_genes)])
    return anndata.AnnData(X, obs=obs, var=var)


def with_raw():
    """Cells whose .raw has one gene more than .var (the extra one is read, the missing weight is NaN)."""
    full = cells(n_genes=6)
    adata = full[:, :5].copy()
    adata.raw = full
    adata.var_names = [*adata.var_names[:4], "only_in_var"]
    return adata


def previous_layout(adata, groupby, group1, group2, *, key_added="paucity_differences", layer=None, use_raw=None,
                    **options):
    """What compare wrote by hand before StoredDifferences: the reference its layout is checked against."""
    X, Y, resolved_raw = two_groups(adata, groupby, group1, group2, layer=layer, use_raw=use_raw)
    options.setdefault("random_state", 0)
    result = analyze(X, Y, groups=(str(group1), str(group2)), **options)
    summary = result.to_dict()
    settings = {key: value for key, value in summary["settings"].items() if value is not None}
    stored = {
        "groupby": groupby,
        "groups": [str(group1), str(group2)],
        "layer": layer,
        "use_raw": resolved_raw,
        "method": result.method,
        "divergence": result.divergence,
        "n_features": result.n_features,
        "lam": result.lam,
        "cv": result.cv,
        "marginal_normalize": result.marginal_normalize,
        "standardize": result.standardize,
        "n_permutations": summary["n_permutations"] or 0,
        "random_state": result.random_state,
        **settings,
        "statistic": summary["statistic"],
        "pvalue": summary["pvalue"],
    }
    table = result.to_frame()
    entry = {"params": {key: value for key, value in stored.items() if value is not None}}
    entry.update({column: table[column].to_numpy() for column in table.columns})
    weights = pd.Series(result.beta, index=pd.Index(result.feature_names).astype(str))
    return entry, weights.reindex(adata.var_names.astype(str)).to_numpy()


def assert_same_entry(entry, expected):
    assert list(entry) == list(expected)
    assert list(entry["params"]) == list(expected["params"])
    for key, value in expected["params"].items():
        assert type(entry["params"][key]) is type(value), key
        assert entry["params"][key] == value, key
    for key in TABLE:
        assert entry[key].dtype == expected[key].dtype, key
        np.testing.assert_array_equal(entry[key], expected[key])


@pytest.mark.parametrize(
    "options",
    [
        {"n_features": 2, "n_permutations": 4, "max_iter": 60},
        {"lam": 0.05, "max_iter": 60, "layer": "doubled"},
        {"marginal_normalize": True, "standardize": True, "max_iter": 60, "key_added": "diff"},
        {"n_features": 1, "raw": True},
    ],
    ids=["test", "lam-layer", "normalized", "raw"],
)
def test_compare_writes_the_layout_it_wrote_by_hand(options):
    options = dict(options)
    adata = with_raw() if options.pop("raw", False) else cells()
    adata.layers["doubled"] = 2 * adata.X
    key = options.get("key_added", "paucity_differences")
    expected, weights = previous_layout(adata, "kind", "a", "b", **options)
    assert compare(adata, "kind", "a", "b", **options) is None
    entry = adata.uns[key]
    assert list(entry) == ["params", *TABLE]
    assert_same_entry(entry, expected)
    column = adata.var[f"{key}_weight"]
    assert column.dtype == np.float64
    np.testing.assert_array_equal(column.to_numpy(), weights)


def test_the_params_keys_are_those_of_the_hand_written_layout():
    adata = cells()
    compare(adata, "kind", "a", "b", n_features=2, n_permutations=4, max_iter=60)
    assert list(adata.uns["paucity_differences"]["params"]) == [
        "groupby", "groups", "use_raw", "method", "divergence", "n_features", "cv", "marginal_normalize",
        "standardize", "n_permutations", "random_state", "max_iter", "n_restarts", "patience", "tighten_max_iter",
        "batch_size", "statistic", "pvalue",
    ]
    assert adata.var.columns.tolist() == ["paucity_differences_weight"]


def test_compare_with_copy_writes_through_the_result():
    adata = cells()
    new = compare(adata, "kind", "a", "b", n_features=1, copy=True)
    assert StoredDifferences.read(new).table["names"].tolist() == ["gene3"]
    assert not adata.uns and adata.var.columns.empty


def test_the_result_written_and_read_back_equals_the_original_in_memory():
    adata = cells()
    X, Y, _ = two_groups(adata, "kind", "a", "b")
    result = analyze(X, Y, n_features=2, n_permutations=4, groups=("a", "b"), random_state=0, max_iter=60)
    stored = StoredDifferences.from_result(result, groupby="kind", use_raw=False)
    result.write(adata, "diff", groupby="kind", use_raw=False)
    back = StoredDifferences.read(adata, "diff")
    assert back == stored
    assert back.params == stored.params and back.params["groups"] == ["a", "b"]
    pd.testing.assert_frame_equal(back.table, result.to_frame())
    pd.testing.assert_series_equal(back.weights, stored.weights)
    assert back.groups == ("a", "b") and back.statistic == pytest.approx(result.statistic)
    assert back.pvalue == result.pvalue
    copy = anndata.AnnData(adata.X.copy(), obs=adata.obs.copy(), var=adata.var[[]].copy())
    back.write(copy, "diff")  # what was read writes the same entry again
    assert_same_entry(copy.uns["diff"], adata.uns["diff"])
    np.testing.assert_array_equal(copy.var["diff_weight"], adata.var["diff_weight"])


def test_the_result_survives_an_h5ad_file(tmp_path):
    adata = with_raw()
    compare(adata, "kind", "a", "b", n_features=2, n_permutations=4, max_iter=60)
    in_memory = StoredDifferences.read(adata)
    adata.write_h5ad(tmp_path / "cells.h5ad")
    back = anndata.read_h5ad(tmp_path / "cells.h5ad")
    from_file = StoredDifferences.read(back)
    assert from_file == in_memory
    assert from_file.params["groups"] == ["a", "b"] and from_file.params["use_raw"] is True
    assert from_file.params["pvalue"] == in_memory.params["pvalue"]
    assert all(not isinstance(value, np.generic) for value in from_file.params.values())
    pd.testing.assert_frame_equal(get(back), get(adata))
    assert get(back).dtypes.tolist() == get(adata).dtypes.tolist()
    pd.testing.assert_series_equal(from_file.weights, in_memory.weights)
    assert np.isnan(from_file.weights["only_in_var"])


def test_get_is_the_table_of_the_analysis():
    adata = cells()
    compare(adata, "kind", "a", "b", n_features=2, max_iter=60, key_added="diff")
    X, Y, _ = two_groups(adata, "kind", "a", "b")
    pd.testing.assert_frame_equal(get(adata, key="diff"),
                                  analyze(X, Y, n_features=2, max_iter=60, random_state=0).to_frame())
    assert paucity.differences.get is get
    assert get(adata, "diff").columns.tolist() == TABLE


def test_get_names_the_missing_key_and_the_keys_there():
    adata = cells()
    with pytest.raises(InputError, match=r"adata.uns has no 'paucity_differences' \(keys there: none\): compare "
                                         r"two groups first \(paucity.differences.compare\)"):
        get(adata)
    compare(adata, "kind", "a", "b", n_features=1, key_added="diff")
    adata.uns["other"] = {"x": 1}
    with pytest.raises(InputError, match=r"adata.uns has no 'paucity_differences' \(keys there: 'diff', 'other'\).*"
                                         r"give the key_added they were stored under"):
        get(adata)
    with pytest.raises(InputError, match=r"adata.uns\['other'\] is not a principal differences analysis"):
        get(adata, "other")
    counts = anndata.AnnData(np.abs(adata.X), obs=adata.obs.copy(), var=adata.var[[]].copy())
    paucity.markers.select(counts, "kind", n_features=2)  # another capability's result
    with pytest.raises(InputError, match=r"adata.uns\['paucity_markers'\] is not a principal differences analysis"):
        get(counts, "paucity_markers")
    del adata.uns["diff"]["ranks"]
    with pytest.raises(InputError, match=r"adata.uns\['diff'\] is damaged: its column 'ranks' is missing"):
        get(adata, "diff")


def test_reading_without_the_var_column_keeps_the_table():
    adata = cells()
    compare(adata, "kind", "a", "b", n_features=1)
    del adata.var["paucity_differences_weight"]
    stored = StoredDifferences.read(adata)
    assert stored.weights is None and stored.table["names"].tolist() == ["gene3"]
    stored.write(adata, "again")
    assert "again_weight" not in adata.var and adata.uns["again"]["names"].tolist() == ["gene3"]


def test_to_dict_holds_plain_values():
    adata = cells()
    compare(adata, "kind", "a", "b", n_features=1)
    summary = StoredDifferences.read(adata).to_dict()
    assert list(summary) == ["params", *TABLE]
    assert summary["names"] == ["gene3"] and summary["ranks"] == [1] and type(summary["indices"][0]) is int


def test_write_refuses_a_key_that_is_not_a_string():
    adata = cells()
    X, Y, _ = two_groups(adata, "kind", "a", "b")
    result = analyze(X, Y, n_features=1, random_state=0, max_iter=30)
    assert isinstance(result, DifferencesResult)
    with pytest.raises(ParameterError, match="key_added must be a string, got 3"):
        result.write(adata, 3)
    assert not adata.uns
