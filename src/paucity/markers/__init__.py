"""Information-theoretic marker (feature) selection (seed 000, chapter 2).

- :class:`InfoSelector`: a scikit-learn selector (``fit``/``transform``).
- :func:`find_markers`: the whole analysis on an AnnData, returning a
  :class:`MarkerResult` (frozen: the genes in order, their scores and
  relevance, the parameters; ``to_frame``, ``to_dict``, ``write``, ``read``).
- :func:`select`: the scanpy-style function (the result stored in the AnnData,
  readable by scanpy's ``rank_genes_groups`` getter and plots), and
  :func:`get`, the tidy table of a stored result.
- :class:`Stepwise`: the greedy search one step at a time, for interactive use;
  :class:`MarkerExplorer`, the model of the marker explorer page.
"""

from .._lazy import lazy_names

from .adata import find_markers, select
from .greedy import Selection, select_features
from .objectives import METHODS, Objective, make_objective
from .result import MarkerResult, get
from .stepwise import Stepwise

__all__ = ["InfoSelector", "find_markers", "select", "get", "MarkerResult", "Stepwise", "MarkerExplorer", "Selection",
           "select_features", "make_objective", "Objective", "METHODS"]

# InfoSelector loads scikit-learn: a command that only finds markers in a file does not pay for it
__getattr__, __dir__ = lazy_names(__name__, {**dict.fromkeys(("MarkerExplorer", "EXPLORER_METHODS", "EMBEDDINGS"), "explorer"),
                                             "InfoSelector": "selector"})
