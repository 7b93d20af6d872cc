"""``paucity.ranking.rank``: one call, a method name and its parameters, and its result."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import import_module

import numpy as np
import pandas as pd

from .._errors import ParameterError, warn
from .._json import plain
from .._spelling import given, owner_prefix, spelled, spells
from .._validation import Options, check_parameter
from .base import Ranker
from .comparisons import Comparisons

__all__ = ["rank", "RankResult", "METHODS", "make_ranker"]

# method name -> (module, estimator class); names are the seed's in lower case
METHODS = {
    "rank_centrality": ("centrality", "RankCentrality"),
    "btl": ("btl", "BTL"),
    "bre": ("counting", "BRE"),
    "ure": ("counting", "URE"),
    "rank_svm": ("svm", "RankSVM"),
}
# the methods that read item features: RankCentrality (similarity regularization) and RankSVM
FEATURE_METHODS = ("rank_centrality", "rank_svm")


def _method(method) -> str:
    return check_parameter(method, "method", [Options(*METHODS)], owner="rank")


def make_ranker(method: str, **params):
    """The unfitted estimator of a method, with its parameters checked by name.

    Examples
    --------
    >>> make_ranker("btl", alpha=0.5)
    BTL(alpha=0.5)
    """
    key = _method(method)
    module, name = METHODS[key]
    estimator_class = getattr(import_module(f"paucity.ranking.{module}"), name)
    signature = inspect.signature(estimator_class.__init__).parameters
    accepted = [p for p, spec in signature.items() if p != "self" and spec.default != "deprecated"]
    unknown = sorted(set(params) - set(signature) - {"self"})
    if unknown:
        raise ParameterError(
            f"{owner_prefix('rank')}{spelled('method')} {key!r} has no parameter "
            f"{spelled(unknown[0]) if spells(unknown[0]) else repr(unknown[0])}; "
            + (f"its options are {', '.join(spelled(n) for n in accepted if spells(n)) or 'none'}." if spells() else
               f"its parameters are {', '.join(accepted) or 'none'}.")
        )
    return estimator_class(**params)


@dataclass(frozen=True)
class RankResult:
    """What :func:`rank` returns: the fitted estimator of one method and its scores.

    Attributes
    ----------
    method : str
        The method's name, in lower case.
    params : dict
        The estimator's parameters as :func:`rank` set them (with the
        regularization it chose for ``"rank_centrality"``).
    estimator : Ranker
        The fitted estimator (``scores_``, ``log_scores_``, ``ranking_``...).
    """

    method: str
    params: dict
    estimator: Ranker

    @property
    def scores(self) -> pd.Series:
        """The estimator's ``scores_``, on its own scale, indexed by item label."""
        return self.estimator.scores_

    @property
    def log_scores(self) -> pd.Series:
        """The estimator's ``log_scores_``: BTL's centred log scale, shared by every method."""
        return self.estimator.log_scores_

    @property
    def ranking(self) -> pd.Index:
        """Item labels, best first."""
        return self.estimator.ranking_

    @property
    def n_items(self) -> int:
        """Number of items ranked."""
        return len(self.estimator.items_)

    def to_frame(self) -> pd.DataFrame:
        """One row per item, best first, indexed by item label: ``rank`` (1 is best), ``score``, ``log_score``."""
        order = self.estimator.order_
        return pd.DataFrame(
            {
                "rank": np.arange(1, len(order) + 1),
                "score": self.estimator.scores_.to_numpy()[order],
                "log_score": self.estimator.log_scores_.to_numpy()[order],
            },
            index=pd.Index(self.estimator.items_[order], name="item"),
        )

    def to_dict(self) -> dict:
        """The method, its parameters and the table's columns as lists (best first), ready for JSON."""
        table = self.to_frame()
        return {
            "method": self.method,
            "params": {name: plain(value, describe=True) for name, value in self.params.items()},
            "item": [plain(label, describe=True) for label in table.index],
            "rank": table["rank"].tolist(),
            "score": table["score"].tolist(),
            "log_score": table["log_score"].tolist(),
        }

    def __repr__(self) -> str:
        best = ", ".join(repr(plain(label, describe=True)) for label in self.ranking[:3])
        more = ", ..." if self.n_items > 3 else ""
        return f"RankResult(method={self.method!r}, {self.n_items} items, best first: {best}{more})"

    # -- the DataFrame that rank used to return, deprecated ----------------------------------------
    def _deprecated_frame(self, what: str) -> pd.DataFrame:
        warn(
            f"rank() returns a RankResult now, not a DataFrame; {what} on it is deprecated and will be removed. "
            "Use result.to_frame() for the table (or result.scores, result.ranking, result.estimator).",
            FutureWarning,
        )
        return self.to_frame()

    def __getitem__(self, key):
        return self._deprecated_frame(f"result[{key!r}]")[key]

    def __len__(self) -> int:
        return len(self._deprecated_frame("len(result)"))

    def __getattr__(self, name: str):
        # only reached for names a RankResult lacks: the DataFrame's, for old code
        if name.startswith("_") or name in ("method", "params", "estimator") or not hasattr(pd.DataFrame, name):
            raise AttributeError(f"'RankResult' object has no attribute {name!r}")
        if name == "attrs":
            self._deprecated_frame("result.attrs")
            return {"estimator": self.estimator}
        return getattr(self._deprecated_frame(f"result.{name}"), name)


def rank(comparisons: Comparisons, method: str = "rank_centrality", *, features=None, **params) -> RankResult:
    """Rank the items of a set of comparisons with one method.

    Parameters
    ----------
    comparisons : Comparisons
    method : {"rank_centrality", "btl", "bre", "ure", "rank_svm"}
        The estimator: :class:`~paucity.ranking.RankCentrality`,
        :class:`~paucity.ranking.BTL`, :class:`~paucity.ranking.BRE`,
        :class:`~paucity.ranking.URE` or :class:`~paucity.ranking.RankSVM`.
    features : pandas.DataFrame or array of shape (n_items, d), optional
        Item features to attach to the comparisons (a DataFrame is aligned on
        its index, the item labels). Only ``"rank_centrality"`` (similarity
        regularization) and ``"rank_svm"`` read features: with another
        method, or with ``regularization`` other than ``"similarity"``, they
        are an error rather than ignored.
    **params
        The estimator's parameters (``lam=``, ``regularization=``,
        ``alpha=``...). A parameter the method does not have, or that the
        chosen configuration does not use (``lam`` with ``"btl"``, ``sigma``
        without similarity regularization...), is an error.

    Returns
    -------
    RankResult
        The fitted estimator with ``to_frame()`` (one row per item, best
        first: ``rank``, ``score`` on the estimator's scale, ``log_score`` on
        BTL's centred log scale) and ``to_dict()``.

    Notes
    -----
    The estimators are those of seed 000 (chapter 3) and seed 003 (chapter 5);
    see each class for its equations. For ``"rank_centrality"``, when
    ``regularization`` is not given, ``features`` mean similarity
    regularization (the chain ``Q̂ D_λ D′`` of §3.5) and ``lam`` alone means
    λ-regularization (Algorithm 7); with neither, the unregularized chain.

    Examples
    --------
    >>> from paucity.ranking import Comparisons, rank
    >>> c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    >>> result = rank(c, "rank_centrality", lam=0.1)
    >>> result.params["regularization"]
    'uniform'
    >>> result.to_frame().round(3)  # doctest: +NORMALIZE_WHITESPACE
          rank  score  log_score
    item
    c        1  0.527      0.595
    b        2  0.333      0.137
    a        3  0.140     -0.732
    """
    if not isinstance(comparisons, Comparisons):
        raise ParameterError(
            f"rank needs a paucity.ranking.Comparisons, got {type(comparisons).__name__}; build one with "
            "Comparisons(i, j, y), Comparisons.from_winners or Comparisons.from_frame."
        )
    key = _method(method)
    if features is not None:
        if key not in FEATURE_METHODS:
            raise ParameterError(
                f"{owner_prefix('rank')}{spelled('features')} are read by 'rank_centrality' (similarity "
                f"regularization) and 'rank_svm' only, not by {key!r}; leave {spelled('features')} unset."
            )
        if key == "rank_centrality" and params.get("regularization", "similarity") != "similarity":
            raise ParameterError(
                f"{owner_prefix('rank')}{spelled('features')} are used by rank_centrality with "
                f"{given('regularization', 'similarity')} only, got {given('regularization', params['regularization'])}; "
                f"leave {spelled('features')} unset or the regularization unset."
            )
        comparisons = comparisons.with_features(features)
    if key == "rank_centrality" and "regularization" not in params:
        if features is not None:
            params["regularization"] = "similarity"
        elif params.get("lam") is not None:
            params["regularization"] = "uniform"
    estimator = make_ranker(key, **params).fit(comparisons)
    return RankResult(method=key, params=dict(params), estimator=estimator)
