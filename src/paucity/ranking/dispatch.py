"""``paucity.ranking.rank``: one call, a method name and its parameters."""

from __future__ import annotations

import inspect
from importlib import import_module

import pandas as pd

from .._errors import ParameterError
from .._validation import check_choice
from .comparisons import Comparisons

__all__ = ["rank", "METHODS", "make_ranker"]

# method name -> (module, estimator class); names are the seed's in lower case
METHODS = {
    "rank_centrality": ("centrality", "RankCentrality"),
    "btl": ("btl", "BTL"),
    "bre": ("counting", "BRE"),
    "ure": ("counting", "URE"),
    "rank_svm": ("svm", "RankSVM"),
}


def make_ranker(method: str, **params):
    """The unfitted estimator of a method, with its parameters checked by name.

    Examples
    --------
    >>> make_ranker("btl", alpha=0.5)
    BTL(alpha=0.5)
    """
    key = check_choice(method, tuple(METHODS), "method")
    module, name = METHODS[key]
    estimator_class = getattr(import_module(f"paucity.ranking.{module}"), name)
    accepted = [p for p in inspect.signature(estimator_class.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(
            f"method {key!r} has no parameter {unknown[0]!r}; its parameters are {', '.join(accepted) or 'none'}."
        )
    return estimator_class(**params)


def rank(comparisons: Comparisons, method: str = "rank_centrality", **params) -> pd.DataFrame:
    """Rank the items of a set of comparisons with one method.

    Parameters
    ----------
    comparisons : Comparisons
    method : {"rank_centrality", "btl", "bre", "ure", "rank_svm"}
        The estimator: :class:`~paucity.ranking.RankCentrality`,
        :class:`~paucity.ranking.BTL`, :class:`~paucity.ranking.BRE`,
        :class:`~paucity.ranking.URE` or :class:`~paucity.ranking.RankSVM`.
    **params
        The estimator's parameters (``lam=``, ``regularization=``, ``alpha=``...).

    Returns
    -------
    pandas.DataFrame
        One row per item, best first, indexed by item label, with columns
        ``rank`` (1 is best) and ``score`` (the estimator's ``scores_``).

    Notes
    -----
    The estimators are those of seed 000 (chapter 3) and seed 003 (chapter 5);
    see each class for its equations. The fitted estimator is in
    ``result.attrs["estimator"]``.

    Examples
    --------
    >>> from paucity.ranking import Comparisons, rank
    >>> c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    >>> rank(c, "rank_centrality", regularization="uniform", lam=0.1).round(3)  # doctest: +NORMALIZE_WHITESPACE
          rank  score
    item
    c        1  0.527
    b        2  0.333
    a        3  0.140
    """
    if not isinstance(comparisons, Comparisons):
        raise ParameterError(
            f"rank needs a paucity.ranking.Comparisons, got {type(comparisons).__name__}; build one with "
            "Comparisons(i, j, y), Comparisons.from_winners or Comparisons.from_dataframe."
        )
    estimator = make_ranker(method, **params).fit(comparisons)
    order = estimator.order_
    table = pd.DataFrame(
        {"rank": range(1, len(order) + 1), "score": estimator.scores_.to_numpy()[order]},
        index=pd.Index(estimator.items_[order], name="item"),
    )
    table.attrs["estimator"] = estimator
    return table
