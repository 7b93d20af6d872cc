"""A simulation of active spectral clustering on a complete similarity matrix, with item names.

What ``paucity cluster-active`` runs: :func:`simulate` plays the oracle with
the matrix (read by :func:`~paucity.clustering.read_similarities`, or any
named or plain matrix), runs the active loop and scores every eigen-update
against the clustering of the complete matrix (:class:`ClusteringSimulation`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._spelling import given, owner_prefix, spelled
from .._validation import RANDOM_STATE, Interval, check_parameter, check_random_state
from ._checks import MIN_ITEMS, SYMMETRY_TOLERANCE, check_interleave
from .settings import defaults, refuse_unknown
from .tables import refuse_repeated

__all__ = ["ClusteringSimulation", "simulate"]


@dataclass(frozen=True)
class ClusteringSimulation:
    """What :func:`simulate` returns: the clustering reached on a budget, and its error curve.

    Attributes
    ----------
    items : tuple of str
        The item names, in the order of the matrix.
    labels : ndarray of int
        The clustering of the final estimate Ŵ (0..n_clusters−1, item 0 in cluster 0).
    reference : ndarray of int
        The clustering of the complete matrix (:func:`~paucity.clustering.spectral_bisection`).
    embedding : ndarray
        v̂₂ of the final Ŵ: its sign is the cluster (of the first split), its
        magnitude how far an item sits from the boundary.
    error : float
        :func:`~paucity.clustering.misclustering_error` of ``labels`` against ``reference``.
    history : pandas.DataFrame
        The error curve: n_queries, fraction (of the n(n−1)/2 pairs), n_components, error; one row per
        eigen-update, the last for the final Ŵ.
    queries : pandas.DataFrame
        Every measurement in order: order, i, j (item names), value, repeat.
    n_queries : int
    budget : int
        The budget in measurements.
    n_pairs : int
        n(n−1)/2.
    strategy : str
        ``"iu_red"``, ``"shamir_tishby"`` or ``"random"``.
    """

    items: tuple
    labels: np.ndarray
    reference: np.ndarray
    embedding: np.ndarray
    error: float
    history: pd.DataFrame
    queries: pd.DataFrame
    n_queries: int
    budget: int
    n_pairs: int
    strategy: str

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, reference (the complete matrix's cluster), embedding (v̂₂)."""
        return pd.DataFrame(
            {"item": list(self.items), "label": self.labels, "reference": self.reference, "embedding": self.embedding}
        )

    def to_dict(self) -> dict:
        """The summary: strategy, n_items, n_pairs, budget, n_queries, fraction, error."""
        return {
            "strategy": self.strategy,
            "n_items": len(self.items),
            "n_pairs": self.n_pairs,
            "budget": self.budget,
            "n_queries": self.n_queries,
            "fraction": self.n_queries / self.n_pairs,
            "error": self.error,
        }



def simulate(similarities, *, concentration=None, adversarial=0.0, progress=False, **settings) -> ClusteringSimulation:
    """Simulate active spectral clustering on a complete similarity matrix, with its error curve.

    The complete matrix plays the oracle (:class:`~paucity.clustering.MatrixOracle`),
    optionally noisy (:class:`~paucity.clustering.BetaNoise`); the loop
    (:class:`~paucity.clustering.ActiveSpectralClustering`) measures ``budget``
    similarities, and every eigen-update is scored against the clustering of
    the complete matrix (:func:`~paucity.clustering.spectral_bisection`).

    Parameters
    ----------
    similarities : pandas.DataFrame or array-like of shape (n, n)
        The complete matrix, in [0, 1], symmetric, n ≥ 3; a DataFrame with
        item names as index and columns (as :func:`read_similarities` gives),
        or an array (items named ``"0"``, ``"1"``, ...). The diagonal is not used.
    **settings
        The loop's settings, by name, as :class:`~paucity.clustering.ActiveSpectralClustering`
        takes them (``strategy``, ``budget``, ``batch_size``, ``random_state``,
        ...; the estimator's defaults for those left out); ``cut`` also reads
        the reference off the complete matrix. A name that is not a setting
        is refused.
    concentration : float, optional
        Simulate a noisy crowd: each answer is drawn from Beta noise of this
        concentration κ around the true similarity (10 is a noisy crowd, 100
        a careful one). None answers the true similarities.
    adversarial : float, default=0.0
        With ``concentration``: the probability that an answer is 1 − w (an
        adversarial worker).
    progress : bool, default=False
        A progress bar over the budget.

    Returns
    -------
    ClusteringSimulation

    Notes
    -----
    Seed 003, chapter 2, §2.6: methods are evaluated by the misclustering
    error relative to spectral clustering of the complete matrix. The noise
    of §2.5 is simulated as :class:`~paucity.clustering.BetaNoise` says. With
    an integer ``random_state`` the noise draws from a generator seeded by
    (random_state, 1), the loop from random_state.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (15, 2)), rng.normal(4, 1, (15, 2))]
    >>> W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    >>> result = simulate(W, budget=0.3, random_state=0)
    >>> result.n_queries, result.n_pairs, round(result.error, 3)
    (130, 435, 0.0)
    >>> result.history.columns.tolist()
    ['n_queries', 'fraction', 'n_components', 'error']
    """
    from .active import ActiveSpectralClustering
    from .oracles import BetaNoise, MatrixOracle
    from .spectral import spectral_bisection

    refuse_unknown(settings, owner="simulate", scope="estimator")
    settings = {**defaults("estimator"), **settings}
    strategy, interleave, random_state = settings["strategy"], settings["interleave"], settings["random_state"]
    n_clusters, cut = settings["n_clusters"], settings["cut"]
    items, W = _named_matrix(similarities)
    check_parameter(concentration, "concentration", [Interval(numbers.Real, 0, None), None], owner="simulate",
                    hint="Larger values mean less noise; 10 is a noisy crowd, 100 a careful one.")
    check_parameter(adversarial, "adversarial", [Interval(numbers.Real, 0, 1)], owner="simulate",
                    hint="It is the probability that an answer is 1 − w.")
    if concentration is None and adversarial > 0:
        raise ParameterError(
            f"{owner_prefix('simulate')}{given('adversarial', adversarial)} needs a noise model; give "
            f"{spelled('concentration')} too (e.g. {given('concentration', 100)} for careful workers besides the "
            "adversarial ones)."
        )
    check_interleave(strategy, interleave, owner="simulate")
    check_parameter(random_state, "random_state", [RANDOM_STATE], owner="simulate")
    model = ActiveSpectralClustering(progress=progress, **settings)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        noise_state = np.random.default_rng([int(random_state), 1])
    else:
        noise_state = check_random_state(random_state)
    noise = None if concentration is None else BetaNoise(concentration=concentration, adversarial=adversarial)
    oracle = MatrixOracle(W, noise=noise, random_state=noise_state)
    if isinstance(n_clusters, numbers.Integral) and not isinstance(n_clusters, bool) and 2 <= n_clusters <= len(items):
        reference = spectral_bisection(W, n_clusters=int(n_clusters), cut=cut)
    else:  # the estimator says what is wrong
        reference = np.zeros(len(items), dtype=np.int64)
    model.fit(oracle, reference=reference)
    from .metrics import misclustering_error

    queries = model.queries_.copy()
    names = np.asarray(items, dtype=object)
    queries["i"] = names[queries["i"].to_numpy()]
    queries["j"] = names[queries["j"].to_numpy()]
    n = len(items)
    return ClusteringSimulation(
        items=tuple(items),
        labels=np.asarray(model.labels_),
        reference=np.asarray(reference),
        embedding=np.asarray(model.embedding_),
        error=float(misclustering_error(model.labels_, reference)),
        history=model.history_,
        queries=queries,
        n_queries=int(model.n_queries_),
        budget=int(model.budget_),
        n_pairs=n * (n - 1) // 2,
        strategy=str(model.get_params()["strategy"]).lower(),
    )


def _named_matrix(similarities) -> tuple[list[str], np.ndarray]:
    """Item names and a checked complete matrix (diagonal set to 1): messages name the items."""
    if isinstance(similarities, pd.DataFrame):
        rows = [str(name) for name in similarities.index]
        columns = [str(name) for name in similarities.columns]
        if len(rows) != len(columns):
            raise ShapeMismatchError(
                f"similarities must be a square matrix (one row and one column per item), got {len(rows)} rows and "
                f"{len(columns)} columns."
            )
        refuse_repeated(rows, "similarities names the row")
        refuse_repeated(columns, "similarities names the column")
        if set(rows) != set(columns):
            missing = next(name for name in rows if name not in set(columns))
            raise InputError(
                f"similarities has a row {missing!r} but no column of that name; the rows and columns must name "
                "the same items."
            )
        frame = similarities.copy()
        frame.index, frame.columns = rows, columns
        frame = frame.loc[:, rows]
        try:
            W = frame.to_numpy(dtype=np.float64, copy=True)  # written into below; pandas 3 may hand out a read-only view
        except (TypeError, ValueError):
            raise InputTypeError("similarities must hold numbers (similarities in [0, 1]).") from None
        items = rows
    else:
        try:
            W = np.array(similarities, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputTypeError("similarities must be a matrix of numbers (similarities in [0, 1]).") from None
        if W.ndim != 2 or W.shape[0] != W.shape[1]:
            raise ShapeMismatchError(
                f"similarities must be a square matrix (one row and one column per item), got shape {W.shape}."
            )
        items = [str(k) for k in range(W.shape[0])]
    n = len(items)
    if n < MIN_ITEMS:
        raise InputError(
            f"similarities has {n} item(s), but clustering by spectral bisection needs at least {MIN_ITEMS}."
        )
    np.fill_diagonal(W, 1.0)
    missing = np.isnan(W)
    if missing.any():
        i, j = (int(v) for v in np.argwhere(missing)[0])
        raise InputError(
            f"similarities has no value for the pair ({items[i]!r}, {items[j]!r}) (an empty cell, NaN, or a pair "
            "missing from a long table); a simulation needs the complete matrix."
        )
    outside = ~np.isfinite(W) | (W < 0) | (W > 1)
    if outside.any():
        i, j = (int(v) for v in np.argwhere(outside)[0])
        raise InputError(
            f"similarities has {float(W[i, j])!r} for the pair ({items[i]!r}, {items[j]!r}); similarities must be "
            "in [0, 1]. Rescale them (e.g. divide by the largest possible value)."
        )
    asymmetry = np.abs(W - W.T)
    if asymmetry.max() > SYMMETRY_TOLERANCE:
        i, j = (int(v) for v in np.unravel_index(int(np.argmax(asymmetry)), W.shape))
        i, j = min(i, j), max(i, j)
        raise InputError(
            f"similarities is not symmetric: ({items[i]!r}, {items[j]!r}) is {float(W[i, j])!r} but "
            f"({items[j]!r}, {items[i]!r}) is {float(W[j, i])!r}; a similarity does not depend on the order of the "
            "pair (average the two if both were measured)."
        )
    return items, (W + W.T) * 0.5
