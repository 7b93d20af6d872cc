"""The seed's active-learning experiment: alternate Gibbs sweeps and queries (seed 003, §3.6).

:func:`active_loop` asks an oracle one (task, labeler) pair at a time, chosen by BBMC-ACT (the
perturbed-chain score of :meth:`BBMC.suggest`) or one of the seed's baselines, adds the answer with
:meth:`BBMC.update` and continues the same chains.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError
from .._progress import progress_bar
from .._validation import (BOOLEAN, CALLABLE, RANDOM_STATE, Instance, Interval, Iterations, Options, check_parameter,
                           check_random_state)
from .active import disagreement
from .bbmc import BBMC
from .labels import LabelMatrix

__all__ = ["ActiveResult", "active_loop", "STRATEGIES"]

STRATEGIES = ("bbmc", "rand", "dis", "gold", "cons", "mcmc")


@dataclass(frozen=True)
class ActiveResult:
    """What :func:`active_loop` did.

    Attributes
    ----------
    model : the BBMC model, continued through the loop (for "gold" and "cons", the GOLD or CONS model
        fitted on the final labels).
    queries : pandas.DataFrame with columns round, task, labeler, label, utility (the strategy's score
        of the chosen pair; NaN for random choices).
    labels : LabelMatrix, the labels at the end (the fitted ones and every answer).
    """

    model: object
    queries: pd.DataFrame
    labels: LabelMatrix

    def to_frame(self) -> pd.DataFrame:
        """The queries asked, one row each (a copy of ``queries``)."""
        return self.queries.copy()


def _ask(oracle, task, labeler):
    if isinstance(oracle, LabelMatrix):
        try:
            row = oracle.task_ids.get_loc(task)
        except KeyError:
            raise InputError(f"The oracle's label matrix has no task {task!r}; give it an answer for every "
                             "task that may be asked.") from None
        sign = int(oracle.values[row, oracle.labeler_index(labeler)])
        if sign == 0:
            raise InputError(f"The oracle's label matrix holds no label of task {task!r} by labeler {labeler!r}; "
                             "give it an answer for every pair that may be asked.")
        return oracle.label_of(sign)
    return oracle(task, labeler)


def active_loop(model, oracle, n_queries=100, every=200, *, strategy="bbmc", labelers="researcher", tasks=None,
                n_subchain_sweeps=10, random_state=None, progress=False) -> ActiveResult:
    """Alternate Gibbs sweeps and queries, as the seed's active-learning experiment does (seed 003, §3.6).

    Starting from a fitted :class:`~paucity.crowd.BBMC` (its burn-in done), each round picks one
    (task, labeler) pair by ``strategy``, asks ``oracle`` for its label, adds it with
    :meth:`BBMC.update` and continues the same chains for ``every`` sweeps; ``n_queries`` rounds.
    The model is changed in place: its draws at the end are those of the last ``every`` sweeps
    (the seed's predictive model from the last 200 iterations).

    Parameters
    ----------
    model : BBMC
        Fitted; candidates are its tasks (the rows of X given to ``fit`` and ``update``).
    oracle : callable or LabelMatrix
        ``oracle(task, labeler)`` returns the label (in the label table's own words); or a label
        matrix of recorded answers to look them up in.
    n_queries : int, default 100
    every : int, default 200
        Gibbs sweeps per chain between queries.
    strategy : {"bbmc", "rand", "dis", "gold", "cons", "mcmc"}, default "bbmc"
        The seed's BBMC-ACT (largest approximate expected utility, :meth:`BBMC.suggest`), RAND-ACT
        (a random candidate pair, our model), DIS-ACT (a pair whose task has the most disagreement
        among the crowd's labels, :func:`disagreement`; ties at random), GOLD-ACT and CONS-ACT (random pairs; at the end a
        logistic regression on the gold labels, or on the majority vote with the acquired labels
        taking part, instead of BBMC, whose chains are not run), MCMC-ACT (two subordinate chains of
        ``n_subchain_sweeps`` sweeps per candidate and label value, :func:`subchain_utility`; slow).
    labelers : "researcher", "crowd" or list of labeler ids, default "researcher"
        Who may be asked (the seed asks the researcher).
    tasks : list of task ids, optional
        The candidate tasks (default: every task the model knows).
    n_subchain_sweeps : int, default 10
        Length of MCMC-ACT's subordinate chains (the seed's 10).
    random_state : int, numpy.random.Generator or None
        For random choices, ties and MCMC-ACT's chains (the model's chains keep their own seeds).
    progress : bool, default False

    Returns
    -------
    ActiveResult

    Examples
    --------
    The researcher labelled three tasks; she answers two more, chosen by BBMC-ACT.

    >>> import numpy as np, pandas as pd
    >>> from paucity.crowd import BBMC, LabelMatrix, active_loop
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    >>> rows = [(i, f"w{l}", int(np.sign(X.loc[i, "a"] + 0.3 * rng.normal()))) for i in range(30) for l in range(3)]
    >>> rows += [(i, "me", int(np.sign(X.loc[i, "a"]))) for i in range(3)]
    >>> labels = LabelMatrix.from_frame(pd.DataFrame(rows, columns=["task", "labeler", "label"]))
    >>> model = BBMC(n_factors=2, n_burnin=100, n_samples=100, random_state=0).fit(labels, X, researcher="me")
    >>> def researcher(task, labeler):
    ...     return int(np.sign(X.loc[task, "a"]))
    >>> result = active_loop(model, researcher, n_queries=2, every=20, random_state=0)
    >>> list(result.queries.columns), len(result.queries), result.labels.n_labels - labels.n_labels
    (['round', 'task', 'labeler', 'label', 'utility'], 2, 2)
    """
    from .baselines import CONS, GOLD  # scikit-learn's linear models load slowly: only when asked for

    owner = "active_loop"
    check_parameter(model, "model", [Instance(BBMC, description="a fitted BBMC")], owner=owner)
    model._check_active()
    n_queries = check_parameter(n_queries, "n_queries", [Iterations(1)], owner=owner)
    every = check_parameter(every, "every", [Interval(numbers.Integral, 1, None)], owner=owner)
    strategy = check_parameter(strategy, "strategy", [Options(*STRATEGIES)], owner=owner)
    n_subchain_sweeps = check_parameter(n_subchain_sweeps, "n_subchain_sweeps", [Iterations(1)],
                                        owner=owner)
    check_parameter(progress, "progress", [BOOLEAN], owner=owner)
    check_parameter(random_state, "random_state", [RANDOM_STATE], owner=owner)
    if not isinstance(oracle, LabelMatrix):
        check_parameter(oracle, "oracle", [CALLABLE], owner=owner,
                        hint="Pass a function oracle(task, labeler) -> label or a LabelMatrix of answers.")
    rng = check_random_state(random_state)
    chosen_labelers = model._candidate_labelers(labelers)
    model._candidate_tasks(tasks, None)  # checked before anything runs
    runs_chain = strategy not in ("gold", "cons")
    rows = []
    with progress_bar(n_queries, f"Active learning ({strategy})", enabled=progress) as bar:
        for round_ in range(n_queries):
            pairs = model._candidates(chosen_labelers, tasks, None)
            if pairs.empty:
                break
            utility = np.nan
            if strategy == "bbmc":
                best = model.suggest(1, labelers=labelers, tasks=tasks).iloc[0]
                task, labeler, utility = best["task"], best["labeler"], float(best["utility"])
            elif strategy == "mcmc":
                scores = model._subchain_scores(pairs, n_sweeps=n_subchain_sweeps, rng=rng)
                top = np.flatnonzero(scores == scores.max())
                pick = int(rng.choice(top))
                task, labeler, utility = pairs["task"].iloc[pick], pairs["labeler"].iloc[pick], float(scores[pick])
            elif strategy == "dis":
                current = model._label_matrix()
                score = pd.Series(disagreement(current, exclude=model.researcher_), index=current.task_ids)
                values = score.reindex(pairs["task"]).to_numpy()
                top = np.flatnonzero(values == values.max())
                pick = int(rng.choice(top))
                task, labeler, utility = pairs["task"].iloc[pick], pairs["labeler"].iloc[pick], float(values[pick])
            else:
                pick = int(rng.integers(len(pairs)))
                task, labeler = pairs["task"].iloc[pick], pairs["labeler"].iloc[pick]
            label = _ask(oracle, task, labeler)
            new = pd.DataFrame({"task": [task], "labeler": [labeler], "label": [label]})
            model.update(new, n_sweeps=every if runs_chain else 0)
            rows.append((round_, task, labeler, label, utility))
            bar.advance(1)
    queries = pd.DataFrame(rows, columns=["round", "task", "labeler", "label", "utility"])
    labels = model._label_matrix()
    final = model
    if strategy in ("gold", "cons"):
        names = getattr(model, "feature_names_in_", None)
        features = model._pool_features if names is None else pd.DataFrame(
            model._pool_features, index=model._pool_ids, columns=list(names))
        final = (GOLD().fit(labels, features, researcher=model.researcher_) if strategy == "gold"
                 else CONS().fit(labels, features))
    return ActiveResult(final, queries, labels)
