"""Importing the crowd capability stays light (crowd-kit only when aggregate runs), and every public name resolves."""

import subprocess
import sys

import pytest

import paucity.crowd


@pytest.mark.parametrize("module", ["paucity.crowd", "paucity.crowd.bbmc", "paucity.crowd.labels",
                                    "paucity.crowd.aggregation", "paucity.crowd.active", "paucity.crowd.loop"])
def test_import_loads_neither_anndata_nor_dask(module):
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "loaded = [m for m in ('anndata', 'dask', 'scanpy', 'rich', 'crowdkit') if m in sys.modules]; "
        "assert not loaded, loaded"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_public_name_resolves():
    for name in paucity.crowd.__all__:
        assert getattr(paucity.crowd, name) is not None
    with pytest.raises(AttributeError):
        paucity.crowd.no_such_name
