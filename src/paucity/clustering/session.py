"""Clustering by item names, from files and databases: a simulation on a complete matrix, and the human loop.

What ``paucity cluster-active`` and ``paucity cluster-session`` run, for
people whose items have names rather than indices:

- :func:`read_similarities` reads a complete similarity matrix (a square
  table or a long table of pairs) and :func:`simulate` runs the active loop
  on it, measuring the error against the clustering of the complete matrix
  (:class:`ClusteringSimulation`).
- :func:`next_pairs` starts or resumes a session in a database and gives the
  pairs to ask people next (:class:`SessionAsks`); :func:`record_answers`
  records their answers (read by :func:`read_answers`) and clusters
  (:class:`SessionAnswers`); :func:`withdraw_asks` takes back asks that will
  never be answered, read by :func:`read_pairs` (:class:`SessionWithdrawal`).
  :func:`read_items` reads the list of items.

A session is an :class:`~paucity.clustering.ActiveSpectralClustering` with a
:class:`~paucity.clustering.MeasurementStore`; the store also keeps the item
names and the session's settings, so that a later call (in another process,
after a crash) needs only the database. Item names are text, exactly as
written in the files.
"""

from __future__ import annotations

import json
import numbers
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError, ReaderError, ShapeMismatchError
from .._validation import RANDOM_STATE, Instance, Interval, check_parameter, check_random_state
from ._checks import MIN_ITEMS, SYMMETRY_TOLERANCE

__all__ = [
    "ClusteringSimulation",
    "SessionAsks",
    "SessionAnswers",
    "SessionWithdrawal",
    "read_similarities",
    "simulate",
    "read_items",
    "read_answers",
    "next_pairs",
    "record_answers",
    "read_pairs",
    "withdraw_asks",
]

#: Settings of a session kept in its database (as JSON under the key ``"session"``).
SETTINGS = ("strategy", "interleave", "budget", "repeats", "batch_size", "n_clusters", "random_state")
#: Settings that a resumed session keeps: changing them would make a different session.
FIXED_SETTINGS = ("strategy", "interleave", "repeats", "n_clusters", "random_state")
#: Settings of a new session left unset.
SESSION_DEFAULTS = {
    "strategy": "iu_red",
    "interleave": False,
    "budget": 0.1,
    "repeats": 1,
    "batch_size": 20,
    "n_clusters": 2,
    "random_state": None,
}
_ITEMS_KEY = "items"
_SETTINGS_KEY = "session"
_SHOWN = 5  # names shown in a message before "..."


# -- results -------------------------------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class SessionAsks:
    """What :func:`next_pairs` returns: every pair waiting for an answer, and the state of the session.

    Attributes
    ----------
    pairs : pandas.DataFrame
        Columns i, j (item names) and value (empty, for the answer): every pair asked and not yet
        answered, in the order asked; the last ``n_new`` were chosen by this call.
    n_new : int
        Pairs chosen by this call.
    n_items : int
    n_measured : int
        Answers recorded so far.
    budget : int
        The session's budget in measurements.
    created : bool
        True when this call started the session.
    settings : dict
        The session's settings (strategy, interleave, budget, repeats, batch_size, n_clusters, random_state).
    """

    pairs: pd.DataFrame
    n_new: int
    n_items: int
    n_measured: int
    budget: int
    created: bool
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The pairs to ask: i, j, value (empty)."""
        return self.pairs.copy()

    @property
    def spent(self) -> bool:
        """True when the budget is spent and no pair waits for an answer."""
        return len(self.pairs) == 0 and self.n_measured >= self.budget


@dataclass(frozen=True)
class SessionAnswers:
    """What :func:`record_answers` returns: what was recorded, and the clustering of every answer so far.

    Attributes
    ----------
    n_recorded : int
        Answers recorded by this call.
    n_read_before : int
        Rows skipped because the same answer to the same pair is in the database already (the file was
        read before).
    n_unanswered : int
        Rows skipped because their value is empty (not answered yet).
    n_measured : int
        Answers in the database.
    n_pending : int
        Pairs still waiting for an answer.
    budget : int
    items : tuple of str
    labels : ndarray of int
        The clustering of every answer so far (0..n_clusters−1, item 0 in cluster 0).
    embedding : ndarray
        v̂₂ of the current estimate Ŵ.
    """

    n_recorded: int
    n_read_before: int
    n_unanswered: int
    n_measured: int
    n_pending: int
    budget: int
    items: tuple
    labels: np.ndarray
    embedding: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, embedding."""
        return pd.DataFrame({"item": list(self.items), "label": self.labels, "embedding": self.embedding})

    def cluster_sizes(self) -> dict[int, int]:
        """Items per cluster."""
        labels, counts = np.unique(self.labels, return_counts=True)
        return {int(label): int(count) for label, count in zip(labels, counts)}


@dataclass(frozen=True)
class SessionWithdrawal:
    """What :func:`withdraw_asks` returns: the asks withdrawn, and the state of the session.

    Attributes
    ----------
    withdrawn : pandas.DataFrame
        Columns i, j (item names): the pairs withdrawn, i before j in the session's order of items; in the
        order given, or when every ask was withdrawn in the order asked.
    n_pending : int
        Pairs still waiting for an answer.
    n_measured : int
        Answers recorded so far.
    budget : int
        The session's budget in measurements (withdrawn asks no longer count against it).
    """

    withdrawn: pd.DataFrame
    n_pending: int
    n_measured: int
    budget: int

    @property
    def n_withdrawn(self) -> int:
        """Asks withdrawn."""
        return len(self.withdrawn)

    def to_frame(self) -> pd.DataFrame:
        """The pairs withdrawn: i, j."""
        return self.withdrawn.copy()


# -- reading files -------------------------------------------------------------------------------------------------
def read_similarities(path, *, i_column: str | None = None, j_column: str | None = None,
                      value_column: str | None = None) -> pd.DataFrame:
    """Read a complete matrix of similarities, with item names, from a table.

    Two layouts are read:

    - a **square** table: the first column holds the item names and the
      header holds the same names (in any order), as ``DataFrame.to_csv``
      writes a matrix with names as index and columns (the header's first
      field may be empty); the diagonal is not used;
    - a **long** table with one row per pair: columns ``i``, ``j`` (item
      names) and ``value`` (the similarity), or the columns named by
      ``i_column``, ``j_column``, ``value_column``. Each pair once, in either
      order (both orders are accepted when they agree); rows pairing an item
      with itself are not used.

    A table with columns ``i``, ``j`` and ``value`` (or with any of the three
    column names given) is read as long, any other as square. Names are read
    as text: ``00024`` stays ``00024``, ``NA`` is a name.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file.
    i_column, j_column, value_column : str, optional
        Columns of a long table (default ``i``, ``j``, ``value``).

    Returns
    -------
    pandas.DataFrame
        The square matrix, item names as index and columns (in the order of
        first appearance), float64; NaN where a long table has no value for a
        pair. Values are not checked here (:func:`simulate` checks them).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pairs.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,0.9\\nNA,b,0.2\\nb,00024,0.1\\n")
    >>> read_similarities(path)
           00024   NA    b
    00024    1.0  0.9  0.1
    NA       0.9  1.0  0.2
    b        0.1  0.2  1.0
    """
    from ..io.formats import existing_file, file_ending, table_endings

    path = existing_file(Path(path))
    named = {"i": i_column, "j": j_column, "value": value_column}
    columns = {key: (value if value is not None else key) for key, value in named.items()}
    ending = file_ending(path, table_endings() + (".parquet",))
    header = _header(path, ending)
    long = any(value is not None for value in named.values()) or set(columns.values()) <= set(header)
    if long:
        return _square_from_long(path, columns)
    return _read_square(path, ending, header)


def _header(path: Path, ending: str) -> list[str]:
    from ..io.formats import SEPARATORS, check_unique_columns, reading

    if ending == ".parquet":
        import pyarrow.parquet as pq

        with reading(path, "a parquet file"):
            names = [str(name) for name in pq.read_schema(path).names]
    else:
        with reading(path, "a table"):
            first = pd.read_csv(path, sep=SEPARATORS[ending.removesuffix(".gz")], header=None, nrows=1, dtype=str,
                                keep_default_na=False)
        names = [str(name) for name in first.iloc[0]] if len(first) else []
    check_unique_columns(names, path)
    return names


def _read_square(path: Path, ending: str, header: list[str]) -> pd.DataFrame:
    from ..io.formats import MISSING_MARKERS, SEPARATORS, reading

    if ending == ".parquet":
        with reading(path, "a parquet file"):
            frame = pd.read_parquet(path)
        if not isinstance(frame.index, pd.RangeIndex):  # names stored as the index
            frame = frame.reset_index()
        names = frame.iloc[:, 0].astype(str).where(frame.iloc[:, 0].notna())
        values = frame.iloc[:, 1:]
        values.columns = [str(column) for column in values.columns]
    else:
        if len(header) < 2:
            raise ReaderError(
                f"{path} has a single column; a square similarity matrix has the item names in its first column "
                "and one column per item (check the separator: ',' for .csv, tab for .tsv)."
            )
        with reading(path, "a table"), warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            try:
                frame = pd.read_csv(
                    path,
                    sep=SEPARATORS[ending.removesuffix(".gz")],
                    dtype={header[0]: str},
                    keep_default_na=False,
                    na_values={name: MISSING_MARKERS for name in header[1:]},
                    index_col=False,
                    float_precision="round_trip",  # the numbers written, exactly
                )
            except pd.errors.ParserWarning:
                raise ReaderError(
                    f"{path} has rows longer than its header: the header of a square matrix names the item column "
                    "first (e.g. item), then one column per item."
                ) from None
        names = frame.iloc[:, 0].mask(frame.iloc[:, 0] == "")
        values = frame.iloc[:, 1:]
    if frame.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows.")
    if names.isna().any():
        row = int(names.isna().to_numpy().argmax())
        raise InputError(f"{path} has no item name in data row {row + 1} (its first column); name every row.")
    names = [str(name) for name in names]
    _refuse_repeated(names, f"{path} names the row")
    columns = list(values.columns)
    if len(names) != len(columns) or set(names) != set(columns):
        if len(names) != len(columns):
            raise ShapeMismatchError(
                f"{path} is not a square matrix: it has {len(names)} rows and {len(columns)} columns of similarities; "
                "a complete matrix has one row and one column per item, with the same names (or give a long table "
                "with columns i, j and value)."
            )
        missing = next(name for name in names if name not in set(columns))
        raise InputError(
            f"{path} is not a square matrix: row {missing!r} has no column of that name; the header must name the "
            "same items as the first column (or give a long table with columns i, j and value)."
        )
    for column in columns:
        if values[column].dtype.kind not in "fiub":
            converted = pd.to_numeric(values[column], errors="coerce")
            bad = converted.isna() & values[column].notna()
            row = int(bad.to_numpy().argmax())
            raise InputError(
                f"{path} has {values[column].iloc[row]!r} in row {names[row]!r}, column {column!r}; similarities "
                "must be numbers in [0, 1]."
            )
    matrix = pd.DataFrame(values.to_numpy(dtype=np.float64), index=pd.Index(names), columns=pd.Index(columns))
    return matrix.loc[:, names]


def _square_from_long(path: Path, columns: dict) -> pd.DataFrame:
    from .. import io

    frame = io.read_frame(path, text_columns=[columns["i"], columns["j"]])
    _check_columns(frame, path, columns)
    first, second = frame[columns["i"]], frame[columns["j"]]
    for column, names in ((columns["i"], first), (columns["j"], second)):
        if names.isna().any():
            row = int(names.isna().to_numpy().argmax())
            raise InputError(f"{path} has no item name in column {column!r}, data row {row + 1}; name every item.")
    values = _numbers(frame[columns["value"]], path, columns["value"])
    items = list(pd.unique(np.column_stack([first.to_numpy(), second.to_numpy()]).ravel()))
    position = {name: k for k, name in enumerate(items)}
    a = np.array([position[name] for name in first], dtype=np.int64)
    b = np.array([position[name] for name in second], dtype=np.int64)
    off = a != b
    rows = np.flatnonzero(off)
    a, b, values = a[off], b[off], values[off]
    n = len(items)
    matrix = np.full((n, n), np.nan)
    np.fill_diagonal(matrix, 1.0)
    seen = np.full((n, n), -1, dtype=np.int64)
    for k, (i, j, value) in enumerate(zip(a, b, values)):
        if seen[i, j] >= 0:
            raise InputError(
                f"{path} gives the pair ({items[i]!r}, {items[j]!r}) twice (data rows {rows[seen[i, j]] + 1} and "
                f"{rows[k] + 1}); give each pair once."
            )
        seen[i, j] = k
        if seen[j, i] >= 0 and not (matrix[j, i] == value or (np.isnan(matrix[j, i]) and np.isnan(value))):
            raise InputError(
                f"{path} is not symmetric: ({items[j]!r}, {items[i]!r}) is {matrix[j, i]!r} (data row "
                f"{rows[seen[j, i]] + 1}) but ({items[i]!r}, {items[j]!r}) is {float(value)!r} (data row "
                f"{rows[k] + 1}); a similarity does not depend on the order of the pair."
            )
        matrix[i, j] = matrix[j, i] = value
    return pd.DataFrame(matrix, index=pd.Index(items), columns=pd.Index(items))


def _check_columns(frame: pd.DataFrame, path, columns: dict, *, what: str = "of the two items and of the value") -> None:
    for role, column in columns.items():
        if column not in frame.columns:
            shown = ", ".join(repr(str(name)) for name in list(frame.columns)[:10])
            raise InputError(
                f"{path} has no column {column!r} (the {role} column); its columns are {shown}. Name the columns "
                f"{what}."
            )


def _numbers(column: pd.Series, path, name: str) -> np.ndarray:
    """A column as float64; text that is not a number is an error naming its row (empty stays NaN)."""
    if column.dtype.kind in "fiub":
        return column.to_numpy(dtype=np.float64)
    converted = pd.to_numeric(column, errors="coerce")
    bad = converted.isna() & column.notna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(
            f"{path} has {column.iloc[row]!r} in column {name!r}, data row {row + 1}; a similarity is a number in "
            "[0, 1] (leave it empty when it is not known yet)."
        )
    return converted.to_numpy(dtype=np.float64)


def _refuse_repeated(names: Sequence[str], where: str) -> None:
    seen: set = set()
    for name in names:
        if name in seen:
            raise InputError(f"{where} {name!r} twice; every item needs its own name.")
        seen.add(name)


# -- the simulation ------------------------------------------------------------------------------------------------
def simulate(similarities, *, strategy="iu_red", budget=0.1, repeats=1, batch_size=1, interleave=False, n_clusters=2,
             concentration=None, adversarial=0.0, random_state=None, progress=False) -> ClusteringSimulation:
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
    strategy, budget, repeats, batch_size, interleave, n_clusters, random_state
        As :class:`~paucity.clustering.ActiveSpectralClustering`.
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

    items, W = _named_matrix(similarities)
    check_parameter(concentration, "concentration", [Interval(numbers.Real, 0, None), None], owner="simulate",
                    hint="Larger values mean less noise; 10 is a noisy crowd, 100 a careful one.")
    check_parameter(adversarial, "adversarial", [Interval(numbers.Real, 0, 1)], owner="simulate",
                    hint="It is the probability that an answer is 1 − w.")
    if concentration is None and adversarial > 0:
        raise ParameterError(
            f"simulate: adversarial={adversarial!r} needs a noise model; give concentration too (e.g. "
            "concentration=100 for careful workers besides the adversarial ones)."
        )
    check_parameter(random_state, "random_state", [RANDOM_STATE], owner="simulate")
    model = ActiveSpectralClustering(
        strategy=strategy, interleave=interleave, budget=budget, repeats=repeats, batch_size=batch_size,
        n_clusters=n_clusters, random_state=random_state, progress=progress,
    )
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        noise_state = np.random.default_rng([int(random_state), 1])
    else:
        noise_state = check_random_state(random_state)
    noise = None if concentration is None else BetaNoise(concentration=concentration, adversarial=adversarial)
    oracle = MatrixOracle(W, noise=noise, random_state=noise_state)
    if isinstance(n_clusters, numbers.Integral) and not isinstance(n_clusters, bool) and 2 <= n_clusters <= len(items):
        reference = spectral_bisection(W, n_clusters=int(n_clusters))
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
        _refuse_repeated(rows, "similarities names the row")
        _refuse_repeated(columns, "similarities names the column")
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
            W = frame.to_numpy(dtype=np.float64)
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


# -- the human loop ------------------------------------------------------------------------------------------------
def read_items(path, *, item_column: str | None = None) -> list[str]:
    """The item names of a table with a header row: the column ``item_column``, else the first; read as text.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("photo,room\\n00024.jpg,kitchen\\nNA,hall\\n")
    >>> read_items(path)
    ['00024.jpg', 'NA']
    """
    from .. import io

    path = Path(path)
    if item_column is None:
        from ..io.formats import existing_file, file_ending, table_endings

        ending = file_ending(existing_file(path), table_endings() + (".parquet",))
        header = _header(path, ending)
        if not header:
            raise ReaderError(f"{path} has no header row; name the item column in the first line (e.g. item).")
        item_column = header[0]
    frame = io.read_frame(path, text_columns=[item_column])
    if item_column not in frame.columns:
        shown = ", ".join(repr(str(name)) for name in list(frame.columns)[:10])
        raise InputError(f"{path} has no column {item_column!r} (the item column); its columns are {shown}.")
    names = frame[item_column]
    if names.isna().any():
        row = int(names.isna().to_numpy().argmax())
        raise InputError(f"{path} has no item name in column {item_column!r}, data row {row + 1}; name every item.")
    return [str(name) for name in names]


def read_answers(path, *, i_column: str = "i", j_column: str = "j", value_column: str = "value") -> pd.DataFrame:
    """Read answers: one row per answered pair, the two item names and the similarity.

    A row whose value is empty (or ``NA``) has not been answered yet; it is
    kept with value NaN (:func:`record_answers` skips it). The pairs of
    :func:`next_pairs` written as a table (columns i, j, value) are read as
    they are once the value column is filled.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file with a header row.
    i_column, j_column, value_column : str
        The columns of the two items (read as text) and of the similarity.

    Returns
    -------
    pandas.DataFrame
        Columns i, j (str) and value (float64, NaN when empty), indexed by
        the data row number (from 1), named ``row``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "answers.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,0.9\\nNA,b,\\n")
    >>> read_answers(path)
             i   j  value
    row                  
    1    00024  NA    0.9
    2       NA   b    NaN
    """
    from .. import io

    columns = {"i": i_column, "j": j_column, "value": value_column}
    for role, column in columns.items():
        check_parameter(column, f"{role}_column", [_TEXT], owner="read_answers")
    frame = io.read_frame(path, text_columns=[i_column, j_column])
    _check_columns(frame, path, columns)
    values = _numbers(frame[value_column], path, value_column)
    answers = pd.DataFrame(
        {"i": frame[i_column].to_numpy(dtype=object), "j": frame[j_column].to_numpy(dtype=object), "value": values},
        index=pd.RangeIndex(1, len(frame) + 1, name="row"),
    )
    answered = ~np.isnan(values)
    for role, column in (("i", i_column), ("j", j_column)):
        missing = answers[role].isna().to_numpy() & answered
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise InputError(
                f"{path} answers data row {row + 1} but names no item in column {column!r}; name both items."
            )
    return answers


def read_pairs(path, *, i_column: str = "i", j_column: str = "j") -> pd.DataFrame:
    """Read a list of pairs of items: one row per pair, the two item names (other columns are not used).

    The asks file that :func:`next_pairs` gives, written as a table, is one;
    :func:`withdraw_asks` takes what this returns.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file with a header row and at least one row.
    i_column, j_column : str
        The columns of the two items (read as text).

    Returns
    -------
    pandas.DataFrame
        Columns i and j (str), indexed by the data row number (from 1), named ``row``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pairs.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,\\nb,00024,\\n")
    >>> read_pairs(path)
             i      j
    row              
    1    00024     NA
    2        b  00024
    """
    from .. import io

    columns = {"i": i_column, "j": j_column}
    for role, column in columns.items():
        check_parameter(column, f"{role}_column", [_TEXT], owner="read_pairs")
    frame = io.read_frame(path, text_columns=[i_column, j_column])
    _check_columns(frame, path, columns, what="of the two items")
    pairs = pd.DataFrame(
        {"i": frame[i_column].to_numpy(dtype=object), "j": frame[j_column].to_numpy(dtype=object)},
        index=pd.RangeIndex(1, len(frame) + 1, name="row"),
    )
    for role, column in columns.items():
        missing = pairs[role].isna().to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise InputError(f"{path} has no item name in column {column!r}, data row {row + 1}; name both items.")
    return pairs


def next_pairs(database, items=None, *, strategy=None, interleave=None, budget=None, repeats=None, batch_size=None,
               n_clusters=None, random_state=None) -> SessionAsks:
    """Start or resume a session in a database, and give the pairs to ask next.

    The pairs waiting for an answer are topped up to ``batch_size`` by one
    eigen-update: pairs asked earlier and not yet answered come first, then
    the new ones. Calling it again before any answer comes therefore gives
    the same pairs, which makes it safe to repeat after a crash.

    Parameters
    ----------
    database : str or path-like
        A database file (SQLite, created when missing) or an SQLAlchemy URL.
    items : sequence of str, optional
        The item names, needed to start a session; when resuming, they must be
        the session's (same names, same order), or be left out.
    strategy, interleave, budget, repeats, batch_size, n_clusters, random_state : optional
        As :class:`~paucity.clustering.ActiveSpectralClustering` (strategy
        ``"iu_red"``, budget 0.1, batch_size 20, repeats 1, n_clusters 2 when a
        session starts without them). A resumed session keeps its own; only
        ``budget`` and ``batch_size`` may change (a larger budget continues
        a finished session), and the others, when given, must equal the
        session's. ``random_state`` is an integer or None.

    Returns
    -------
    SessionAsks

    Notes
    -----
    Nothing is written to a new database when the call fails: the file is
    removed again.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> database = pathlib.Path(tempfile.mkdtemp()) / "photos.db"
    >>> asks = next_pairs(database, ["a", "b", "c", "d", "e"], budget=6, batch_size=3, random_state=0)
    >>> len(asks.pairs), asks.n_new, asks.budget, asks.pairs.columns.tolist()
    (3, 3, 6, ['i', 'j', 'value'])
    >>> next_pairs(database).n_new  # nothing answered yet: the same three pairs, none new
    0
    """
    from .active import ActiveSpectralClustering

    given = {"strategy": strategy, "interleave": interleave, "budget": budget, "repeats": repeats,
             "batch_size": batch_size, "n_clusters": n_clusters, "random_state": random_state}
    check_parameter(random_state, "random_state", [Interval(numbers.Integral, 0, None), None], owner="next_pairs",
                    hint="A session keeps its seed in the database, so it must be an integer.")
    if items is not None:
        items = _check_items(items)
    with _opened(database, create=True) as (store, created):
        meta = store.metadata
        stored_items = _stored_items(meta)
        if stored_items is None and items is None:
            where = "is a new database" if created or (store.n_items is None) else "holds no item names"
            raise ParameterError(
                f"{_shown(store)} {where}; give items=... (the names of the items to cluster) to start a session."
            )
        if stored_items is not None and items is not None and items != stored_items:
            raise InputError(f"{_items_differ(stored_items, items)}; leave the items out to resume, or start a new database.")
        names = stored_items if stored_items is not None else items
        settings = _settings(meta, given, fresh=stored_items is None)
        model = ActiveSpectralClustering(
            strategy=settings["strategy"], interleave=settings["interleave"], budget=settings["budget"],
            repeats=settings["repeats"], batch_size=settings["batch_size"], n_clusters=settings["n_clusters"],
            random_state=settings["random_state"], store=store,
        )
        params = _validated(model)
        settings = {name: _plain(params[name]) for name in SETTINGS}
        n = len(names)
        store.set_n_items(n)
        # opening the estimator's session reads the store and checks the settings against n (the budget, the
        # number of clusters) before they are kept
        model.tell(np.empty((0, 2), dtype=np.int64), np.empty(0))
        store.update_metadata({_ITEMS_KEY: json.dumps(names), _SETTINGS_KEY: json.dumps(settings)})
        waiting = len(store.pending())
        new = np.empty((0, 2), dtype=np.int64)
        if params["batch_size"] > waiting:
            new = model.ask(params["batch_size"] - waiting)
        pending = store.pending()
        measured = len(store)
    return SessionAsks(
        pairs=_named_pairs(pending, names),
        n_new=len(new),
        n_items=n,
        n_measured=measured,
        budget=int(model.budget_),
        created=stored_items is None,
        settings=settings,
    )


def record_answers(database, answers, *, source: str = "answers") -> SessionAnswers:
    """Record answers to the pairs a session asked, and cluster every answer so far.

    Each answered row must name a pair that waits for an answer (asked by
    :func:`next_pairs` and not answered yet), in either order, once. Rows
    with an empty value are skipped (not answered yet). A row naming a pair
    that does not wait for an answer is an error, unless the same answer
    (same pair, same value) is recorded already: the file was read before
    (perhaps by a run that was interrupted), and the row is skipped. So
    reading a file again, or again after filling in more of it, records each
    answer once. All the answers of a call are recorded in one transaction.

    Parameters
    ----------
    database : str or path-like
        The session's database.
    answers : pandas.DataFrame
        Columns i, j (item names) and value (the similarity in [0, 1], NaN
        when not answered yet), as :func:`read_answers` gives.
    source : str, default="answers"
        Who answered (a file name, an annotator), stored with each answer.

    Returns
    -------
    SessionAnswers

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> database = pathlib.Path(tempfile.mkdtemp()) / "photos.db"
    >>> asks = next_pairs(database, ["a", "b", "c", "d", "e"], budget=6, batch_size=3, random_state=0)
    >>> answers = asks.pairs.assign(value=[0.9, 0.8, 0.1])
    >>> done = record_answers(database, answers, source="annotator-7")
    >>> done.n_recorded, done.n_measured, done.n_pending
    (3, 3, 0)
    >>> record_answers(database, answers).n_read_before  # the same answers again: recorded once
    3
    """
    from .active import ActiveSpectralClustering

    check_parameter(source, "source", [_TEXT], owner="record_answers")
    frame = _answers_frame(answers)
    with _opened(database, create=False) as (store, _):
        meta = store.metadata
        names = _stored_items(meta)
        if names is None:
            raise InputError(
                f"{_shown(store)} holds no session with item names; start one with next_pairs(database, items=...)."
            )
        settings = _settings(meta, {}, fresh=False)
        position = {name: k for k, name in enumerate(names)}
        answered = ~np.isnan(frame["value"].to_numpy())
        rows = frame.index[answered]
        first = frame["i"].to_numpy()[answered]
        second = frame["j"].to_numpy()[answered]
        values = frame["value"].to_numpy()[answered]
        pairs = np.empty((len(rows), 2), dtype=np.int64)
        for k, (row, a, b) in enumerate(zip(rows, first, second)):
            for name in (a, b):
                if name not in position:
                    raise InputError(
                        f"answers row {row} names {name!r}, which is not an item of the session "
                        f"({_few(names)}); check the spelling (names are compared as text, exactly)."
                    )
            if a == b:
                raise InputError(f"answers row {row} pairs {a!r} with itself; a similarity is between two items.")
            pairs[k] = sorted((position[a], position[b]))
        outside = (values < 0) | (values > 1) | ~np.isfinite(values)
        if outside.any():
            k = int(np.flatnonzero(outside)[0])
            raise InputError(
                f"answers row {rows[k]} gives {float(values[k])!r} for ({first[k]!r}, {second[k]!r}); similarities "
                "must be in [0, 1]. Rescale the answers (e.g. a rating r on 1..10 as r / 10)."
            )
        waiting: dict[tuple[int, int], int] = {}
        for i, j in store.pending():
            waiting[(int(i), int(j))] = waiting.get((int(i), int(j)), 0) + 1
        recorded: dict[tuple[int, int], list[float]] = {}
        measured = store.measurements()
        for i, j, value in zip(measured["i"].to_numpy(), measured["j"].to_numpy(), measured["value"].to_numpy()):
            recorded.setdefault((int(i), int(j)), []).append(float(value))
        take = np.zeros(len(rows), dtype=bool)
        taken_at: dict[tuple[int, int], object] = {}
        for k, (i, j) in enumerate(pairs):
            key = (int(i), int(j))
            shown = f"({first[k]!r}, {second[k]!r})"
            if waiting.get(key, 0) > 0:
                waiting[key] -= 1
                take[k] = True
                taken_at[key] = rows[k]
            elif float(values[k]) in recorded.get(key, ()):
                continue  # read before
            elif key in taken_at:
                raise InputError(
                    f"answers rows {taken_at[key]} and {rows[k]} both answer {shown}, which was asked once; keep one "
                    "of the two rows."
                )
            elif key in recorded:
                raise InputError(
                    f"answers row {rows[k]} answers {shown}, which was answered already ({len(recorded[key])} "
                    f"answer(s) recorded) and does not wait for another; remove the row."
                )
            else:
                raise InputError(
                    f"answers row {rows[k]} answers {shown}, which was never asked (or was withdrawn); answer only the "
                    "pairs the session asked for."
                )
        model = ActiveSpectralClustering(
            strategy=settings["strategy"], interleave=settings["interleave"], budget=settings["budget"],
            repeats=settings["repeats"], batch_size=settings["batch_size"], n_clusters=settings["n_clusters"],
            random_state=settings["random_state"], store=store,
        )
        model.tell(pairs[take], values[take], source=source)
        n_pending = len(store.pending())
    return SessionAnswers(
        n_recorded=int(take.sum()),
        n_read_before=int(len(rows) - take.sum()),
        n_unanswered=int((~answered).sum()),
        n_measured=int(model.n_queries_),
        n_pending=n_pending,
        budget=int(model.budget_),
        items=tuple(names),
        labels=np.asarray(model.labels_),
        embedding=np.asarray(model.embedding_),
    )


def withdraw_asks(database, pairs=None) -> SessionWithdrawal:
    """Withdraw asks that will never be answered: every pending one, or the pairs named.

    An ask is withdrawn when its answer will not come (the annotator left, the
    pair went out by mistake). A withdrawn pair no longer waits for an answer
    (an answer to it is refused as never asked), no longer counts against the
    budget, and may be asked again by a later :func:`next_pairs`: it was never
    measured, and when nothing else changed the strategy chooses it again, so
    it can go to another annotator. Every row must name a pair that waits for
    an answer, in either order; otherwise nothing is withdrawn. The
    withdrawal is one transaction: a call killed at any point withdrew all or
    nothing.

    Parameters
    ----------
    database : str or path-like
        The session's database.
    pairs : pandas.DataFrame, optional
        Columns i and j (item names), one row per ask to withdraw, as
        :func:`read_pairs` gives (other columns are not used). None withdraws
        every pending ask.

    Returns
    -------
    SessionWithdrawal

    Examples
    --------
    >>> import tempfile, pathlib
    >>> database = pathlib.Path(tempfile.mkdtemp()) / "photos.db"
    >>> asks = next_pairs(database, ["a", "b", "c", "d", "e"], budget=6, batch_size=3, random_state=0)
    >>> done = withdraw_asks(database, asks.pairs.iloc[:1])  # the first pair will never be answered
    >>> done.n_withdrawn, done.n_pending
    (1, 2)
    >>> withdraw_asks(database).n_withdrawn  # every pending ask
    2
    """
    from .active import ActiveSpectralClustering

    frame = None if pairs is None else _pairs_frame(pairs)
    with _opened(database, create=False) as (store, _):
        meta = store.metadata
        names = _stored_items(meta)
        if names is None:
            raise InputError(
                f"{_shown(store)} holds no session with item names; start one with next_pairs(database, items=...)."
            )
        settings = _settings(meta, {}, fresh=False)
        model = ActiveSpectralClustering(
            strategy=settings["strategy"], interleave=settings["interleave"], budget=settings["budget"],
            repeats=settings["repeats"], batch_size=settings["batch_size"], n_clusters=settings["n_clusters"],
            random_state=settings["random_state"], store=store,
        )
        chosen = None if frame is None else _pending_named(frame, names, store)
        withdrawn = model.withdraw(chosen)
        n_pending = len(store.pending())
        n_measured = len(store)
        budget = int(model._session.budget)
    return SessionWithdrawal(
        withdrawn=_named_pairs(withdrawn, names).drop(columns="value"),
        n_pending=n_pending,
        n_measured=n_measured,
        budget=budget,
    )


def _pairs_frame(pairs) -> pd.DataFrame:
    if not isinstance(pairs, pd.DataFrame):
        raise InputTypeError(
            f"pairs must be a pandas DataFrame with columns i and j (read_pairs gives one), or None to withdraw "
            f"every pending ask; got {type(pairs).__name__}."
        )
    _check_columns(pairs, "pairs", {"i": "i", "j": "j"}, what="of the two items")
    if len(pairs) == 0:
        raise InputError("pairs names no pair to withdraw; give one row per ask, or pairs=None to withdraw every "
                         "pending ask.")
    frame = pd.DataFrame({"i": pairs["i"].to_numpy(dtype=object), "j": pairs["j"].to_numpy(dtype=object)},
                         index=pairs.index)
    for role in ("i", "j"):
        missing = frame[role].isna().to_numpy()
        if missing.any():
            row = frame.index[int(np.flatnonzero(missing)[0])]
            raise InputError(f"pairs row {row} has no item in column {role!r}; name both items.")
        frame[role] = [str(name) for name in frame[role]]
    return frame


def _pending_named(frame: pd.DataFrame, names: list[str], store) -> np.ndarray:
    """The rows of ``frame`` as item indices (i < j), each checked to wait for an answer; errors name the row."""
    position = {name: k for k, name in enumerate(names)}
    waiting: dict[tuple[int, int], int] = {}
    for i, j in store.pending():
        waiting[(int(i), int(j))] = waiting.get((int(i), int(j)), 0) + 1
    answered = {(int(i), int(j)) for i, j in store.measurements()[["i", "j"]].to_numpy()}
    n_pending = sum(waiting.values())
    taken_at: dict[tuple[int, int], object] = {}
    pairs = np.empty((len(frame), 2), dtype=np.int64)
    for k, (row, a, b) in enumerate(zip(frame.index, frame["i"], frame["j"])):
        for name in (a, b):
            if name not in position:
                raise InputError(
                    f"pairs row {row} names {name!r}, which is not an item of the session ({_few(names)}); check the "
                    "spelling (names are compared as text, exactly)."
                )
        if a == b:
            raise InputError(f"pairs row {row} pairs {a!r} with itself; an ask is about two items.")
        key = tuple(sorted((position[a], position[b])))
        shown = f"({a!r}, {b!r})"
        if waiting.get(key, 0) == 0:
            if key in taken_at:
                why = f"is named by rows {taken_at[key]} and {row} but was asked once; keep one of the two rows"
            elif key in answered:
                why = "does not wait for an answer (it was answered already)"
            else:
                why = "does not wait for an answer (it was never asked, or was withdrawn)"
            raise InputError(
                f"pairs row {row} withdraws {shown}, which {why}; withdraw only pairs that wait for an answer "
                f"({n_pending} do). Nothing was withdrawn."
            )
        waiting[key] -= 1
        taken_at[key] = row
        pairs[k] = key
    return pairs


# -- the session's bookkeeping -------------------------------------------------------------------------------------
#: A constraint: a string (a column name, a source).
_TEXT = Instance(str, description="a string")


class _opened:
    """Open a session's store; a database file created by a call that fails is removed again."""

    def __init__(self, database, *, create: bool):
        self.database = database
        self.create = create
        self.path = None
        self.store = None

    def __enter__(self):
        from .store import MeasurementStore

        database = self.database
        if isinstance(database, MeasurementStore):
            database = database.url
        if not isinstance(database, (str, os.PathLike)):
            raise ParameterError(f"database must be a file path or an SQLAlchemy URL, got {database!r}.")
        text = os.fspath(database)
        created = False
        if "://" not in text:
            path = Path(text).expanduser()
            created = not path.exists() or path.stat().st_size == 0
            if created and not self.create:
                raise InputError(
                    f"{text} holds no session (the file {'does not exist' if not path.exists() else 'is empty'}); "
                    "start one with items first."
                )
            if created and not path.exists():
                self.path = path
        self.store = MeasurementStore(text)
        return self.store, created

    def __exit__(self, kind, value, traceback):
        if self.store is not None:
            self.store.close()
        if kind is not None and self.path is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        return False


def _shown(store) -> str:
    return store._shown()


def _check_items(items) -> list[str]:
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise InputTypeError(f"items must be a sequence of item names, got {items!r}.")
    names = list(items)
    for k, name in enumerate(names):
        if name is None or (isinstance(name, float) and np.isnan(name)) or str(name) == "":
            raise InputError(f"items has no name at position {k}; name every item.")
    names = [str(name) for name in names]
    _refuse_repeated(names, "items names")
    if len(names) < MIN_ITEMS:
        raise InputError(
            f"items names {len(names)} item(s), but clustering by spectral bisection needs at least {MIN_ITEMS}."
        )
    return names


def _stored_items(meta: dict) -> list[str] | None:
    text = meta.get(_ITEMS_KEY)
    return None if text is None else [str(name) for name in json.loads(text)]


def _items_differ(stored: list[str], given: list[str]) -> str:
    if len(stored) != len(given):
        return f"the session has {len(stored)} items but items names {len(given)}"
    k = next(k for k, (a, b) in enumerate(zip(stored, given)) if a != b)
    return f"the session's item {k} is {stored[k]!r} but items names {given[k]!r} there"


def _settings(meta: dict, given: dict, *, fresh: bool) -> dict:
    """The session's settings: stored ones, then the given ones where allowed."""
    settings = dict(SESSION_DEFAULTS)
    # a store written by ActiveSpectralClustering directly keeps these
    if "strategy" in meta:
        settings["strategy"] = meta["strategy"]
    if "interleave" in meta:
        settings["interleave"] = meta["interleave"] == "True"
    for name in ("repeats", "n_clusters"):
        if name in meta:
            settings[name] = int(meta[name])
    if "seed" in meta:
        settings["random_state"] = int(meta["seed"])
    if _SETTINGS_KEY in meta:
        settings.update(json.loads(meta[_SETTINGS_KEY]))
        if "seed" in meta:
            settings["random_state"] = int(meta["seed"])
    started = not fresh or "seed" in meta
    for name, value in given.items():
        if value is None:
            continue
        if started and name in FIXED_SETTINGS and _differs(name, settings[name], value):
            raise ParameterError(
                f"the session in this database has {name}={settings[name]!r}; {name}={value!r} would make another "
                f"session. Leave {name} out to resume this one, or start a new database."
            )
        settings[name] = value
    return settings


def _differs(name: str, stored, given) -> bool:
    if name == "strategy" and isinstance(given, str) and isinstance(stored, str):
        return given.lower() != stored.lower()
    return stored != given


def _plain(value):
    """A setting as JSON can hold it (numpy numbers become Python ones)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _validated(model) -> dict:
    from .._validation import validate_params

    return validate_params(model)


def _answers_frame(answers) -> pd.DataFrame:
    if not isinstance(answers, pd.DataFrame):
        raise InputTypeError(
            f"answers must be a pandas DataFrame with columns i, j and value (read_answers gives one), got "
            f"{type(answers).__name__}."
        )
    _check_columns(answers, "answers", {"i": "i", "j": "j", "value": "value"})
    values = _numbers(answers["value"], "answers", "value")
    frame = pd.DataFrame({"i": answers["i"].to_numpy(dtype=object), "j": answers["j"].to_numpy(dtype=object),
                          "value": values}, index=answers.index)
    answered = ~np.isnan(values)
    for role in ("i", "j"):
        missing = frame[role].isna().to_numpy() & answered
        if missing.any():
            row = frame.index[int(np.flatnonzero(missing)[0])]
            raise InputError(f"answers row {row} has a value but no item in column {role!r}; name both items.")
    frame["i"] = [None if name is None or (isinstance(name, float) and np.isnan(name)) else str(name)
                  for name in frame["i"]]
    frame["j"] = [None if name is None or (isinstance(name, float) and np.isnan(name)) else str(name)
                  for name in frame["j"]]
    return frame


def _named_pairs(pairs: np.ndarray, names: list[str]) -> pd.DataFrame:
    labels = np.asarray(names, dtype=object)
    return pd.DataFrame(
        {"i": labels[pairs[:, 0]], "j": labels[pairs[:, 1]], "value": np.full(len(pairs), np.nan)}
    )


def _few(names: Sequence[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:_SHOWN])
    return f"{len(names)} items: {shown}{', ...' if len(names) > _SHOWN else ''}"
