"""Convergence of several Markov chains: the split-R-hat (potential scale reduction)."""

from __future__ import annotations

import numpy as np

__all__ = ["split_rhat", "effective_sample_size"]


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
    halves, n_parameters, scalar = _split(draws, least=2)
    if halves is None:
        return _shaped(np.full(n_parameters, np.nan), scalar)
    half = halves.shape[1]
    means = halves.mean(axis=1)
    within = halves.var(axis=1, ddof=1).mean(axis=0)
    between_over_n = means.var(axis=0, ddof=1)
    pooled = (half - 1) / half * within + between_over_n
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(within > 0, np.sqrt(pooled / within), np.nan)
    return _shaped(result, scalar)


def _split(draws, least: int) -> tuple[np.ndarray | None, int, bool]:
    """Every chain of ``draws`` cut into its first and second half (the middle draw of an odd length dropped):
    the 2 x n_chains halves as (halves, draws, parameters), None where a half would have fewer than ``least``
    draws; the number of parameters; and whether the draws were 2-D (one parameter, answered as a float)."""
    array = np.asarray(draws, dtype=np.float64)
    scalar = array.ndim == 2
    if scalar:
        array = array[:, :, None]
    n_draws = array.shape[1]
    half = n_draws // 2
    if half < least:
        return None, array.shape[2], scalar
    return np.concatenate([array[:, :half], array[:, n_draws - half:]], axis=0), array.shape[2], scalar


def _shaped(result: np.ndarray, scalar: bool):
    return float(result[0]) if scalar else result


def _autocovariance(x: np.ndarray) -> np.ndarray:
    """The autocovariance of each series along axis 1 (biased, lag 0 to n - 1), by FFT: x of shape (c, n, p)."""
    n = x.shape[1]
    centred = x - x.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    return np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=1)[:, :n] / n


def effective_sample_size(draws) -> np.ndarray:
    """The effective sample size of each coordinate of draws from several chains (split chains, as split-R-hat).

    Every chain is cut in two halves; the autocorrelation at lag t is 1 − (W − mean autocovariance) / var+
    (Gelman et al., BDA3, §11.5, as Stan computes it), summed in pairs up to the first negative pair and kept
    monotone (Geyer's initial monotone sequence): ESS = (number of draws) / (1 + 2 Σ ρ_t). Draws as
    independent as can be give about their number; a chain that barely moves gives a few.

    Parameters
    ----------
    draws : array-like of shape (n_chains, n_draws, n_parameters) or (n_chains, n_draws)

    Returns
    -------
    numpy.ndarray of shape (n_parameters,) (a float for 2-D input)
        NaN where a half has fewer than 4 draws or every draw is equal.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> independent = rng.normal(size=(2, 1000))
    >>> 1500 < float(effective_sample_size(independent)) < 2500
    True
    >>> walk = np.cumsum(rng.normal(size=(2, 1000)), axis=1)   # each draw a small step from the last
    >>> float(effective_sample_size(walk)) < 50
    True
    """
    chains, n_parameters, scalar = _split(draws, least=4)  # (c, n, p)
    if chains is None:
        return _shaped(np.full(n_parameters, np.nan), scalar)
    c, n, _ = chains.shape
    acov = _autocovariance(chains)
    within = acov[:, 0].mean(axis=0) * n / (n - 1)
    between_over_n = chains.mean(axis=1).var(axis=0, ddof=1)
    pooled = (n - 1) / n * within + between_over_n
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (within - acov.mean(axis=0)) / pooled  # (n, p)
    rho[0] = 1.0
    pairs = rho[:-1:2] + rho[1::2] if n % 2 == 0 else rho[:-2:2] + rho[1:-1:2]
    positive = np.cumprod(pairs > 0, axis=0).astype(bool)  # up to the first non-positive pair
    monotone = np.minimum.accumulate(np.where(positive, pairs, np.inf), axis=0)
    total = np.where(positive, monotone, 0.0).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = -1.0 + 2.0 * total
        result = np.where((within > 0) & np.isfinite(tau), c * n / np.maximum(tau, 1.0 / np.log10(max(c * n, 10))),
                          np.nan)
    return _shaped(result, scalar)
