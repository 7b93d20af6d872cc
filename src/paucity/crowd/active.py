"""Active learning for BBMC: which (task, labeler) pair to ask next (seed 003, §3.5 and the Appendix).

The utility of a label y_{i',l'} is U = ||E[beta_r] - E[beta_r | y_{i',l'}]||_2 (eq. 3.12), its expected
utility I = E_y[U] over the predictive label probabilities. Scoring a pair exactly needs two Gibbs
chains per pair; the perturbed-chain approximation (eqs. 3.8-3.13) instead reuses consecutive states
(gamma^{s-1}, Z^{s-1}) -> gamma^s of the running chain: adding one label perturbs the gamma step by the
Sherman-Morrison update of Sigma (eqs. 3.11, 3.15-3.21), whose mean is known in closed form.

Plain functions on validated arrays (:func:`expected_utility`, :func:`subchain_utility`,
:func:`disagreement`), and :func:`active_loop`, which alternates Gibbs sweeps and queries as the seed's
experiment does, with the seed's baseline strategies.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.linalg import cho_factor, cho_solve

from .._errors import InputError
from .._progress import progress_bar
from .._validation import BOOLEAN, CALLABLE, RANDOM_STATE, Instance, Interval, Options, check_parameter, \
    check_random_state
from ._kernels import accumulate_shifts
from .gibbs import ChainState, LabelData, factor_precision, prepare, sweep
from .labels import LabelMatrix

__all__ = ["ActiveScores", "expected_utility", "subchain_utility", "disagreement", "ActiveResult", "active_loop",
           "STRATEGIES"]

STRATEGIES = ("bbmc", "rand", "dis", "gold", "cons", "mcmc")


@dataclass(frozen=True)
class ActiveScores:
    """Scores of candidate pairs.

    Attributes
    ----------
    utility : (C,) the expected utility I = p U(+1) + (1 - p) U(-1).
    positive : (C,) p, the predictive probability that the labeler says +1.
    shift : (C, 2, d) the approximate E[beta_r | y] - E[beta_r] for y = -1 (slot 0) and y = +1 (slot 1).
    """

    utility: np.ndarray
    positive: np.ndarray
    shift: np.ndarray


def _covariance(data: LabelData, Z, sigma: float) -> np.ndarray:
    precision = factor_precision(data, Z, sigma)
    factor = cho_factor(precision, lower=True)
    return cho_solve(factor, np.eye(precision.shape[0]))


def expected_utility(data: LabelData, traces, *, researcher: int, sigma: float, features, task, labeler,
                     ) -> ActiveScores:
    """Eqs. (3.11)-(3.13): the approximate expected utility of each candidate (task, labeler) pair.

    Parameters
    ----------
    data : LabelData
        The labels the chain runs on (they define Sigma given Z, eq. 3.5).
    traces : list of (gamma (S + 1, K, d), Z (S + 1, m, K)) pairs
        Consecutive states of each chain, oldest first.
    researcher : int
        Row of Z that is the researcher's.
    sigma : float
        The prior scale of the factors.
    features : (T, d) features of the candidate tasks.
    task, labeler : int64 (C,), each candidate's row of ``features`` and labeler index.

    Returns
    -------
    ActiveScores

    Notes
    -----
    For each consecutive pair of states s-1 -> s, with Sigma the covariance of gamma given Z^{s-1}
    (one Cholesky inverse per draw) and v = Z_{l'} x_{i'}, the perturbed step (3.11) minus the
    unperturbed draw gamma^s has, over the new latent t' and its noise, the mean

        Sigma v (E[t' | y, gamma^{s-1}, Z^{s-1}] - v^T gamma^s) / (1 + v^T Sigma v),

    where t' ~ N(x_{i'}^T beta_{l'}^{s-1}, 1) truncated to the side of y (eq. 3.3). Mapped to beta_r by
    Z_r^{s-1} and averaged over the draws it is E[beta_r | y] - E[beta_r] of eq. (3.13). Per draw the
    blocks Z_r^T Sigma[:, b] x_i and x_i^T Sigma_{b,b'} x_i are computed once per task (O(T K^2 d^2)),
    so each pair costs O(K d + K^2) per draw. p(y = +1) is the mean over the draws s of
    Phi(x_{i'}^T beta_{l'}^s). Draws of several chains are pooled.
    """
    features = np.ascontiguousarray(features, dtype=np.float64)
    task = np.ascontiguousarray(task, dtype=np.int64)
    labeler = np.ascontiguousarray(labeler, dtype=np.int64)
    n_tasks, d = features.shape
    shift = np.zeros((task.size, 2, d))
    positive = np.zeros(task.size)
    count = 0
    for gammas, assignments in traces:
        K = gammas.shape[1]
        for s in range(1, gammas.shape[0]):
            Z = np.ascontiguousarray(assignments[s - 1], dtype=np.float64)
            Sigma = _covariance(data, Z, sigma).reshape(K, d, K, d)
            # blocks[i, c, b, f] = sum_e x_ie Sigma[(c, e), (b, f)]
            blocks = (features @ Sigma.transpose(1, 0, 2, 3).reshape(d, K * K * d)).reshape(n_tasks, K, K, d)
            curvature = np.ascontiguousarray(np.einsum("icbf,if->icb", blocks, features))
            reach = np.ascontiguousarray(np.einsum("icbf,b->icf", blocks, Z[researcher]))
            previous = np.ascontiguousarray(features @ (Z @ gammas[s - 1]).T)
            new = np.ascontiguousarray(features @ (Z @ gammas[s]).T)
            current = np.ascontiguousarray(features @ (assignments[s] @ gammas[s]).T)
            accumulate_shifts(task, labeler, Z, reach, curvature, previous, new, current, shift, positive)
            count += 1
    shift /= max(count, 1)
    positive /= max(count, 1)
    norms = np.linalg.norm(shift, axis=2)
    utility = positive * norms[:, 1] + (1.0 - positive) * norms[:, 0]
    return ActiveScores(utility, positive, shift)


def subchain_utility(data: LabelData, state: ChainState, *, researcher: int, alpha: float, sigma: float,
                     baseline, positive, task, labeler, n_sweeps: int, rng) -> np.ndarray:
    """MCMC-ACT's score: two short Gibbs chains per candidate pair, one for each label value (seed 003, §3.6).

    Each chain starts from ``state`` with the candidate's label appended to the data and runs
    ``n_sweeps`` sweeps; E[beta_r | y] is the mean of beta_r over them, E[beta_r] is ``baseline`` (the
    running chain's mean), and the score is p U(+1) + (1 - p) U(-1) with p = ``positive``.

    Parameters
    ----------
    data : LabelData
        Labels on the task rows of ``data.X``; candidates index the same rows.
    state : ChainState
    baseline : (d,) E[beta_r] under the current labels.
    positive : (C,) p(y = +1) of each candidate.
    task, labeler : (C,) candidate pairs (rows of data.X, labeler indices).
    n_sweeps : int
    rng : numpy.random.Generator

    Returns
    -------
    (C,) scores.
    """
    n_labelers = data.n_labelers
    scratch = np.empty((3, data.task.size + 1))
    scores = np.empty(len(task))
    for c, (i, l) in enumerate(zip(task, labeler)):
        norms = []
        for sign in (-1.0, 1.0):
            grown = prepare(data.X, np.append(data.task, i), np.append(data.labeler, l), np.append(data.sign, sign),
                            n_labelers)
            current = state
            total = np.zeros(data.X.shape[1])
            for _ in range(n_sweeps):
                current = sweep(grown, current, alpha=alpha, sigma=sigma, rng=rng, fix_assignments=False,
                                scratch=scratch)
                total += current.Z[researcher] @ current.gamma
            norms.append(np.linalg.norm(total / n_sweeps - baseline))
        scores[c] = positive[c] * norms[1] + (1.0 - positive[c]) * norms[0]
    return scores


def disagreement(labels: LabelMatrix, *, exclude=None) -> np.ndarray:
    """DIS-ACT's score of each task: the share of its labels in the minority, min(n+, n-) / (n+ + n-).

    0 for a task without labels or with unanimous labels, 1/2 for an even split. ``exclude`` leaves a
    labeler (the researcher) out.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"task": [0, 0, 0, 1, 1], "labeler": ["a", "b", "c", "a", "b"],
    ...                       "label": [1, 1, -1, 1, 1]})
    >>> disagreement(LabelMatrix.from_long(table)).round(2)
    array([0.33, 0.  ])
    """
    values = labels.values.tocsc().astype(np.int64)
    if exclude is not None:
        keep = np.ones(labels.n_labelers, dtype=bool)
        keep[labels.labeler_index(exclude)] = False
        values = values[:, keep]
    plus = np.asarray((values > 0).sum(axis=1)).ravel()
    minus = np.asarray((values < 0).sum(axis=1)).ravel()
    total = plus + minus
    return np.where(total > 0, np.minimum(plus, minus) / np.maximum(total, 1), 0.0)


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
    >>> labels = LabelMatrix.from_long(pd.DataFrame(rows, columns=["task", "labeler", "label"]))
    >>> model = BBMC(n_factors=2, n_burnin=100, n_samples=100, random_state=0).fit(labels, X, researcher="me")
    >>> def researcher(task, labeler):
    ...     return int(np.sign(X.loc[task, "a"]))
    >>> result = active_loop(model, researcher, n_queries=2, every=20, random_state=0)
    >>> list(result.queries.columns), len(result.queries), result.labels.n_labels - labels.n_labels
    (['round', 'task', 'labeler', 'label', 'utility'], 2, 2)
    """
    from .baselines import CONS, GOLD
    from .bbmc import BBMC

    owner = "active_loop"
    check_parameter(model, "model", [Instance(BBMC, description="a fitted BBMC")], owner=owner)
    model._check_active()
    n_queries = check_parameter(n_queries, "n_queries", [Interval(numbers.Integral, 1, None)], owner=owner)
    every = check_parameter(every, "every", [Interval(numbers.Integral, 1, None)], owner=owner)
    strategy = check_parameter(strategy, "strategy", [Options(*STRATEGIES)], owner=owner)
    n_subchain_sweeps = check_parameter(n_subchain_sweeps, "n_subchain_sweeps", [Interval(numbers.Integral, 1, None)],
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
