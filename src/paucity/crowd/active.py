"""Active learning for BBMC: which (task, labeler) pair to ask next (seed 003, §3.5 and the Appendix).

The utility of a label y_{i',l'} is U = ||E[beta_r] - E[beta_r | y_{i',l'}]||_2 (eq. 3.12), its expected
utility I = E_y[U] over the predictive label probabilities. Scoring a pair exactly needs two Gibbs
chains per pair; the perturbed-chain approximation (eqs. 3.8-3.13) instead reuses consecutive states
(gamma^{s-1}, Z^{s-1}) -> gamma^s of the running chain: adding one label perturbs the gamma step by the
Sherman-Morrison update of Sigma (eqs. 3.11, 3.15-3.21), whose mean is known in closed form.

Plain functions on validated arrays: :func:`expected_utility` (BBMC-ACT's score), :func:`subchain_utility`
(MCMC-ACT's) and :func:`disagreement` (DIS-ACT's). :func:`paucity.crowd.active_loop` (in ``loop``) runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ._kernels import accumulate_shifts
from .gibbs import ChainState, LabelData, factor_precision, prepare, sweep
from .labels import LabelMatrix

__all__ = ["ActiveScores", "expected_utility", "subchain_utility", "disagreement"]


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
    >>> disagreement(LabelMatrix.from_frame(table)).round(2)
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
