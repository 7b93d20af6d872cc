"""The crowd capability's one entry point: fit BBMC on labels and task features, predict, suggest.

:func:`pool` runs the whole analysis a crowd team asks for (the researcher's
model pooled with the crowd, her predicted labels on every task, and
optionally the next pairs to ask) and returns a frozen :class:`PoolResult`;
``paucity crowd`` calls it and only reads, prints and writes.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError
from .._json import plain
from .._spelling import given, owner_prefix, spelled, spells
from .._validation import Interval, Options, check_parameter
from .bbmc import BBMC
from .labels import LabelMatrix, feature_values

__all__ = ["PoolResult", "pool"]


@dataclass(frozen=True)
class PoolResult:
    """What :func:`pool` found.

    Attributes
    ----------
    predictions : pandas.DataFrame
        One row per task of the features (labelled or not), in their order: task, probability (that
        the researcher says the positive label, eq. 3.2), label (the more probable one), gold (her own
        label where she gave one, else missing).
    suggestions : pandas.DataFrame
        Columns task, labeler, utility: the pairs to ask next, best first (empty unless asked for).
    labeler_factors : pandas.DataFrame
        Posterior mean of Z by labeler id (labelers x factors), the researcher's row included.
    agreement : pandas.Series
        Per crowd labeler, the posterior mean share of the researcher's factors that the labeler
        has too (sum_b E[z_lb] E[z_rb] / sum_b E[z_rb]), highest first: who thinks like her.
    rhat : float
        The largest split-R-hat over the coordinates of beta_r (near 1 when the chains agree).
    ess : float
        The smallest effective sample size over the coordinates of beta_r, all chains together.
    n_sweeps : int
        Gibbs sweeps run per chain.
    converged : bool
        Whether the chains agreed before ``max_sweeps`` (True for a fixed number of sweeps).
    stop_reason : str
        Why the sampler stopped, in words.
    researcher : the researcher's labeler id
    label_mapping : dict, the two label values and their signs (-1, +1)
    n_tasks, n_labelers, n_labels : int, the label matrix's size (the researcher counted as a labeler)
    model : BBMC, the fitted model
    """

    predictions: pd.DataFrame
    suggestions: pd.DataFrame
    labeler_factors: pd.DataFrame
    agreement: pd.Series
    rhat: float
    ess: float
    n_sweeps: int
    converged: bool
    stop_reason: str
    researcher: object
    label_mapping: dict
    n_tasks: int
    n_labelers: int
    n_labels: int
    model: BBMC = field(repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """The predictions, one row per task."""
        return self.predictions.copy()

    def to_dict(self) -> dict:
        """Plain values: the sizes, R-hat, the labelers most like the researcher, the suggestions."""
        return {
            "researcher": plain(self.researcher),
            "n_tasks": self.n_tasks,
            "n_labelers": self.n_labelers,
            "n_labels": self.n_labels,
            "rhat": self.rhat,
            "ess": self.ess,
            "n_sweeps": self.n_sweeps,
            "converged": self.converged,
            "stop_reason": self.stop_reason,
            "label_mapping": {str(k): int(v) for k, v in self.label_mapping.items()},
            "agreement": {str(k): float(v) for k, v in self.agreement.items()},
            "suggestions": [
                {"task": plain(t), "labeler": plain(l), "utility": float(u)}
                for t, l, u in self.suggestions[["task", "labeler", "utility"]].itertuples(index=False)
            ],
        }


def pool(labels, X, *, researcher, n_suggest=0, ask="researcher", n_factors=4, alpha=1.0, sigma=1.0,
         n_burnin="auto", n_samples="auto", thin=1, n_chains=2, max_sweeps=22000, max_rhat=1.05, min_ess=100,
         n_jobs=None, scheduler="threads", random_state=None, progress=False) -> PoolResult:
    """Pool a biased crowd with the researcher's gold labels (BBMC), predict her labels, suggest whom to ask.

    Parameters
    ----------
    labels : LabelMatrix
        The crowd's labels and the researcher's gold labels (her column), e.g. from
        :meth:`LabelMatrix.from_frame` with ``gold=`` and ``researcher=``.
    X : pandas.DataFrame
        Task features indexed by task id: every labelled task and any others to predict (or to ask
        about). Every value must be finite.
    researcher : object
        The researcher's labeler id.
    n_suggest : int, default 0
        How many (task, labeler) pairs to suggest asking next (:meth:`BBMC.suggest`).
    ask : "researcher" or "crowd", default "researcher"
        Whom the suggestions may ask: the researcher (the seed's experiment) or the crowd's labelers.
    n_factors, alpha, sigma, n_burnin, n_samples, thin, n_chains, max_sweeps, max_rhat, min_ess, n_jobs, \
scheduler, random_state, progress
        :class:`BBMC`'s parameters: by default the chains run until they agree (``result.stop_reason``
        says when they did, or that ``max_sweeps`` came first).

    Returns
    -------
    PoolResult

    Examples
    --------
    Eight labelers answer like the researcher, four the opposite way; she labelled five tasks.

    >>> import numpy as np, pandas as pd
    >>> from paucity.crowd import LabelMatrix, pool
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["a", "b"])
    >>> truth = np.where(X["a"] - X["b"] > 0, "yes", "no")
    >>> rows = [(i, f"w{l}", truth[i] if l < 8 else ("no" if truth[i] == "yes" else "yes"))
    ...         for i in range(50) for l in range(12) if rng.random() < 0.3]
    >>> crowd = pd.DataFrame(rows, columns=["task", "labeler", "label"])
    >>> gold = pd.Series(truth[:5], index=range(5))
    >>> labels = LabelMatrix.from_frame(crowd, gold=gold, researcher="me", positive="yes")
    >>> result = pool(labels, X, researcher="me", n_suggest=2, n_factors=2, n_burnin=200, n_samples=400,
    ...               random_state=0)
    >>> result.predictions.shape, list(result.predictions.columns)
    ((60, 4), ['task', 'probability', 'label', 'gold'])
    >>> float((result.predictions["label"] == truth).mean()) > 0.9
    True
    >>> len(result.suggestions), set(result.suggestions["labeler"])
    (2, {'me'})
    """
    if not isinstance(labels, LabelMatrix):
        raise InputTypeError(
            f"labels must be a LabelMatrix (e.g. LabelMatrix.from_frame(table, ...)), got {type(labels).__name__}."
        )
    if not isinstance(X, pd.DataFrame):
        raise InputTypeError(
            f"X must be a pandas DataFrame of task features indexed by task id, got {type(X).__name__}."
        )
    n_suggest = check_parameter(n_suggest, "n_suggest", [Interval(numbers.Integral, 0, None)], owner="pool",
                                hint=f"{spelled('n_suggest')} is how many pairs to suggest asking next (0 for none).")
    ask = check_parameter(ask, "ask", [Options("researcher", "crowd")], owner="pool",
                          hint=f"{spelled('ask')} says whom suggestions may ask: 'researcher' or 'crowd'.")
    if not n_suggest and ask != "researcher":
        raise ParameterError(
            f"{owner_prefix('pool')}{given('ask', ask)} says whom suggestions may ask, but {given('n_suggest', 0)} "
            f"asks for none; give {spelled('n_suggest')} too, or leave {spelled('ask')} out."
        )
    _check_finite(X)
    if n_suggest:  # before the chains run: the pairs there are do not depend on them
        available = _n_candidates(labels, X, researcher, ask)
        if n_suggest > available:
            raise ParameterError(
                f"{'' if spells() else 'pool: '}{given('n_suggest', n_suggest)} but there are only {available} "
                f"(task, labeler) pairs not labelled yet for {given('ask', ask)}; ask for at most {available}."
            )
    model = BBMC(n_factors=n_factors, alpha=alpha, sigma=sigma, n_burnin=n_burnin, n_samples=n_samples, thin=thin,
                 n_chains=n_chains, max_sweeps=max_sweeps, max_rhat=max_rhat, min_ess=min_ess, n_jobs=n_jobs,
                 scheduler=scheduler, random_state=random_state, progress=progress)
    model.fit(labels, X, researcher=researcher)
    probability = model.predict_proba(X)[:, 1]
    gold = labels.column(researcher).map(labels.label_of)
    predictions = pd.DataFrame({
        "task": X.index.to_numpy(),
        "probability": probability,
        "label": model.classes_[(probability > 0.5).astype(int)],
        "gold": gold.reindex(X.index).to_numpy(),
    })
    if n_suggest:
        suggestions = model.suggest(n_suggest, labelers=ask).reset_index(drop=True)
    else:
        suggestions = pd.DataFrame({"task": pd.Series([], dtype=object), "labeler": pd.Series([], dtype=object),
                                    "utility": pd.Series([], dtype=float)})
    factors = model.labeler_factors_
    own = factors.loc[researcher].to_numpy()
    shared = factors.drop(index=researcher).to_numpy() @ own / max(float(own.sum()), np.finfo(float).tiny)
    agreement = pd.Series(shared, index=factors.index.drop(researcher), name="agreement")
    agreement = agreement.iloc[np.argsort(-agreement.to_numpy(), kind="stable")]
    return PoolResult(
        predictions=predictions, suggestions=suggestions, labeler_factors=factors, agreement=agreement,
        rhat=float(np.max(model.rhat_)), ess=float(np.min(model.ess_)), n_sweeps=int(model.n_sweeps_),
        converged=bool(model.converged_), stop_reason=model.stop_reason_, researcher=researcher, label_mapping=dict(labels.label_mapping),
        n_tasks=labels.n_tasks, n_labelers=labels.n_labelers, n_labels=labels.n_labels, model=model,
    )


def _check_finite(X: pd.DataFrame) -> None:
    """Every feature of every task is a finite number (tasks nobody labelled too: they are predicted)."""
    if not X.index.is_unique:
        repeated = list(X.index[X.index.duplicated()].unique()[:3])
        raise InputError(f"X's index repeats task ids ({', '.join(map(repr, repeated))}); give each task one row.")
    feature_values(X, name="X", what="task(s)")


def _n_candidates(labels: LabelMatrix, X: pd.DataFrame, researcher, ask: str) -> int:
    """How many (task, labeler) pairs :meth:`BBMC.suggest` may choose from: every task known (labelled or a row of
    X) with every labeler asked, less the pairs labelled already."""
    n_tasks = labels.n_tasks + int((~X.index.isin(labels.task_ids)).sum())
    per_labeler = np.diff(labels.values.tocsc().indptr)
    ids = list(labels.labeler_ids)
    if ask == "researcher":
        asked = [ids.index(researcher)] if researcher in ids else []
        return n_tasks - int(per_labeler[asked].sum())
    asked = [k for k, labeler in enumerate(ids) if labeler != researcher]
    return n_tasks * len(asked) - int(per_labeler[asked].sum())
