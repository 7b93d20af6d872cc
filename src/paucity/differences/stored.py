"""Principal differences as an AnnData holds them: :class:`StoredDifferences`, the one writer and reader.

:func:`~paucity.differences.compare` runs :func:`~paucity.differences.analyze`
and writes its :class:`~paucity.differences.DifferencesResult` into the
AnnData through :meth:`DifferencesResult.write
<paucity.differences.DifferencesResult.write>`, that is through
:meth:`StoredDifferences.write`; :meth:`StoredDifferences.read` (and
:func:`get`, its table) reads it back, from memory or from an ``.h5ad`` file.

What is stored:

- ``adata.uns[key_added]``, a dict: ``"params"`` (the call's parameters,
  h5ad-writable: ``groupby``, ``groups``, ``layer``, ``use_raw``, ``method``,
  ``divergence``, ``n_features`` or ``lam`` — the chosen λ with ``cv`` —,
  ``cv``, ``marginal_normalize``, ``standardize``, ``n_permutations``,
  ``random_state``, the solver settings, and the analysis' scalar results
  ``statistic`` and, with a test, ``pvalue``; those that are None left out),
  and the table of features with non-zero weight as equal-length 1-D arrays:
  ``names``, ``indices``, ``weights``, ``ranks``, ``means_x``, ``means_y``, by
  decreasing |weight| (:meth:`DifferencesResult.to_frame
  <paucity.differences.DifferencesResult.to_frame>`).
- ``adata.var[key_added + "_weight"]``: every gene's weight in β̂ (0 off the
  selection; genes of ``adata.var`` that were not in the matrix read get NaN).

``write_h5ad`` keeps all of it; the dict comes back with its keys sorted and
``params["groups"]`` as an array, which :meth:`StoredDifferences.read` turns
back into the list it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError
from .._json import plain

__all__ = ["StoredDifferences", "get", "DEFAULT_KEY", "COLUMNS"]

#: Where :func:`~paucity.differences.compare` stores its result by default.
DEFAULT_KEY = "paucity_differences"
#: The table's columns, in order, with the dtype each is read back as.
COLUMNS = {"names": str, "indices": np.int64, "weights": np.float64, "ranks": np.int64, "means_x": np.float64,
           "means_y": np.float64}
#: How many of ``adata.uns``'s keys an error names.
_SHOWN_KEYS = 20


@dataclass(frozen=True, eq=False)
class StoredDifferences:
    """A principal differences analysis as stored in an AnnData: its parameters and its table of genes.

    Attributes
    ----------
    params : dict
        ``adata.uns[key]["params"]`` (module docstring): the call's parameters
        and the scalar results ``statistic`` and ``pvalue``, as plain Python
        values (``groups`` a list of two names).
    table : pandas.DataFrame
        The genes with non-zero weight, by decreasing |weight|: ``names``,
        ``indices`` (columns of the matrix read), ``weights``, ``ranks``,
        ``means_x`` and ``means_y`` (mean expression in each group, before any
        normalization).
    weights : pandas.Series or None
        Every gene's weight in β̂, by gene name: the whole direction when built
        from an analysis, ``adata.var[key + "_weight"]`` when read back (None
        when that column is gone). :meth:`write` puts it in ``adata.var``.

    Two are equal when their ``params`` and ``table`` are, which is what
    ``adata.uns[key]`` holds.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> from paucity.differences import analyze
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 4)); X[60:, 3] *= 4.0
    >>> obs = pd.DataFrame({"kind": ["a"] * 60 + ["b"] * 60}, index=[str(i) for i in range(120)])
    >>> adata = anndata.AnnData(X, obs=obs)
    >>> result = analyze(X[:60], X[60:], n_features=1, groups=("a", "b"), random_state=0)
    >>> stored = StoredDifferences.from_result(result, groupby="kind", use_raw=False)
    >>> stored.write(adata)
    >>> back = StoredDifferences.read(adata)
    >>> back == stored, back.groups, back.table["names"].tolist()
    (True, ('a', 'b'), ['x3'])
    """

    params: dict
    table: pd.DataFrame
    weights: pd.Series | None = None

    # -- views ---------------------------------------------------------------------------------------------------
    @property
    def groups(self) -> tuple:
        """The two groups compared (X first)."""
        return tuple(self.params.get("groups", ()))

    @property
    def statistic(self) -> float | None:
        """D(β̂ᵀX, β̂ᵀY) between the two groups (None when it was not finite)."""
        return self.params.get("statistic")

    @property
    def pvalue(self) -> float | None:
        """The permutation test's p-value, or None when no test was run."""
        return self.params.get("pvalue")

    def to_frame(self) -> pd.DataFrame:
        """The table of genes with non-zero weight (a copy): names, indices, weights, ranks, means_x, means_y."""
        return self.table.copy()

    def to_dict(self) -> dict:
        """The stored result as plain values (what a JSON file holds): ``params`` and the table's columns."""
        return {"params": dict(self.params), **{column: [plain(value) for value in self.table[column].tolist()]
                                                for column in self.table.columns}}

    def __eq__(self, other) -> bool:
        if not isinstance(other, StoredDifferences):
            return NotImplemented
        return self.params == other.params and self.table.equals(other.table)

    # -- AnnData -------------------------------------------------------------------------------------------------
    def write(self, adata, key_added: str = DEFAULT_KEY) -> None:
        """Store the result in ``adata``: ``adata.uns[key_added]`` and ``adata.var[key_added + "_weight"]``
        (module docstring); the column is left as it is when :attr:`weights` is None."""
        if not isinstance(key_added, str):
            raise ParameterError(f"key_added must be a string, got {key_added!r}.")
        entry = {"params": dict(self.params)}
        entry.update({column: self.table[column].to_numpy() for column in self.table.columns})
        adata.uns[key_added] = entry
        if self.weights is not None:
            adata.var[f"{key_added}_weight"] = self.weights.reindex(adata.var_names.astype(str)).to_numpy()

    @classmethod
    def read(cls, adata, key: str = DEFAULT_KEY) -> "StoredDifferences":
        """The result stored in ``adata.uns[key]`` by :meth:`write` (:func:`~paucity.differences.compare`)."""
        if key not in adata.uns:
            present = list(adata.uns.keys())
            shown = ", ".join(map(repr, present[:_SHOWN_KEYS])) + (", ..." if len(present) > _SHOWN_KEYS else "")
            raise InputError(
                f"adata.uns has no {key!r} (keys there: {shown or 'none'}): compare two groups first "
                "(paucity.differences.compare), or give the key_added they were stored under."
            )
        stored = adata.uns[key]
        if not isinstance(stored, dict) or "params" not in stored or not {"indices", "weights"} & set(stored):
            raise InputError(f"adata.uns[{key!r}] is not a principal differences analysis of paucity.")
        params = {name: _plain(value) for name, value in dict(stored["params"]).items()}
        n = len(stored["names"]) if "names" in stored else 0
        for column in COLUMNS:
            if column not in stored or np.ndim(stored[column]) != 1 or len(stored[column]) != n:
                raise InputError(f"adata.uns[{key!r}] is damaged: its column {column!r} is missing or of another "
                                 "length than names.")
        table = pd.DataFrame({column: np.asarray(stored[column]).astype(dtype) for column, dtype in COLUMNS.items()})
        weights = None
        column = f"{key}_weight"
        if column in adata.var.columns:
            weights = pd.Series(adata.var[column].to_numpy(dtype=np.float64), index=adata.var_names.astype(str))
        return cls(params=params, table=table, weights=weights)

    # -- building ------------------------------------------------------------------------------------------------
    @classmethod
    def from_result(cls, result, *, groupby: str | None = None, layer: str | None = None,
                    use_raw: bool | None = None) -> "StoredDifferences":
        """What an AnnData holds of a :class:`~paucity.differences.DifferencesResult`.

        ``groupby``, ``layer`` and ``use_raw`` say where the two groups were
        read (the analysis does not know); those that are None are left out of
        ``params``, as are the analysis' results that are None.
        """
        summary = result.to_dict()
        settings = {key: value for key, value in summary["settings"].items() if value is not None}
        params = {
            "groupby": groupby,
            "groups": [str(group) for group in result.groups],
            "layer": layer,
            "use_raw": use_raw,
            "method": result.method,
            "divergence": result.divergence,
            "n_features": result.n_features,
            "lam": result.lam,
            "cv": result.cv,
            "marginal_normalize": result.marginal_normalize,
            "standardize": result.standardize,
            "n_permutations": summary["n_permutations"] or 0,
            "random_state": result.random_state,
            **settings,
            "statistic": summary["statistic"],
            "pvalue": summary["pvalue"],
        }
        return cls(
            params={key: value for key, value in params.items() if value is not None},
            table=result.to_frame(),
            weights=pd.Series(result.beta, index=pd.Index(result.feature_names).astype(str)),
        )


def get(adata, key: str = DEFAULT_KEY) -> pd.DataFrame:
    """The genes stored under ``adata.uns[key]`` by :func:`~paucity.differences.compare`, as a table.

    One row per gene with non-zero weight, by decreasing |weight|: names,
    indices (columns of the matrix read), weights, ranks, means_x, means_y.
    The parameters and the statistic are in :meth:`StoredDifferences.read`'s
    ``params``.

    Raises
    ------
    InputError
        ``adata.uns`` has no ``key`` (the message names the keys it has), or
        what is there is not a result of ``compare``.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> import paucity.differences
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 4)); X[60:, 3] *= 4.0
    >>> obs = pd.DataFrame({"kind": ["a"] * 60 + ["b"] * 60}, index=[str(i) for i in range(120)])
    >>> adata = anndata.AnnData(X, obs=obs, var=pd.DataFrame(index=["CD3E", "CD3D", "LYZ", "NKG7"]))
    >>> paucity.differences.compare(adata, "kind", "a", "b", n_features=1)
    >>> paucity.differences.get(adata)[["names", "weights", "ranks"]]
      names  weights  ranks
    0  NKG7      1.0      1
    """
    return StoredDifferences.read(adata, key).to_frame()


def _plain(value):
    """A stored parameter as plain Python: numpy scalars as Python's own, arrays (``groups``) as lists."""
    if isinstance(value, np.ndarray):
        return [plain(item) for item in value.tolist()]
    return plain(value)
