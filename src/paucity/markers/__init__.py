"""Information-theoretic marker (feature) selection (seed 000, chapter 2).

- :class:`InfoSelector`: a scikit-learn selector (``fit``/``transform``).
- :func:`select`: the scanpy-style function on AnnData.
- :class:`Stepwise`: the greedy search one step at a time, for interactive use.
"""

from .adata import select
from .greedy import Selection, select_features
from .objectives import METHODS, Objective, make_objective
from .selector import InfoSelector
from .stepwise import Stepwise

__all__ = ["InfoSelector", "select", "Stepwise", "Selection", "select_features", "make_objective", "Objective", "METHODS"]
