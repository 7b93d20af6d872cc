"""Convergence of several Markov chains: the split-R-hat (potential scale reduction)."""

from __future__ import annotations

import numpy as np

__all__ = ["split_rhat"]


def split_rhat(draws) -> np.ndarray:
    """Split-R-hat of each coordinate of draws from several chains.

    Every chain is cut into its first and second half (the middle draw of an
    odd-length chain is dropped), and the Gelman-Rubin statistic is computed
    over the 2 x n_chains halves: R-hat = sqrt(var+ / W), with W the mean
    within-half variance and var+ = (n - 1) / n W + B / n, B / n the variance
    of the half means. Values near 1 (say below 1.01-1.05) mean the halves
    agree; one chain is enough for a split-R-hat.

    Parameters
    ----------
    draws : array-like of shape (n_chains, n_draws, n_parameters) or (n_chains, n_draws)

    Returns
    -------
    numpy.ndarray of shape (n_parameters,) (a float for 2-D input)
        NaN where a half has fewer than 2 draws or every draw is equal.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> mixed = rng.normal(size=(2, 1000))
    >>> print(round(float(split_rhat(mixed)), 2))
    1.0
    >>> stuck = np.concatenate([np.zeros((1, 500)), np.ones((1, 500))], axis=1) + rng.normal(0, 0.1, (1, 1000))
    >>> bool(split_rhat(stuck) > 1.5)
    True
    """
    array = np.asarray(draws, dtype=np.float64)
    scalar = array.ndim == 2
    if scalar:
        array = array[:, :, None]
    n_chains, n_draws, n_parameters = array.shape
    half = n_draws // 2
    if half < 2:
        result = np.full(n_parameters, np.nan)
        return float(result[0]) if scalar else result
    halves = np.concatenate([array[:, :half], array[:, n_draws - half:]], axis=0)
    means = halves.mean(axis=1)
    within = halves.var(axis=1, ddof=1).mean(axis=0)
    between_over_n = means.var(axis=0, ddof=1)
    pooled = (half - 1) / half * within + between_over_n
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(within > 0, np.sqrt(pooled / within), np.nan)
    return float(result[0]) if scalar else result
