"""BBMC: Bayesian bias mitigation for crowdsourcing (seed 003, chapter 3)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.special import log_ndtr, ndtr
from sklearn.base import BaseEstimator

from .._errors import InputError, InputTypeError, ParameterError
from .._progress import progress_bar
from .._validation import BOOLEAN, RANDOM_STATE, Interval, check_is_fitted, check_random_state, validate_params
from ._predictor import LabelPredictor
from .convergence import split_rhat
from .gibbs import prepare, run_chain
from .labels import LabelMatrix, align_features

__all__ = ["BBMC"]

_CHUNK = 2_000_000  # entries of a (tasks x draws) block held at once when averaging over draws


def _researcher_column(labels, researcher) -> int:
    if not isinstance(labels, LabelMatrix):
        raise InputTypeError(
            f"labels must be a LabelMatrix (e.g. LabelMatrix.from_long(table, ...)), got {type(labels).__name__}."
        )
    if researcher is None:
        raise ParameterError(
            "researcher= is required: the labeler id whose gold labels the model learns to predict "
            f"(one of {list(labels.labeler_ids)[:5]}...)."
        )
    position = labels.labeler_index(researcher)
    if labels.values.getcol(position).nnz == 0:
        raise InputError(
            f"The researcher {researcher!r} has no gold labels in the label matrix; "
            "add some of her labels (her column) before fitting."
        )
    return position


class BBMC(LabelPredictor, BaseEstimator):
    """Bayesian bias mitigation for crowdsourcing: the researcher's probit model, pooled with a biased crowd.

    Every labeler l (the researcher r included) answers task i by a probit
    model, p(y_{i,l} | x_i) = Phi(y_{i,l} x_i^T beta_l) (eq. 3.1), whose weights
    are a sum of shared factors, beta_l = sum_b z_{l,b} gamma_b, with
    gamma_b ~ N(0, sigma^2 I) and Z a binary labelers x factors matrix under
    the Indian buffet process truncated at ``n_factors`` columns (eqs.
    3.6-3.7). The posterior of beta_r borrows from the labelers who share the
    researcher's factors, so a few gold labels go a long way, and biased
    labelers inform the model without misleading it.

    Parameters
    ----------
    n_factors : int, default 4
        K, the number of latent factors (columns of Z).
    alpha : float, default 1.0
        The IBP's concentration alpha (the seed's name): each factor's prior
        share of labelers is Beta(alpha / K, 1). Not a penalty weight.
    sigma : float, default 1.0
        Prior standard deviation of every coordinate of every factor gamma_b.
    n_burnin : int, default 2000
        Gibbs sweeps discarded at the start of each chain.
    n_samples : int, default 20000
        Gibbs sweeps after burn-in per chain; every ``thin``-th is kept, so
        each chain keeps ``n_samples // thin`` draws.
    thin : int, default 1
    n_chains : int, default 1
        Independent chains, run one after another, each with its own seed
        drawn from ``random_state``.
    random_state : int, numpy.random.Generator or None
    progress : bool, default False
        Show a progress bar over the sweeps.

    Attributes
    ----------
    samples_ : numpy.ndarray of shape (n_chains * (n_samples // thin), n_features)
        Draws of the researcher's weights beta_r, chains one after another.
    coef_ : numpy.ndarray of shape (n_features,)
        Their mean, the posterior mean of beta_r.
    rhat_ : numpy.ndarray of shape (n_features,)
        Split-R-hat of each coordinate of beta_r over the chains' kept draws.
    labeler_factors_ : pandas.DataFrame (labelers x factors)
        Posterior mean of Z by labeler id: which labelers share which factors
        with the researcher. Factor order is arbitrary; chains are matched to
        the first chain's order (columns of Z's means paired by least squares).
    labeler_weights_ : pandas.DataFrame (labelers x features)
        Posterior mean of every labeler's beta_l.
    states_ : list of ChainState
        Each chain's last state (gamma, Z, t), where a continued run would start.
    classes_ : numpy.ndarray
        The negative and the positive label value, in the label matrix's words.
    label_mapping_ : dict
    researcher_ : the researcher's labeler id
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray (when X was a DataFrame)

    Notes
    -----
    Seed 003, chapter 3: the model of §3.3 (eqs. 3.1, 3.6-3.7) and the Gibbs
    sampler of §3.4 (eqs. 3.3-3.5, 3.7); predictions by eq. (3.2). Each
    sweep draws T (eq. 3.3, by inverting the truncated normal's CDF in log
    space), then gamma given T and Z (eqs. 3.4-3.5, through a Cholesky
    factor of the Kd x Kd precision), then Z entry by entry (eq. 3.7, compiled).

    **The researcher** is a labeler like any other: her gold labels are her
    column of the label matrix (``fit(..., researcher=her_id)``), and her
    row z_r of Z is sampled like every other row; the model is symmetric and
    only the quantity reported, beta_r = Z_r^T gamma, singles her out.

    Choices the seed leaves open, made here:

    - Eq. (3.6)'s denominator is the number of *labelers* m (the rows of Z),
      as in the finite Beta-Bernoulli model the truncated IBP comes from; the
      seed's "n" there would be the number of tasks.
    - Eq. (3.5) writes mu without its factor Sigma; the conditional mean used
      is Sigma sum_{(i,l)} Z_l x_i t_{i,l}, as eq. (3.10) shows.
    - Eq. (3.7) uses the labels' probit likelihood given gamma (the t's
      integrated out); the sweep order T, gamma, Z makes (Z, T) a joint draw
      given gamma, so the chain keeps the posterior invariant.
    - No intercept: beta_l multiplies x_i as given. Add a constant column to
      X for one.
    - Each chain starts from gamma drawn from its prior and each z_{l,b} a
      fair coin.
    - ``predict`` says the positive label when its probability exceeds 1/2.
    - ``log_likelihood`` is Table 3.1's: the log likelihood of eq. (3.1) on
      the researcher's labels, averaged over the draws of beta_r (the mean
      of the log, not the log of the mean predictive probability).
    - R-hat is the classic split-R-hat (Gelman et al., BDA3), one chain
      giving two halves.

    Tasks without labels add nothing to the fit; tasks of X the label matrix
    does not hold are ignored. Memory: the kept draws (n_chains x n_samples //
    thin x n_features floats); a sweep costs O(N K d + m K^2 d^2 + (K d)^3)
    for N labels and m labelers.

    Examples
    --------
    Twelve labelers: eight answer like the researcher, four the opposite way.
    The researcher labelled only four tasks.

    >>> import numpy as np, pandas as pd
    >>> from paucity.crowd import BBMC, LabelMatrix
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> truth = np.where(X @ [2.0, -1.0] > 0, "yes", "no")
    >>> rows = [(i, f"w{l}", truth[i] if l < 8 else ("no" if truth[i] == "yes" else "yes"))
    ...         for i in range(60) for l in range(12) if rng.random() < 0.3]
    >>> rows += [(i, "me", truth[i]) for i in range(4)]
    >>> table = pd.DataFrame(rows, columns=["task", "labeler", "label"])
    >>> labels = LabelMatrix.from_long(table, positive="yes")
    >>> features = pd.DataFrame(X, columns=["a", "b"])
    >>> model = BBMC(n_factors=2, n_burnin=200, n_samples=400, random_state=0).fit(labels, features, researcher="me")
    >>> new = pd.DataFrame([[1.0, -1.0], [-1.0, 1.0]], columns=["a", "b"])
    >>> model.predict(new)
    array(['yes', 'no'], dtype='<U3')
    >>> print(np.round(model.predict_proba(new)[:, 1], 1))
    [1. 0.]
    """

    _parameter_constraints = {
        "n_factors": [Interval(numbers.Integral, 1, None)],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "sigma": [Interval(numbers.Real, 1e-100, 1e100)],
        "n_burnin": [Interval(numbers.Integral, 0, None)],
        "n_samples": [Interval(numbers.Integral, 1, None)],
        "thin": [Interval(numbers.Integral, 1, None)],
        "n_chains": [Interval(numbers.Integral, 1, None)],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
    }
    _parameter_hints = {
        "n_factors": "K is the number of latent factors (at least 1).",
        "sigma": "sigma is the prior standard deviation of the factors; values near 1 suit standardized features.",
    }

    def __init__(self, n_factors=4, alpha=1.0, sigma=1.0, n_burnin=2000, n_samples=20000, thin=1, n_chains=1,
                 random_state=None, progress=False):
        self.n_factors = n_factors
        self.alpha = alpha
        self.sigma = sigma
        self.n_burnin = n_burnin
        self.n_samples = n_samples
        self.thin = thin
        self.n_chains = n_chains
        self.random_state = random_state
        self.progress = progress

    def fit(self, labels, X, researcher=None):
        """Run the Gibbs sampler on crowd labels and task features.

        Parameters
        ----------
        labels : LabelMatrix
            The crowd's labels with the researcher's gold labels as one column.
        X : array-like of shape (labels.n_tasks, n_features) or pandas.DataFrame
            Task features: an array in the label matrix's task order, or a
            DataFrame indexed by task id (extra rows are ignored).
        researcher : object
            The researcher's labeler id.

        Returns
        -------
        self
        """
        params = validate_params(self)
        if params["thin"] > params["n_samples"]:
            raise ParameterError(
                f"thin={params['thin']} exceeds n_samples={params['n_samples']}, so no draw would be kept; "
                "lower thin or raise n_samples."
            )
        position = _researcher_column(labels, researcher)
        features, names = align_features(labels, X)
        task, labeler, sign = labels.triples()
        data = prepare(features, task, labeler, sign, labels.n_labelers)
        rng = check_random_state(params["random_state"])
        chain_rngs = rng.spawn(params["n_chains"])
        sweeps = params["n_burnin"] + params["n_samples"]
        chains = []
        with progress_bar(params["n_chains"] * sweeps, "BBMC Gibbs sweeps", enabled=params["progress"]) as bar:
            for chain_rng in chain_rngs:
                try:
                    with np.errstate(over="raise", invalid="raise", divide="raise"):
                        chain = run_chain(
                            data, researcher=position, n_factors=params["n_factors"], alpha=float(params["alpha"]),
                            sigma=float(params["sigma"]), n_burnin=params["n_burnin"],
                            n_samples=params["n_samples"], thin=params["thin"], rng=chain_rng, bar=bar,
                        )
                except (ArithmeticError, FloatingPointError, np.linalg.LinAlgError, ValueError) as error:
                    chain = error
                if isinstance(chain, Exception) or not np.all(np.isfinite(chain.beta)):
                    largest = float(np.abs(features).max())
                    raise InputError(
                        f"The sampler met numbers too large or too small to represent (features up to {largest:.3g} "
                        f"in magnitude, sigma={params['sigma']!r}); standardize X (e.g. to unit variance) and keep "
                        "sigma near 1."
                    ) from (chain if isinstance(chain, Exception) else None)
                chains.append(chain)
        draws = np.stack([chain.beta for chain in chains])
        self.samples_ = draws.reshape(-1, features.shape[1])
        self.coef_ = self.samples_.mean(axis=0)
        self.rhat_ = split_rhat(draws)
        factors = [chains[0].assignment_mean]
        weights = [chain.weight_mean for chain in chains]
        for chain in chains[1:]:
            cost = ((chains[0].assignment_mean[:, :, None] - chain.assignment_mean[:, None, :]) ** 2).sum(axis=0)
            _, order = linear_sum_assignment(cost)
            factors.append(chain.assignment_mean[:, order])
        self._record_fit(labels, names, features.shape[1], researcher)
        feature_columns = names if names is not None else [f"x{j}" for j in range(features.shape[1])]
        self.labeler_factors_ = pd.DataFrame(
            np.mean(factors, axis=0), index=labels.labeler_ids,
            columns=[f"factor_{b}" for b in range(params["n_factors"])],
        )
        self.labeler_weights_ = pd.DataFrame(np.mean(weights, axis=0), index=labels.labeler_ids,
                                             columns=feature_columns)
        self.states_ = [chain.state for chain in chains]
        return self

    def _margins(self, features):
        """x^T beta_r^s for blocks of tasks: yields (rows, margins of shape (len(rows), S))."""
        step = max(1, _CHUNK // max(1, self.samples_.shape[0]))
        for start in range(0, features.shape[0], step):
            rows = slice(start, start + step)
            yield rows, features[rows] @ self.samples_.T

    def _positive_probability(self, features) -> np.ndarray:
        """Eq. (3.2): the mean over draws of Phi(x^T beta_r^s)."""
        out = np.empty(features.shape[0])
        for rows, margins in self._margins(features):
            out[rows] = ndtr(margins).mean(axis=1)
        return out

    def _sum_log_likelihood(self, features, signs) -> float:
        """Table 3.1: sum over tasks of log Phi(y x^T beta_r^s), averaged over the draws."""
        total = 0.0
        for rows, margins in self._margins(features):
            total += float(log_ndtr(signs[rows, None] * margins).sum(axis=0).mean())
        return total

    def log_likelihood(self, labels, X, *, researcher=None) -> float:
        """Table 3.1's log likelihood: eq. (3.1) on the researcher's labels, averaged over the draws of beta_r.

        Parameters
        ----------
        labels : LabelMatrix or 1-D array-like
            A LabelMatrix (its column ``researcher``, by default the one fitted
            on, is evaluated; X aligned by task id), or the researcher's label
            values, one per row of X.
        X : array-like or pandas.DataFrame
        researcher : object, optional

        Returns
        -------
        float
            mean_s sum_i log Phi(y_i x_i^T beta_r^s) (higher is better).
        """
        check_is_fitted(self, "samples_")
        return super().log_likelihood(labels, X, researcher=researcher)
