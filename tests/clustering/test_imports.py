"""Importing the clustering capability stays light: no SQLAlchemy until a store is opened, no anndata or dask."""

import subprocess
import sys

import pytest

import paucity.clustering


@pytest.mark.parametrize("module", ["paucity.clustering", *(f"paucity.clustering.{m}" for m in ("spectral", "scores", "metrics", "oracles", "estimates", "store", "active"))])
def test_import_loads_no_database_layer(module):
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "loaded = [m for m in ('sqlalchemy', 'anndata', 'dask', 'scanpy') if m in sys.modules]; "
        "assert not loaded, loaded"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_public_name_resolves():
    for name in paucity.clustering.__all__:
        assert getattr(paucity.clustering, name) is not None
    with pytest.raises(AttributeError):
        paucity.clustering.no_such_name
