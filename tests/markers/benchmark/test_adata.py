"""The benchmark on an AnnData."""

import json

import pytest

from paucity._errors import InputError, ParameterError
from paucity.markers.benchmark import run_benchmark, run_benchmark_adata


def test_run_on_anndata(tiny, fast, tmp_path):
    adata = tiny.to_anndata()
    result = run_benchmark_adata(adata, "cell_type", methods=["mim"], out=tmp_path / "a", **fast)
    assert len(result.table) == 6
    direct = run_benchmark(tiny.X, adata.obs["cell_type"].to_numpy(), methods=["mim"], **fast)
    assert result.table["error_rate"].tolist() == direct.table["error_rate"].tolist()
    params = json.loads((tmp_path / "a" / "params.json").read_text())
    assert (params["groupby"], params["layer"], params["use_raw"]) == ("cell_type", None, False)
    with pytest.raises(InputError, match="groupby 'kind' is not a column of adata.obs"):
        run_benchmark_adata(adata, "kind", methods=["mim"], **fast)


def test_n_markers_is_a_deprecated_alias_of_n_features(tiny, fast):
    adata = tiny.to_anndata()
    fast.pop("n_features")
    with pytest.warns(FutureWarning, match=r"run_benchmark_adata\(n_markers=\.\.\.\) is deprecated.*use n_features=") as caught:
        old = run_benchmark_adata(adata, "cell_type", methods=["mim"], n_markers=[3], **fast)
    assert [w.filename for w in caught if issubclass(w.category, FutureWarning)] == [__file__]  # points at the caller
    new = run_benchmark_adata(adata, "cell_type", methods=["mim"], n_features=[3], **fast)
    assert old.table["error_rate"].tolist() == new.table["error_rate"].tolist()
    assert new.n_features == (3,)
    with pytest.warns(FutureWarning), pytest.raises(ParameterError, match="give n_features= only"):
        run_benchmark_adata(adata, "cell_type", methods=["mim"], n_markers=[3], n_features=[3], **fast)
