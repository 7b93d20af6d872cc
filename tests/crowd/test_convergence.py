"""Split-R-hat against its definition, computed by hand; effective sample size against a chain whose is known."""

import numpy as np
import pytest

from paucity.crowd import split_rhat


def test_split_rhat_by_hand():
    draws = np.array([[1.0, 2.0, 3.0, 4.0, 9.0], [2.0, 2.0, 5.0, 6.0, 1.0]])
    # halves (the middle draw of each chain dropped): [1,2], [2,2], [4,9], [6,1]
    halves = np.array([[1, 2], [2, 2], [4, 9], [6, 1]], dtype=float)
    n = 2
    W = halves.var(axis=1, ddof=1).mean()
    B_over_n = halves.mean(axis=1).var(ddof=1)
    expected = np.sqrt(((n - 1) / n * W + B_over_n) / W)
    assert split_rhat(draws) == expected


def test_split_rhat_per_parameter_and_degenerate_cases():
    rng = np.random.default_rng(0)
    draws = rng.normal(size=(3, 400, 2))
    draws[..., 1] += np.linspace(0, 5, 400)  # a trend: the halves disagree
    rhat = split_rhat(draws)
    assert rhat.shape == (2,)
    assert abs(rhat[0] - 1) < 0.02 and rhat[1] > 1.5
    assert np.isnan(split_rhat(np.zeros((2, 10))))
    assert np.isnan(split_rhat(np.ones((1, 3, 2)))).all()


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_effective_sample_size_of_an_autoregressive_chain_is_its_length_over_the_autocorrelation_time(rho):
    from paucity.crowd.convergence import effective_sample_size

    # x_t = rho x_{t-1} + e_t: the integrated autocorrelation time is (1 + rho) / (1 - rho)
    rng = np.random.default_rng(1)
    n_chains, n = 4, 20000
    noise = rng.normal(size=(n_chains, n))
    x = np.empty_like(noise)
    x[:, 0] = noise[:, 0] / np.sqrt(1 - rho**2)
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    expected = n_chains * n * (1 - rho) / (1 + rho)
    assert effective_sample_size(x) == pytest.approx(expected, rel=0.1)
    # chains stuck apart have few effective draws whatever their length
    apart = x + np.arange(n_chains)[:, None] * 10
    assert effective_sample_size(apart) < 0.01 * expected
