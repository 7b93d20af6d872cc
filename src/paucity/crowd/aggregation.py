"""Label aggregation by crowd-kit's Dawid-Skene and GLAD, on a LabelMatrix (an optional adapter).

These methods assume one latent true label per task, take no task
features and predict nothing for new tasks: they are the yardstick the
crowdsourcing world uses, kept beside BBMC for comparison. crowd-kit is an
optional dependency, imported only when :func:`aggregate` runs; its code
is called, never copied.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError
from .._extras import require
from .._validation import Interval, Options, check_parameter
from .labels import LabelMatrix

__all__ = ["aggregate"]

_CLASSES = {"dawid_skene": "DawidSkene", "glad": "GLAD"}


def _crowdkit_class(method: str):
    crowdkit = require("crowdkit", f"aggregate(method={method!r})")
    from crowdkit import aggregation  # noqa: F401  (the subpackage, imported once crowd-kit is known to be there)

    return getattr(crowdkit.aggregation, _CLASSES[method])


def aggregate(labels, *, method="dawid_skene", exclude=None, max_iter=100, tol=1e-5) -> pd.DataFrame:
    """Each task's aggregated label by crowd-kit's Dawid-Skene or GLAD.

    Parameters
    ----------
    labels : LabelMatrix
    method : {"dawid_skene", "glad"}
        Dawid and Skene's confusion-matrix EM, or GLAD (Whitehill et al.:
        labeler ability and task difficulty), as crowd-kit implements them.
    exclude : labeler id, optional
        A labeler left out (the researcher, to aggregate the crowd alone).
    max_iter : int, default 100
        Most EM iterations (crowd-kit's n_iter).
    tol : float, default 1e-5
        crowd-kit's convergence tolerance.

    Returns
    -------
    pandas.DataFrame indexed by task id
        ``label`` (the aggregated label in the label matrix's words) and
        ``probability`` (of the positive label), for every task with at
        least one label.

    Raises
    ------
    ImportError
        When crowd-kit is not installed.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.crowd import LabelMatrix, aggregate
    >>> table = pd.DataFrame({"task": [0, 0, 0, 1, 1], "labeler": ["a", "b", "c", "a", "b"],
    ...                       "label": ["y", "y", "n", "n", "n"]})
    >>> aggregate(LabelMatrix.from_frame(table), method="dawid_skene")["label"].tolist()  # doctest: +SKIP
    ['y', 'n']
    """
    if not isinstance(labels, LabelMatrix):
        raise InputTypeError(f"labels must be a LabelMatrix, got {type(labels).__name__}.")
    method = check_parameter(method, "method", [Options(*_CLASSES)], owner="aggregate")
    max_iter = check_parameter(max_iter, "max_iter", [Interval(numbers.Integral, 1, None)], owner="aggregate")
    tol = check_parameter(tol, "tol", [Interval(numbers.Real, 0, None)], owner="aggregate")
    row, col, sign = labels.triples()
    if exclude is not None:
        keep = col != labels.labeler_index(exclude)
        row, col, sign = row[keep], col[keep], sign[keep]
    if row.size == 0:
        raise InputError("There are no labels to aggregate (after leaving out exclude=); add some.")
    model = _crowdkit_class(method)(n_iter=max_iter, tol=tol)
    table = pd.DataFrame({"task": row, "worker": col, "label": sign.astype(np.int64)})
    proba = model.fit_predict_proba(table)
    positive = proba[1] if 1 in proba.columns else pd.Series(0.0, index=proba.index)
    positive = positive.sort_index()
    tasks = labels.task_ids[positive.index.to_numpy(dtype=np.int64)]
    values = np.where(positive.to_numpy() > 0.5, 1, -1)
    return pd.DataFrame(
        {"label": [labels.label_of(int(v)) for v in values], "probability": positive.to_numpy(dtype=np.float64)},
        index=pd.Index(tasks, name="task"),
    )
