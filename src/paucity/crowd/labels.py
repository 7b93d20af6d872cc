"""Crowd labels as a sparse tasks x labelers matrix of -1, 0 (not labelled) and +1 (seed 003, §3.3).

Crowd platforms export long tables (one row per task, labeler and answer);
:meth:`LabelMatrix.from_frame` reads one, maps its two answers to -1 and +1 and
keeps the mapping, so predictions come back in the table's own words. Every
reader of such a table takes crowd-kit's column names (``worker``, ``task``,
``label``) as well as paucity's (``labeler``, ``task``, ``label``):
:func:`long_columns` decides which columns are read.
:func:`align_features` lines the task features up with the matrix's tasks.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._spelling import given as _given
from .._validation import check_columns, check_matrix

__all__ = ["LabelMatrix", "align_features", "long_columns"]

#: Each role of a long table of labels, paucity's column name and crowd-kit's (whose ``fit_predict`` reads
#: ``worker``, ``task``, ``label``); the two spell ``task`` and ``label`` alike.
LONG_COLUMNS = {"task": ("task", "task"), "labeler": ("labeler", "worker"), "label": ("label", "label")}


def _examples(values, limit: int = 3) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    return shown + (", ..." if len(values) > limit else "")


def long_columns(df: pd.DataFrame, *, task=None, labeler=None, label=None, what: str = "the table",
                 error=ParameterError, named: bool = True) -> tuple:
    """The task, labeler and label columns of a long table of labels: given names, else paucity's or crowd-kit's.

    A role given a name reads that column (which must exist: checked by
    :func:`paucity._validation.check_columns`, which names the role as the
    caller wrote it, ``labeler=`` or ``--labeler-column``). A role left as
    None reads paucity's column (``task``, ``labeler``, ``label``) or
    crowd-kit's (``task``, ``worker``, ``label``), whichever the table has;
    a table with neither, or with both ``labeler`` and ``worker``, is refused
    with one line naming both spellings.

    Parameters
    ----------
    df : pandas.DataFrame
    task, labeler, label : str, optional
        Column names chosen by the caller.
    what : str
        How the messages name the table.
    error : exception class
        Raised for a missing or ambiguous column (ParameterError where the
        caller could name the column, InputError otherwise).
    named : bool
        Whether the caller can pass ``task=``, ``labeler=``, ``label=`` (said
        in the messages).

    Returns
    -------
    tuple of str
        The names of the task, labeler and label columns.

    Examples
    --------
    >>> import pandas as pd
    >>> long_columns(pd.DataFrame(columns=["worker", "task", "label"]))
    ('task', 'worker', 'label')
    >>> long_columns(pd.DataFrame(columns=["task", "labeler", "answer"]), label="answer")
    ('task', 'labeler', 'answer')
    """
    columns = list(df.columns)
    shown = _examples(columns, 8)
    chosen = []
    for role, given in (("task", task), ("labeler", labeler), ("label", label)):
        if given is not None:
            try:
                check_columns(df, {role: given}, what=what)
            except InputError as refused:
                if issubclass(error, InputError):
                    raise
                raise error(str(refused)) from None
            chosen.append(given)
            continue
        own, crowdkit = LONG_COLUMNS[role]
        present = [name for name in dict.fromkeys((own, crowdkit)) if name in columns]
        how = f", or pass {role}= the column's name" if named else ""
        if len(present) == 2:
            choose = f"pass {role}= to say which one to read" if named else "drop or rename one of them"
            raise error(
                f"{what} has both a {own!r} and a {crowdkit!r} column (paucity's and crowd-kit's names for the "
                f"{role}); {choose}."
            )
        if not present:
            spelled = (f"{own!r} (paucity's and crowd-kit's name)" if own == crowdkit
                       else f"{own!r} (paucity's name) or {crowdkit!r} (crowd-kit's)")
            raise error(f"{what} lacks the {role} column: name it {spelled}{how}; its columns are {shown}.")
        chosen.append(present[0])
    return tuple(chosen)


def _ids(ids, count: int, name: str) -> pd.Index:
    index = pd.RangeIndex(count) if ids is None else pd.Index(ids)
    if len(index) != count:
        raise ShapeMismatchError(f"{name} has {len(index)} entries but the label matrix has {count}; give one id each.")
    if index.hasnans:
        raise InputError(f"{name} has a missing id; give every one an id.")
    if not index.is_unique:
        duplicated = index[index.duplicated()].unique()
        raise InputError(f"{name} repeats ids ({_examples(duplicated)}); give every one a distinct id.")
    return index


class LabelMatrix:
    """Labels of n tasks by m labelers: -1, +1, or 0 for "not labelled" (seed 003, eq. 3.1's Y).

    Stored as a scipy CSR matrix of int8 with the task ids (rows) and labeler
    ids (columns) beside it. The researcher is one labeler: her gold labels
    are her column.

    Parameters
    ----------
    values : array-like or scipy.sparse matrix, shape (n_tasks, n_labelers)
        Entries in {-1, 0, +1}; 0 means the labeler did not label the task.
    task_ids, labeler_ids : sequence, optional
        Distinct ids of the rows and columns (default 0, 1, ...).
    label_mapping : dict, optional
        The original label values and the sign each stands for, e.g.
        ``{"left": -1, "above": 1}`` (default ``{-1: -1, 1: 1}``).

    Attributes
    ----------
    values : scipy.sparse.csr_matrix of int8
    task_ids, labeler_ids : pandas.Index
    label_mapping : dict

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"task": ["t1", "t1", "t2", "t3"], "worker": ["ann", "bob", "ann", "bob"],
    ...                       "answer": ["left", "above", "left", "above"]})
    >>> labels = LabelMatrix.from_frame(table, labeler="worker", label="answer", positive="above")
    >>> labels
    LabelMatrix(3 tasks x 2 labelers, 4 labels; 'left' -> -1, 'above' -> +1)
    >>> labels.to_dense().to_numpy()
    array([[-1,  1],
           [-1,  0],
           [ 0,  1]], dtype=int8)
    >>> labels.column("ann").to_dict()
    {'t1': -1, 't2': -1}
    """

    def __init__(self, values, *, task_ids=None, labeler_ids=None, label_mapping=None):
        if isinstance(values, pd.DataFrame):
            task_ids = values.index if task_ids is None else task_ids
            labeler_ids = values.columns if labeler_ids is None else labeler_ids
            values = values.to_numpy()
        if sp.issparse(values):
            matrix = sp.csr_matrix(values)
        else:
            array = np.asarray(values)
            if array.ndim != 2:
                raise InputError(
                    f"values must be a 2-dimensional tasks x labelers matrix, got {array.ndim} dimension(s)."
                )
            if array.dtype.kind not in "biuf":
                raise InputTypeError(f"values must hold -1, 0 and +1, got dtype {array.dtype}.")
            matrix = sp.csr_matrix(array)
        data = matrix.data
        if data.size and not np.all(np.isin(data, (-1, 0, 1))):
            bad = data[~np.isin(data, (-1, 0, 1))]
            raise InputError(
                f"values must be -1, +1 or 0 (not labelled), got {_examples(np.unique(bad))}. "
                "Build the matrix from a long table with LabelMatrix.from_frame to map any two labels to -1 and +1."
            )
        matrix = matrix.astype(np.int8)
        matrix.eliminate_zeros()
        matrix.sum_duplicates()
        matrix.sort_indices()
        self.values = matrix
        self.task_ids = _ids(task_ids, matrix.shape[0], "task_ids")
        self.labeler_ids = _ids(labeler_ids, matrix.shape[1], "labeler_ids")
        if label_mapping is None:
            label_mapping = {-1: -1, 1: 1}
        mapping = dict(label_mapping)
        signs = list(mapping.values())
        if not set(signs) <= {-1, 1} or len(signs) != len(set(signs)) or not signs:
            raise ParameterError(
                f"label_mapping must map at most two label values to -1 and +1, one each, got {mapping!r}."
            )
        self.label_mapping = mapping

    # --- reading ------------------------------------------------------------------------------------------

    @classmethod
    def from_frame(cls, df, *, task=None, labeler=None, label=None, positive=None,
                   gold=None, researcher=None):
        """Build the matrix from a long table (one row per task, labeler and label), as crowd platforms export.

        The one constructor from a table, as every data container of paucity
        has (:meth:`paucity.ranking.Comparisons.from_frame`, ...); read a file
        with :func:`paucity.io.read_frame` first. A bad row is named by its
        data row, counted from 1 (the first row under the header).

        Parameters
        ----------
        df : pandas.DataFrame
            The table.
        task, labeler, label : str, optional
            Names of its task-id, labeler-id and label columns. By default
            paucity's names ``task``, ``labeler``, ``label`` or crowd-kit's
            ``task``, ``worker``, ``label`` (the table crowd-kit's
            ``fit_predict`` reads), whichever the table has; a table with both
            a ``labeler`` and a ``worker`` column needs ``labeler=`` to say
            which one to read.
        positive : object, optional
            The label value mapped to +1 (the other one becomes -1). By
            default the larger of the two (in the sort order of their text
            when they are not numbers); needed when only one value occurs.
        gold : pandas.Series or pandas.DataFrame, optional
            The researcher's gold labels, kept apart from the crowd's: a
            Series indexed by task id, or a table with the ``task`` and
            ``label`` columns. They become the column ``researcher``.
        researcher : object, optional
            The researcher's labeler id; required with ``gold`` and must
            differ from every crowd labeler's id.

        Returns
        -------
        LabelMatrix
            Tasks in order of first appearance (the crowd's table first),
            labelers likewise, the researcher last; the mapping of the two
            label values to -1/+1 in ``label_mapping``. A task labelled twice
            by one labeler with the same label counts once.

        Examples
        --------
        crowd-kit's table (columns worker, task, label) is read as it is:

        >>> import pandas as pd
        >>> df = pd.DataFrame({"worker": ["w1", "w2", "w1"], "task": ["t1", "t1", "t2"],
        ...                    "label": ["no", "yes", "yes"]})
        >>> LabelMatrix.from_frame(df)
        LabelMatrix(2 tasks x 2 labelers, 3 labels; 'no' -> -1, 'yes' -> +1)
        >>> list(LabelMatrix.from_frame(df).labeler_ids)
        ['w1', 'w2']
        """
        if not isinstance(df, pd.DataFrame):
            raise InputTypeError(f"from_frame reads a pandas DataFrame, got {type(df).__name__}.")
        task, labeler, label = long_columns(df, task=task, labeler=labeler, label=label)
        table = df[[task, labeler, label]].copy()
        table.columns = ["task", "labeler", "label"]
        if gold is not None:
            extra = cls._gold_rows(gold, table, task, label, researcher)
            parts = [part for part in (table, extra) if len(part)]
            if len(parts) == 2 and any(part[column].isna().all() for part in parts for column in part.columns):
                # a column of one part all missing: pandas 2 leaves it out of the result's dtype with a FutureWarning
                # (pandas 3 does not); as Python objects both agree, and the types are inferred again after
                table = pd.concat([part.astype(object) for part in parts], ignore_index=True).infer_objects()
            else:
                table = pd.concat(parts, ignore_index=True) if len(parts) == 2 else (parts[0] if parts else table)
        elif researcher is not None:
            raise ParameterError(
                "researcher= is only read together with gold=; to fit on a labeler already in the table, "
                "pass its id to the model's fit(researcher=...)."
            )
        missing = table.isna().any(axis=1)
        if missing.any():
            first = int(np.flatnonzero(missing.to_numpy())[0])
            raise InputError(
                f"The table has {int(missing.sum())} row(s) with a missing task, labeler or label (first: data row "
                f"{first + 1}). "
                "Drop them (df.dropna(subset=[task, labeler, label])) or fill them in."
            )
        mapping = cls._mapping(table["label"], label, positive)
        if len(mapping) < len(pd.unique(table["label"])):
            raise InputError(
                f"The label column {label!r} holds values that compare equal but differ in type "
                f"({_examples(list(pd.unique(table['label'])))}); convert them to one type first."
            )
        signs = np.array([mapping[v.item() if isinstance(v, np.generic) else v] for v in table["label"]],
                         dtype=np.int8)
        task_ids = pd.Index(pd.unique(table["task"]))
        labeler_ids = pd.Index(pd.unique(table["labeler"]))
        rows = task_ids.get_indexer(table["task"])
        cols = labeler_ids.get_indexer(table["labeler"])
        pairs = pd.DataFrame({"row": rows, "col": cols, "sign": signs}).drop_duplicates()
        clashes = pairs.duplicated(["row", "col"], keep=False)
        if clashes.any():
            first = pairs[clashes].iloc[0]
            raise InputError(
                f"{int(clashes.sum()) // 2 or 1} (task, labeler) pair(s) carry both labels, e.g. task "
                f"{task_ids[first['row']]!r} by labeler {labeler_ids[first['col']]!r}. Keep one label per pair "
                "(e.g. the latest) before building the matrix."
            )
        matrix = sp.csr_matrix(
            (pairs["sign"].to_numpy(np.int8), (pairs["row"].to_numpy(), pairs["col"].to_numpy())),
            shape=(len(task_ids), len(labeler_ids)),
        )
        return cls(matrix, task_ids=task_ids, labeler_ids=labeler_ids, label_mapping=mapping)

    @classmethod
    def from_long(cls, df, **kwargs):
        """The same as :meth:`from_frame` (its earlier name, kept as an alias).

        Examples
        --------
        >>> import pandas as pd
        >>> LabelMatrix.from_long(pd.DataFrame({"task": ["t1"], "labeler": ["w1"], "label": [1]}), positive=1)
        LabelMatrix(1 tasks x 1 labelers, 1 labels; 1 -> +1)
        """
        return cls.from_frame(df, **kwargs)

    @staticmethod
    def _gold_rows(gold, table, task, label, researcher):
        if researcher is None:
            raise ParameterError("gold= needs researcher=, the id her labels are kept under (e.g. researcher='gold').")
        crowd = pd.Index(pd.unique(table["labeler"]))
        if researcher in crowd:
            raise ParameterError(
                f"{_given('researcher', researcher)} is also the id of a labeler in the crowd's table; "
                "choose a researcher id no crowd labeler has (or rename that labeler)."
            )
        if isinstance(gold, pd.Series):
            frame = pd.DataFrame({"task": gold.index, "label": gold.to_numpy()})
        elif isinstance(gold, pd.DataFrame):
            for parameter, column in (("task", task), ("label", label)):
                if column not in gold.columns:
                    raise ParameterError(
                        f"gold has no {parameter} column {column!r}; give it the crowd table's column names "
                        "or pass a Series of labels indexed by task id."
                    )
            frame = pd.DataFrame({"task": gold[task].to_numpy(), "label": gold[label].to_numpy()})
        else:
            raise InputTypeError(
                f"gold must be a pandas Series indexed by task id or a DataFrame, got {type(gold).__name__}."
            )
        frame.insert(1, "labeler", researcher)
        return frame

    @staticmethod
    def _mapping(labels: pd.Series, column: str, positive) -> dict:
        values = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(labels)]
        if len(values) > 2:
            raise InputError(
                f"The label column {column!r} has {len(values)} distinct values ({_examples(values, 5)}) but a label "
                "matrix takes two. Map them to two values (e.g. df[label].map({...})) or drop the other rows."
            )
        if positive is not None:
            if positive not in values and len(values) == 2:
                raise ParameterError(
                    f"{_given('positive', positive)} is not one of the labels in column {column!r} ({_examples(values)}); "
                    "pass one of them."
                )
            matches = [v for v in values if v == positive]
            others = [v for v in values if v != positive]
            return {**{v: -1 for v in others}, (matches[0] if matches else positive): 1}
        if len(values) < 2:
            raise InputError(
                f"The label column {column!r} holds a single value ({_examples(values)}); "
                "pass positive= to say which label stands for +1."
            )
        try:
            low, high = sorted(values)
        except TypeError:
            low, high = sorted(values, key=str)
        if not all(isinstance(v, (numbers.Number, np.bool_)) for v in values):
            low, high = sorted(values, key=str)
        return {low: -1, high: 1}

    # --- looking ------------------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        """(tasks, labelers)."""
        return self.values.shape

    @property
    def n_tasks(self) -> int:
        """Number of tasks (rows)."""
        return self.values.shape[0]

    @property
    def n_labelers(self) -> int:
        """Number of labelers (columns)."""
        return self.values.shape[1]

    @property
    def n_labels(self) -> int:
        """Number of labels given (non-zero entries)."""
        return int(self.values.nnz)

    def label_of(self, sign: int):
        """The original label value that ``sign`` (-1 or +1) stands for (the sign itself if unseen)."""
        for value, s in self.label_mapping.items():
            if s == sign:
                return value
        return sign

    def labeler_index(self, labeler) -> int:
        """Column position of a labeler id; a ParameterError naming the known ids when absent."""
        try:
            position = self.labeler_ids.get_loc(labeler)
        except KeyError:
            raise ParameterError(
                f"{labeler!r} is not a labeler of this label matrix; its labelers are "
                f"{_examples(list(self.labeler_ids), 6)}."
            ) from None
        return int(position)

    def column(self, labeler) -> pd.Series:
        """One labeler's labels (-1/+1) as a Series indexed by the task ids she labelled."""
        col = self.values.tocsc()[:, [self.labeler_index(labeler)]]
        rows = col.indices
        return pd.Series(col.data.astype(np.int8), index=self.task_ids[rows], name=self.labeler_ids[self.labeler_index(labeler)])

    def triples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(task index, labeler index, sign) of every label, sorted by labeler then task."""
        coo = self.values.tocsc().tocoo()
        order = np.lexsort((coo.row, coo.col))
        return (coo.row[order].astype(np.int64), coo.col[order].astype(np.int64), coo.data[order].astype(np.int8))

    def to_dense(self) -> pd.DataFrame:
        """The whole matrix as a DataFrame of -1/0/+1 (tasks x labelers; mind the memory on big crowds)."""
        frame = pd.DataFrame(self.values.toarray(), index=self.task_ids, columns=self.labeler_ids)
        frame.index.name, frame.columns.name = "task", "labeler"
        if self.task_ids.name is not None:
            frame.index.name = self.task_ids.name
        if self.labeler_ids.name is not None:
            frame.columns.name = self.labeler_ids.name
        return frame

    def to_long(self) -> pd.DataFrame:
        """One row per label: task, labeler and the original label value."""
        row, col, sign = self.triples()
        order = np.lexsort((col, row))
        return pd.DataFrame({
            "task": self.task_ids[row[order]],
            "labeler": self.labeler_ids[col[order]],
            "label": [self.label_of(int(s)) for s in sign[order]],
        })

    def __repr__(self) -> str:
        mapping = ", ".join(f"{value!r} -> {'+1' if s > 0 else '-1'}" for value, s in
                            sorted(self.label_mapping.items(), key=lambda item: item[1]))
        return (f"LabelMatrix({self.n_tasks} tasks x {self.n_labelers} labelers, {self.n_labels} labels; "
                f"{mapping})")


def feature_values(frame: pd.DataFrame, *, name: str = "X", what: str = "task(s)") -> np.ndarray:
    """A feature table's values as floats: every column numeric, every value finite (else a clear error).

    ``what`` names the rows in the message ("labelled task(s)" when only the labelled rows are checked).
    """
    non_numeric = [c for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c])
                                                    or pd.api.types.is_bool_dtype(frame[c]))]
    if non_numeric:
        raise InputTypeError(f"{name} must hold numbers, but column(s) {_examples(non_numeric)} do not; "
                             "convert them to numbers or drop them.")
    values = frame.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values).all(axis=1)
    if bad.any():
        raise InputError(f"{name} has NaN or infinite features for {int(bad.sum())} {what} "
                         f"({_examples(frame.index[bad])}); impute them or drop those tasks.")
    return values


def align_features(labels: LabelMatrix, X, *, name: str = "X") -> tuple[np.ndarray, list | None]:
    """Task features in the label matrix's task order, as a float array, and their names.

    Parameters
    ----------
    labels : LabelMatrix
    X : array-like of shape (n_tasks, n_features) or pandas.DataFrame
        An array must have the matrix's tasks in its rows, in order; a
        DataFrame is indexed by task id and may hold more tasks (its rows are
        picked by id).

    Returns
    -------
    features : numpy.ndarray of shape (labels.n_tasks, n_features)
    names : list of str or None
        The DataFrame's column names (None for an array).
    """
    if isinstance(X, pd.DataFrame):
        index = X.index
        if not index.is_unique:
            raise InputError(f"{name}'s index repeats task ids ({_examples(index[index.duplicated()].unique())}); "
                             "give each task one row.")
        positions = index.get_indexer(labels.task_ids)
        absent = labels.task_ids[positions < 0]
        if len(absent):
            hint = ""
            if len(absent) == labels.n_tasks and index.dtype != labels.task_ids.dtype:
                hint = (f" The labels' task ids are of type {labels.task_ids.dtype} but {name}'s index is "
                        f"{index.dtype}: read both as text.")
            raise InputError(
                f"{len(absent)} labelled task(s) are missing from the features {name} ({_examples(absent)}).{hint} "
                f"Add their rows to {name} (indexed by task id) or drop their labels."
            )
        values = feature_values(X.iloc[positions], name=name, what="labelled task(s)")
        names = [str(c) for c in X.columns]
    else:
        if sp.issparse(X):
            X = X.toarray()
        values = check_matrix(X, name=name, nonnegative=False, sparse_format=None, dtype=np.float64, min_samples=0)
        if values.shape[0] != labels.n_tasks:
            raise ShapeMismatchError(
                f"{name} has {values.shape[0]} rows but the labels have {labels.n_tasks} tasks; pass {name} as a "
                "DataFrame indexed by task id to align them, or one row per task in the labels' order."
            )
        names = None
    if values.shape[1] == 0:
        raise InputError(f"{name} has no feature columns; give each task at least one feature.")
    return np.ascontiguousarray(values), names
