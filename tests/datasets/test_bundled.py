"""The bundled data: scanpy's PBMC cells, and a clear message when scanpy is missing."""

from __future__ import annotations

import builtins

import pytest

from paucity.datasets import pbmc68k_reduced


def test_pbmc68k_reduced():
    pytest.importorskip("scanpy")
    adata = pbmc68k_reduced()
    assert adata.raw.shape == (700, 765)
    assert "louvain" in adata.obs


def test_pbmc68k_reduced_without_scanpy(monkeypatch):
    real_import = builtins.__import__

    def no_scanpy(name, *args, **kwargs):
        if name == "scanpy" or name.startswith("scanpy."):
            raise ImportError("No module named 'scanpy'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_scanpy)
    with pytest.raises(ImportError, match=r"pip install paucity\[scanpy\]"):
        pbmc68k_reduced()
