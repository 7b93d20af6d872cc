"""Crowd judgments in long format: one row per judgment of an attribute of an object (seed 002, §2).

A judgment is one worker's answer for one (object, attribute) pair: binary
(0/1) or real. :class:`Judgments` holds them sorted by attribute, then object,
then arrival, as one flat value array with offsets: for each attribute, the
judgments of every object are a contiguous slice of their own length. Means
and variances are computed over exactly the judgments each object has, so an
object judged three times and one judged twice are never padded to a common
length.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError
from .._spelling import named, spelled, spells
from .._validation import check_columns
from ._text import listing

__all__ = ["DropReport", "Judgments", "Ragged", "as_judgments"]


@dataclass(frozen=True)
class Ragged:
    """The judgments of one attribute, object by object, without padding.

    Attributes
    ----------
    values : ndarray of shape (n_judgments,)
        The judgments, object after object, each object's in arrival order.
    offsets : ndarray of shape (n_objects + 1,)
        Object i's judgments are ``values[offsets[i]:offsets[i + 1]]``.
    objects : pandas.Index
        The object names, in the order of the offsets.
    """

    values: np.ndarray
    offsets: np.ndarray
    objects: pd.Index

    def __len__(self) -> int:
        return len(self.objects)

    def __getitem__(self, obj) -> np.ndarray:
        """The judgments of one object (by name)."""
        i = self.objects.get_loc(obj)
        return self.values[self.offsets[i] : self.offsets[i + 1]]

    @property
    def counts(self) -> np.ndarray:
        """The number of judgments of each object."""
        return np.diff(self.offsets)


@dataclass(frozen=True)
class DropReport:
    """What :meth:`Judgments.complete` dropped: names and counts."""

    objects: tuple
    attributes: tuple
    n_judgments: int

    def __str__(self) -> str:
        return (
            f"dropped {len(self.objects)} object(s) and {len(self.attributes)} attribute(s) "
            f"({self.n_judgments} judgment(s))"
        )


def _names(values: pd.Series) -> pd.Index:
    """Sorted unique names (numbers sort as numbers, anything else as text)."""
    unique = pd.unique(values)
    try:
        return pd.Index(np.sort(unique))
    except TypeError:  # mixed types: sort by their text
        return pd.Index(sorted(unique, key=str))


class Judgments:
    """Judgments of attributes of objects, one row per judgment.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per judgment, with an object column, an
        attribute column and a numeric value column (binary 0/1 or real).
        Rows of the same (object, attribute) are that pair's judgments, in
        the order given.
    object, attribute, value : str
        The names of those three columns.

    Attributes
    ----------
    objects : pandas.Index
        Every object judged, sorted.
    attributes : pandas.Index
        Every attribute judged, sorted.
    counts : pandas.DataFrame of int
        Judgments per object (rows) and attribute (columns); 0 where none.

    Notes
    -----
    Seed 002, §2: each object's representation is, for every attribute a,
    the vector of its r[a] judgments ⟨x[a](j)⟩ⱼ; predictors use the mean
    x̄[a] of those judgments. Memory is O(number of judgments) plus
    O(objects × attributes) for the counts.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"object": ["o1", "o1", "o2", "o2", "o1", "o2"],
    ...                       "attribute": ["tall", "tall", "tall", "tall", "fat", "fat"],
    ...                       "value": [1, 0, 1, 1, 0.0, 1.0]})
    >>> judgments = Judgments(frame)
    >>> judgments.counts.loc["o1"].to_dict()
    {'fat': 1, 'tall': 2}
    >>> judgments.ragged("tall")["o1"].tolist()
    [1.0, 0.0]
    >>> judgments.means().loc["o2", "tall"]
    np.float64(1.0)
    """

    def __init__(self, data: pd.DataFrame, object: str = "object", attribute: str = "attribute", value: str = "value"):
        if not isinstance(data, pd.DataFrame):
            raise InputTypeError(
                f"judgments must be a pandas DataFrame in long format (one row per judgment), got {type(data).__name__}."
            )
        roles = {"object": object, "attribute": attribute, "value": value}
        for role, column in roles.items():
            if column is None:
                raise InputError(f"{named(role)} names no column; give the name of the {role} column.")
        check_columns(data, roles, what="the judgments table")
        if len(data) == 0:
            raise InputError("the judgments table has no rows.")
        objects_column, attributes_column = data[object], data[attribute]
        for name, column in ((object, objects_column), (attribute, attributes_column)):
            if column.isna().any():
                row = int(np.flatnonzero(column.isna().to_numpy())[0])
                raise InputError(f"column {name!r} has a missing name at data row {row + 1}; drop or fill it.")
        values = pd.to_numeric(data[value], errors="coerce")
        bad = values.isna().to_numpy() & ~data[value].isna().to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"column {value!r} must hold numbers (0/1 for binary attributes); data row {row + 1} holds "
                f"{data[value].iloc[row]!r} (object {objects_column.iloc[row]!r}, attribute "
                f"{attributes_column.iloc[row]!r})."
            )
        values = values.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            row = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InputError(
                f"column {value!r} has a missing or infinite value at data row {row + 1} (object "
                f"{objects_column.iloc[row]!r}, attribute {attributes_column.iloc[row]!r}); drop the row or fill it."
            )
        self.objects = _names(objects_column)
        self.attributes = _names(attributes_column)
        object_codes = self.objects.get_indexer(objects_column)
        attribute_codes = self.attributes.get_indexer(attributes_column)
        order = np.lexsort((object_codes, attribute_codes))  # stable: arrival order within a pair
        self._values = values[order]
        self._values.setflags(write=False)
        n_objects, n_attributes = len(self.objects), len(self.attributes)
        counts = np.zeros((n_attributes, n_objects), dtype=np.int64)
        np.add.at(counts, (attribute_codes, object_codes), 1)
        self._counts = counts  # attribute-major, like the values
        self._offsets = np.concatenate([[0], np.cumsum(counts.ravel())])
        self.columns = {"object": object, "attribute": attribute, "value": value}

    # -- reading ----------------------------------------------------------------------------------
    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, object: str = "object", attribute: str = "attribute",
                   value: str = "value") -> Judgments:
        """Judgments from a long table (one row per judgment): the same as ``Judgments(df, ...)``.

        The one constructor from a table, as every data container of paucity
        has (:meth:`paucity.ranking.Comparisons.from_frame`,
        :meth:`paucity.crowd.LabelMatrix.from_frame`, ...); read a file with
        :func:`paucity.io.read_frame` first. A bad row is named by its data
        row, counted from 1 (the first row under the header).

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"photo": ["007", "007"], "question": ["tall", "tall"], "answer": [1, 0]})
        >>> Judgments.from_frame(frame, object="photo", attribute="question", value="answer")
        Judgments(2 judgments of 1 attributes on 1 objects)
        """
        return cls(df, object=object, attribute=attribute, value=value)

    @classmethod
    def read(cls, path, object: str = "object", attribute: str = "attribute", value: str = "value") -> Judgments:
        """Read judgments from a CSV/TSV (optionally gzipped) or Parquet file in long format.

        A shorthand for :func:`paucity.io.read_frame` then :meth:`from_frame`.
        The object and attribute columns are read as text, exactly as written:
        ``"00024"`` stays ``"00024"`` and ``NA`` is a name like any other (an
        empty field is missing).
        """
        from ..io import read_frame

        frame = read_frame(Path(path), text_columns=[object, attribute])
        return cls.from_frame(frame, object=object, attribute=attribute, value=value)

    # -- shape ------------------------------------------------------------------------------------
    @property
    def counts(self) -> pd.DataFrame:
        """Judgments of each object (rows) and attribute (columns)."""
        return pd.DataFrame(self._counts.T, index=self.objects, columns=self.attributes)

    @property
    def n_judgments(self) -> int:
        """Number of judgments (rows)."""
        return int(self._offsets[-1])

    def __len__(self) -> int:
        return self.n_judgments

    def __repr__(self) -> str:
        return (
            f"Judgments({self.n_judgments} judgments of {len(self.attributes)} attributes "
            f"on {len(self.objects)} objects)"
        )

    def _attribute_code(self, attribute) -> int:
        try:
            return int(self.attributes.get_loc(attribute))
        except KeyError:
            raise InputError(f"no attribute {attribute!r} among the judgments ({listing(self.attributes)}).") from None

    def ragged(self, attribute) -> Ragged:
        """The judgments of one attribute, object by object (every object, possibly with none)."""
        a = self._attribute_code(attribute)
        n_objects = len(self.objects)
        start = a * n_objects
        offsets = self._offsets[start : start + n_objects + 1]
        return Ragged(values=self._values[offsets[0] : offsets[-1]], offsets=offsets - offsets[0], objects=self.objects)

    def to_frame(self) -> pd.DataFrame:
        """The judgments as a long table (columns as given), sorted by attribute, object and arrival."""
        attribute_codes = np.repeat(np.arange(len(self.attributes)), self._counts.sum(axis=1))
        object_codes = np.repeat(np.tile(np.arange(len(self.objects)), len(self.attributes)), self._counts.ravel())
        return pd.DataFrame(
            {
                self.columns["object"]: self.objects[object_codes],
                self.columns["attribute"]: self.attributes[attribute_codes],
                self.columns["value"]: self._values,
            }
        )

    # -- per-object summaries ---------------------------------------------------------------------
    def _limits(self, repeats, attributes: pd.Index) -> np.ndarray:
        """Per attribute of ``attributes``, how many judgments to use (-1: all)."""
        if repeats is None:
            return np.full(len(attributes), -1, dtype=np.int64)
        repeats = pd.Series(repeats) if isinstance(repeats, dict) else repeats
        if not isinstance(repeats, pd.Series):
            raise InputTypeError("repeats must be a pandas Series (or dict) of judgments per attribute.")
        repeats = repeats.reindex(attributes).fillna(0)
        if (repeats < 0).any() or not np.all(np.equal(np.mod(repeats.to_numpy(dtype=float), 1), 0)):
            raise ParameterError("repeats must be whole numbers >= 0.")
        return repeats.to_numpy(dtype=np.int64)

    def means(self, repeats=None, *, objects=None, attributes=None) -> pd.DataFrame:
        """Per-object mean judgment of each attribute: x̄ᵢ[a].

        Parameters
        ----------
        repeats : pandas.Series or dict, optional
            Judgments to average per attribute: the first r[a] of each object
            (in arrival order). An object with fewer raises an error naming
            it. Attributes with r[a] = 0 get a mean of 0, as in the seed's
            x̄[a] (they are not used). By default all of each object's judgments.
        objects, attributes : sequence, optional
            Restrict to these (default all).

        Returns
        -------
        pandas.DataFrame
            Objects in rows, attributes in columns; NaN where an object has
            no judgment of the attribute and ``repeats`` is not given.
        """
        object_index = self.objects if objects is None else pd.Index(objects)
        attribute_index = self.attributes if attributes is None else pd.Index(attributes)
        limits = self._limits(repeats, attribute_index)
        object_codes = self.objects.get_indexer(object_index)
        if (object_codes < 0).any():
            missing = object_index[object_codes < 0]
            raise InputError(f"no judgments of object(s) {listing(missing)}.")
        out = np.empty((len(object_index), len(attribute_index)))
        for column, attribute in enumerate(attribute_index):
            limit = limits[column]
            if attribute not in self.attributes:
                if limit > 0:
                    raise InputError(
                        f"attribute {attribute!r} needs {limit} judgment(s) per object but was never judged."
                    )
                out[:, column] = 0.0 if limit == 0 else np.nan
                continue
            if limit == 0:
                out[:, column] = 0.0
                continue
            ragged = self.ragged(attribute)
            counts = ragged.counts
            if limit > 0:
                short = counts[object_codes] < limit
                if short.any():
                    first = int(np.flatnonzero(short)[0])
                    raise InputError(
                        f"object {object_index[first]!r} has {counts[object_codes][first]} judgment(s) of attribute "
                        f"{attribute!r} but {limit} are needed"
                        + (f" ({int(short.sum())} objects are short of it)" if short.sum() > 1 else "")
                        + "."
                    )
            owner = np.repeat(np.arange(len(counts)), counts)
            values = ragged.values
            if limit > 0:  # the first r[a] judgments of each object, in arrival order
                keep = np.arange(len(values)) - ragged.offsets[owner] < limit
                owner, values = owner[keep], values[keep]
                counts = np.minimum(counts, limit)
            sums = np.bincount(owner, weights=values, minlength=len(counts))
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.where(counts > 0, sums / counts, np.nan)
            out[:, column] = means[object_codes]
        return pd.DataFrame(out, index=object_index, columns=attribute_index)

    def variances(self) -> pd.DataFrame:
        """Per-object unbiased variance of each attribute's judgments (``ddof = 1``; NaN below 2 judgments).

        The VarEst of seed 002, eq. (2).
        """
        out = np.full((len(self.objects), len(self.attributes)), np.nan)
        for column, attribute in enumerate(self.attributes):
            ragged = self.ragged(attribute)
            counts = ragged.counts
            if not len(ragged.values):
                continue
            owner = np.repeat(np.arange(len(counts)), counts)
            sums = np.bincount(owner, weights=ragged.values, minlength=len(counts))
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / counts
                squares = np.bincount(owner, weights=(ragged.values - means[owner]) ** 2, minlength=len(counts))
                out[:, column] = np.where(counts >= 2, squares / (counts - 1), np.nan)
        return pd.DataFrame(out, index=self.objects, columns=self.attributes)

    # -- subsets ----------------------------------------------------------------------------------
    def subset(self, objects=None, attributes=None) -> Judgments:
        """The judgments of these objects and attributes only (names not present are ignored)."""
        frame = self.to_frame()
        keep = np.ones(len(frame), dtype=bool)
        if objects is not None:
            keep &= frame[self.columns["object"]].isin(pd.Index(objects)).to_numpy()
        if attributes is not None:
            keep &= frame[self.columns["attribute"]].isin(pd.Index(attributes)).to_numpy()
        if not keep.any():
            raise InputError("no judgments are left in that subset.")
        return Judgments(frame[keep], **self.columns)

    def complete(self, min_judgments: int = 2, *, drop_incomplete: bool = False) -> tuple[Judgments, DropReport]:
        """Check that every object has at least ``min_judgments`` of every attribute.

        Parameters
        ----------
        min_judgments : int, default 2
            Training needs k ≥ 2 judgments per (object, attribute): the
            internal variance is estimated from their spread (seed 002, §2).
        drop_incomplete : bool, default False
            False: raise an error naming the objects and attributes short of
            judgments. True: drop them and report what was dropped. An
            attribute short on every object is dropped; then every object
            still short of some attribute is dropped.

        Returns
        -------
        (Judgments, DropReport)
        """
        counts = self._counts
        short = counts < min_judgments  # attributes × objects
        if not short.any():
            return self, DropReport(objects=(), attributes=(), n_judgments=0)
        if not drop_incomplete:
            attributes = self.attributes[short.any(axis=1)]
            objects = self.objects[short.any(axis=0)]
            a, i = np.argwhere(short)[0]
            raise InputError(
                f"training needs at least {min_judgments} judgments of every attribute on every object: "
                f"{len(objects)} object(s) ({listing(objects)}) are short of attribute(s) {listing(attributes)} "
                f"(object {self.objects[i]!r} has {counts[a, i]} of {self.attributes[a]!r}). Collect more "
                f"judgments, or pass {_drop_incomplete()} to drop them."
            )
        drop_attributes = short.all(axis=1)
        remaining = short[~drop_attributes]
        drop_objects = remaining.any(axis=0) if remaining.size else np.zeros(len(self.objects), dtype=bool)
        keep_attributes = self.attributes[~drop_attributes]
        keep_objects = self.objects[~drop_objects]
        if len(keep_attributes) == 0 or len(keep_objects) == 0:
            raise InputError(
                f"no object has at least {min_judgments} judgments of every attribute; nothing would be left to train on."
            )
        kept = self.subset(objects=keep_objects, attributes=keep_attributes)
        report = DropReport(
            objects=tuple(self.objects[drop_objects]),
            attributes=tuple(self.attributes[drop_attributes]),
            n_judgments=self.n_judgments - kept.n_judgments,
        )
        return kept, report


def as_judgments(data) -> Judgments:
    """``data`` as :class:`Judgments`: itself, or a long-format DataFrame (object, attribute, value) converted.

    Examples
    --------
    >>> as_judgments(pd.DataFrame({"object": ["o1"], "attribute": ["tall"], "value": [1]}))
    Judgments(1 judgments of 1 attributes on 1 objects)
    """
    if isinstance(data, Judgments):
        return data
    if isinstance(data, pd.DataFrame):
        return Judgments(data)
    raise InputTypeError(
        f"judgments must be a Judgments or a long-format DataFrame (object, attribute, value), got "
        f"{type(data).__name__}."
    )


def _drop_incomplete() -> str:
    """How the caller asks to drop incomplete attributes and objects: ``drop_incomplete=True`` in Python, the
    flag on a command line."""
    return spelled("drop_incomplete") if spells("drop_incomplete") else "drop_incomplete=True"
