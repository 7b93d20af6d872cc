"""Importing the gp capability stays light, and every public name resolves.

rich is not in the list: scikit-learn's kernels import it themselves (``sklearn.callback``).
"""

import subprocess
import sys

import pytest

import paucity
import paucity.gp


@pytest.mark.parametrize("module", ["paucity.gp", "paucity.gp.classification", "paucity.gp.regression",
                                    "paucity.gp.kernels", "paucity.gp.marginals"])
def test_import_loads_neither_anndata_nor_dask(module):
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "loaded = [m for m in ('anndata', 'dask', 'scanpy', 'biotite') if m in sys.modules]; "
        "assert not loaded, loaded"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_public_name_resolves():
    assert paucity.gp is paucity.__getattr__("gp")
    for name in paucity.gp.__all__:
        assert getattr(paucity.gp, name) is not None
    with pytest.raises(AttributeError):
        paucity.gp.no_such_name
