"""Importing the clustering capability stays light: no SQLAlchemy until a store is opened, no anndata or dask."""

import subprocess
import sys

import pytest

import paucity.clustering


MODULES = ["paucity.clustering", *(f"paucity.clustering.{m}"
                                  for m in ("spectral", "scores", "metrics", "oracles", "estimates", "store", "active", "settings",
                                           "tables", "backend", "session", "annotation"))]


def test_import_loads_no_database_layer():
    """The modules imported one after another in one fresh interpreter, checked after each import: modules are only
    ever added, so the first module after which a library is loaded is the one that loads it."""
    code = (
        "import sys, importlib\n"
        f"for module in {MODULES!r}:\n"
        "    importlib.import_module(module)\n"
        "    loaded = [m for m in ('sqlalchemy', 'anndata', 'dask', 'scanpy') if m in sys.modules]\n"
        "    assert not loaded, (module, loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_public_name_resolves():
    for name in paucity.clustering.__all__:
        assert getattr(paucity.clustering, name) is not None
    with pytest.raises(AttributeError):
        paucity.clustering.no_such_name
