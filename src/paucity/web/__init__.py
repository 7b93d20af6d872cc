"""paucity in the browser: the marker explorer (``paucity serve markers``).

- :class:`MarkerExplorer`: the state behind the page, a greedy search a person steers.
- :func:`markers_app`: the ASGI application (Starlette) that serves the page and its JSON API.

Importing this package needs neither Starlette nor anndata; :func:`markers_app` imports Starlette.
"""

from .explorer import EMBEDDINGS, EXPLORER_METHODS, MarkerExplorer

__all__ = ["MarkerExplorer", "EXPLORER_METHODS", "EMBEDDINGS", "markers_app"]


def markers_app(*args, **kwargs):
    """The marker explorer's ASGI application; see :func:`paucity.web.markers.markers_app`."""
    from .markers import markers_app as build

    return build(*args, **kwargs)
