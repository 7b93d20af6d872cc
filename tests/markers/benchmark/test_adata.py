"""The benchmark on an AnnData."""

import json

import pytest

from paucity._errors import InputError
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
