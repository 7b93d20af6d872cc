"""Fixtures of the marker tests: the small AnnData with planted markers, its file, and an explorer on it."""

from ._cells import adata, explorer, h5ad_path  # noqa: F401
