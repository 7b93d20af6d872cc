"""paucity in the browser: the marker explorer and the annotation page (``paucity serve``).

- :class:`~paucity.markers.MarkerExplorer`: the state behind the marker explorer, a greedy search a
  person steers (its model lives in :mod:`paucity.markers.explorer`; it is re-exported here).
- :class:`~paucity.clustering.AnnotationSession`: the state behind the annotation page, pairs of a clustering
  session handed to annotators one at a time (its model lives in :mod:`paucity.clustering.annotation`; it is
  re-exported here).
- :func:`markers_app`, :func:`annotate_app`: their ASGI applications (Starlette), pages and JSON APIs.

Importing this package needs neither Starlette nor anndata; the two applications import Starlette.
"""

from .._extras import require
from ..clustering.annotation import AnnotationSession
from ..markers.explorer import EMBEDDINGS, EXPLORER_METHODS, MarkerExplorer

__all__ = ["MarkerExplorer", "AnnotationSession", "EXPLORER_METHODS", "EMBEDDINGS", "markers_app", "annotate_app"]


def markers_app(*args, **kwargs):
    """The marker explorer's ASGI application; see :func:`paucity.serve.markers.markers_app`."""
    require("starlette", "the marker explorer page")
    from .markers import markers_app as build

    return build(*args, **kwargs)


def annotate_app(*args, **kwargs):
    """The annotation page's ASGI application; see :func:`paucity.serve.annotate.annotate_app`."""
    require("starlette", "the annotation page")
    from .annotate import annotate_app as build

    return build(*args, **kwargs)
