"""BBMC: Bayesian bias mitigation for crowdsourcing (seed 003, chapter 3)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.special import log_ndtr, ndtr
from sklearn.base import BaseEstimator

from .._errors import InputError, InputTypeError, ParameterError
from .._spelling import given, spelled
from .._progress import progress_bar
from .._parallel import kernel_threads
from .._validation import (BOOLEAN, N_JOBS, RANDOM_STATE, Interval, Iterations, Options, check_is_fitted,
                           check_memory, check_parameter, check_random_state, validate_params)
from ._predictor import LabelPredictor
from .active import expected_utility, subchain_utility
from .chains import ROUND, Plan, executor, run_chains
from .gibbs import initial_state, prepare
from .labels import LabelMatrix, align_features, long_columns

__all__ = ["BBMC"]

_CHUNK = 2_000_000  # entries of a (tasks x draws) block held at once when averaging over draws
_TRACE = 1000  # consecutive states of each chain kept for active learning (the last sweeps run)


def _check_sizes(params: dict, *, n_labelers: int, n_columns: int) -> None:
    """Refuse, before the first sweep, the parameters whose arrays would not fit in memory (the largest of each)."""
    K, d = int(params["n_factors"]), n_columns
    factors = f"n_factors={K}"
    check_memory((n_labelers, K, K), cause=factors, owner="BBMC", what="the labelers' factor pairs")
    check_memory((K * d, K * d), cause=factors, owner="BBMC", what="the factors' precision matrix")
    longest = _kept_sweeps(params)
    check_memory((int(params["n_chains"]) * (min(_TRACE, longest) + 1), n_labelers, K), cause=factors, owner="BBMC",
                 what="the traced factor assignments")
    kept = int(params["n_chains"]) * (longest // int(params["thin"]))
    check_memory((kept, d), cause=f"{given('n_samples', params['n_samples'])} with {given('n_chains', params['n_chains'])}",
                 owner="BBMC", what="the kept draws",
                 hint=f"lower {spelled('n_samples')} or {spelled('n_chains')}, or raise {spelled('thin')}")


def _kept_sweeps(params) -> int:
    """The most sweeps per chain that can be kept: n_samples, or half of max_sweeps when the length is open."""
    if params["n_samples"] == "auto":
        burn = params["n_burnin"]
        return int(params["max_sweeps"]) - (int(burn) if burn != "auto" else int(params["max_sweeps"]) // 2)
    return int(params["n_samples"])


def _plan(params, *, n_burnin=None, n_samples=None) -> Plan:
    """The chains' length from the parameters (or the given lengths, as :meth:`BBMC.update` runs them)."""
    burn = params["n_burnin"] if n_burnin is None else n_burnin
    samples = params["n_samples"] if n_samples is None else n_samples
    if burn == "auto" and samples != "auto":
        burn = samples  # the first half of the sweeps run, as for an open length
    return Plan(n_burnin=None if burn == "auto" else int(burn), n_samples=None if samples == "auto" else int(samples),
                thin=int(params["thin"]), max_sweeps=int(params["max_sweeps"]), max_rhat=float(params["max_rhat"]),
                min_ess=float(params["min_ess"]) * int(params["n_chains"]), n_states=_TRACE + 1)


def _check_lengths(params) -> None:
    """thin keeps a draw; a fixed burn-in leaves room for sweeps under max_sweeps."""
    samples, burn = params["n_samples"], params["n_burnin"]
    if samples != "auto" and params["thin"] > samples:
        raise ParameterError(
            f"{given('thin', params['thin'])} exceeds {given('n_samples', samples)}, so no draw would "
            f"be kept; lower {spelled('thin')} or raise {spelled('n_samples')}."
        )
    if samples == "auto" and burn != "auto" and burn + 2 * ROUND > params["max_sweeps"]:
        raise ParameterError(
            f"{given('n_burnin', burn)} leaves fewer than {2 * ROUND} sweeps under "
            f"{given('max_sweeps', params['max_sweeps'])}; raise {spelled('max_sweeps')} or lower "
            f"{spelled('n_burnin')}."
        )


def _pool(labels, X, features):
    """Every task the model knows: the labelled ones (in the label matrix's order), then X's other rows.

    A DataFrame X may hold tasks nobody labelled yet: they are candidates for active learning
    (rows with missing or infinite features are left out). An array X holds the labelled tasks only.
    """
    if not isinstance(X, pd.DataFrame):
        return labels.task_ids, features
    extra = X.loc[~X.index.isin(labels.task_ids)]
    values = extra.to_numpy(dtype=np.float64) if len(extra) else np.empty((0, features.shape[1]))
    keep = np.isfinite(values).all(axis=1)
    ids = labels.task_ids.append(pd.Index(extra.index[keep])) if keep.any() else labels.task_ids
    return ids, np.ascontiguousarray(np.vstack([features, values[keep]]))


def _researcher_column(labels, researcher) -> int:
    if not isinstance(labels, LabelMatrix):
        raise InputTypeError(
            f"labels must be a LabelMatrix (e.g. LabelMatrix.from_frame(table, ...)), got {type(labels).__name__}."
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
    n_burnin : int or "auto", default "auto"
        Gibbs sweeps discarded at the start of each chain; "auto" discards
        the first half of the sweeps run (as many as are kept).
    n_samples : int or "auto", default "auto"
        Gibbs sweeps after burn-in per chain; every ``thin``-th is kept, so
        each chain keeps ``n_samples // thin`` draws. "auto" runs until the
        chains agree (see **Stopping** below), at most ``max_sweeps`` sweeps.
    thin : int, default 1
    n_chains : int, default 2
        Independent chains, each with its own generator spawned from
        ``random_state``: a chain's draws are the same wherever it runs.
    max_sweeps : int, default 22000
        The most sweeps per chain when ``n_samples="auto"`` (the seed's
        2,000 + 20,000).
    max_rhat : float, default 1.05
        The chains agree when the largest split-R-hat of beta_r's
        coordinates over the kept sweeps is at most this...
    min_ess : float, default 100
        ...and the smallest effective sample size of them, all chains
        together, is at least this many per chain (Vehtari et al., 2021,
        ask for 100 per chain before R-hat is trusted).
    n_jobs : int or None, default None
        How many chains run at once on threads (the sampler's kernels release
        the GIL); None: one per idle core. The draws do not depend on it.
    scheduler : "threads" or "dask", default "threads"
        "dask" runs every chain's rounds of sweeps as tasks on the open
        ``dask.distributed`` client (the labels are sent to every worker
        once), for crowds that outgrow one machine; the same draws as on
        threads.
    random_state : int, numpy.random.Generator or None
    progress : bool, default False
        Show a progress bar over the sweeps (with the latest R-hat and ESS
        when the length is open).

    Attributes
    ----------
    samples_ : numpy.ndarray of shape (n_chains * (kept sweeps // thin), n_features)
        Draws of the researcher's weights beta_r, chains one after another.
    coef_ : numpy.ndarray of shape (n_features,)
        Their mean, the posterior mean of beta_r.
    rhat_ : numpy.ndarray of shape (n_features,)
        Split-R-hat of each coordinate of beta_r over the chains' kept sweeps.
    ess_ : numpy.ndarray of shape (n_features,)
        Effective sample size of each coordinate of beta_r over the chains' kept sweeps.
    converged_ : bool
        Whether the chains agreed (``max_rhat``, ``min_ess``); True for a fixed length.
    stop_reason_ : str
        Why the last run stopped, in words, with its sweeps, R-hat and ESS.
    labeler_factors_ : pandas.DataFrame (labelers x factors)
        Posterior mean of Z by labeler id: which labelers share which factors
        with the researcher. Factor order is arbitrary; chains are matched to
        the first chain's order (columns of Z's means paired by least squares).
    labeler_weights_ : pandas.DataFrame (labelers x features)
        Posterior mean of every labeler's beta_l.
    states_ : list of ChainState
        Each chain's last state (gamma, Z, t), where :meth:`update` continues.
    n_sweeps_ : int
        Gibbs sweeps run per chain so far (burn-in, samples and every update).
    n_kept_ : int
        Sweeps per chain the last run kept (before ``thin``).
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
    factor of the Kd x Kd precision), then Z entry by entry (eq. 3.7, compiled),
    then the researcher's row z_r whole.

    **The researcher** is a labeler like any other: her gold labels are her
    column of the label matrix (``fit(..., researcher=her_id)``); the model is
    symmetric and only the quantity reported, beta_r = Z_r^T gamma, singles
    her out. After the entries of Z, every labeler who holds one of two
    factors may hold the other instead (a draw between the two, eq. 3.7
    given their sum): a group split over two factors with the same weights
    merges this way, which no single flip allows, and frees a factor. The
    sampler singles her out too, once per sweep: her row z_r is drawn from
    its 2^K values at once (given gamma and the other rows, eq. 3.7 for the
    whole row), because with hundreds of gold labels every value one flip
    away from hers is improbable and entry-by-entry flips leave chains where
    they started. Then every factor she holds alone is drawn again, five
    times by elliptical slice sampling and once along its scale
    (:func:`~paucity.crowd.gibbs.private_factor_moves`, the latent variables
    integrated out): her gold labels have no noise, so such a factor's scale
    is fixed by its prior alone, and the alternation of T and gamma moves it
    by small steps. Before those, for every ordered pair of factors, a move
    between nested and disjoint sharing that keeps every labeler's weights
    (a group holding both drops one while the other takes its value in, or
    the reverse), accepted by the prior's ratio: a crowd whose groups lean
    away from a common rule can be drawn two ways that no single flip joins.
    A fresh chain starts with her holding the last factor too, kept hers
    alone for its first 100 sweeps (all discarded), so that every chain
    begins where she has a factor of her own; in the first 20 of them Z is
    held at its start while gamma finds the crowd's consensus.

    **Stopping.** By default (``n_burnin="auto"``, ``n_samples="auto"``) the
    chains run in rounds of 100 sweeps; after every round from the second,
    the sweeps kept are the second half of those run, and the chains stop
    when, over the kept sweeps of all chains, the largest split-R-hat of
    beta_r's coordinates is at most ``max_rhat`` (1.05) and the smallest
    effective sample size (:func:`~paucity.crowd.convergence.effective_sample_size`)
    is at least ``min_ess`` (100) per chain, or after ``max_sweeps`` (22,000) sweeps,
    whichever comes first; ``stop_reason_`` says which. The seed's setting
    is a fixed 2,000 burn-in and 20,000 kept sweeps of one chain
    (``n_burnin=2000, n_samples=20000, n_chains=1``), still available: any
    integer ``n_samples`` fixes the length. beta_r is the quantity checked
    because it is what every prediction and probability is made of; the
    labelers' factors are not (their columns may swap between chains).

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
    - Each chain starts from gamma drawn from its prior and every labeler
      sharing the first factor only (the crowd's consensus, from which
      labelers split off).
    - ``predict`` says the positive label when its probability exceeds 1/2.
    - ``log_likelihood`` is Table 3.1's: the log likelihood of eq. (3.1) on
      the researcher's labels, averaged over the draws of beta_r (the mean
      of the log, not the log of the mean predictive probability).
    - R-hat is the classic split-R-hat (Gelman et al., BDA3), one chain
      giving two halves.

    Tasks without labels add nothing to the fit; the rows of a DataFrame X
    that the label matrix does not hold (with finite features) are kept as
    candidates for active learning (:meth:`suggest`). Memory: the labels and their features
    (about 24 + 8 d bytes a label, and 8 more per chain for its latents), the kept draws
    (n_chains x kept sweeps // thin x n_features floats). For active learning each chain also keeps its last min(1000, sweeps) consecutive states (gamma and Z).

    **Cost of a sweep**, for N labels, m labelers, K factors, d features and
    n_r gold labels: O(N d) for T, O(m K^2 d^2 + (K d)^3) for gamma, O(N K)
    probit log-CDFs for Z's entries and O(2^K n_r) for the researcher's row.

    **Active learning** (§3.5): :meth:`suggest` ranks (task, labeler) pairs
    by the expected shift of the posterior mean of beta_r that their label
    would cause, approximated from the running chain; :meth:`update` adds
    labels and continues the same chains; :func:`paucity.crowd.active_loop`
    alternates the two as the seed's experiment does.

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
    >>> labels = LabelMatrix.from_frame(table, positive="yes")
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
        "n_burnin": [Options("auto"), Iterations(0)],
        "n_samples": [Options("auto"), Iterations(1)],
        "thin": [Interval(numbers.Integral, 1, None)],
        "n_chains": [Interval(numbers.Integral, 1, None)],
        "max_sweeps": [Iterations(2 * ROUND)],
        "max_rhat": [Interval(numbers.Real, 1, None, closed="neither")],
        "min_ess": [Interval(numbers.Real, 0, None)],
        "n_jobs": [N_JOBS],
        "scheduler": [Options("threads", "dask")],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
    }
    _parameter_hints = {
        "n_factors": "n_factors is the number of latent factors, the seed's K (at least 1).",
        "sigma": "sigma is the prior standard deviation of the factors; values near 1 suit standardized features.",
        "n_burnin": "n_burnin is the sweeps discarded per chain, or 'auto' for the first half of those run.",
        "n_samples": "n_samples is the sweeps kept per chain, or 'auto' to run until the chains agree.",
        "max_sweeps": f"max_sweeps caps the sweeps per chain of an 'auto' run (at least {2 * ROUND}).",
        "max_rhat": "max_rhat is the largest split-R-hat at which the chains agree (above 1; 1.01-1.1 are usual).",
    }

    def __init__(self, n_factors=4, alpha=1.0, sigma=1.0, n_burnin="auto", n_samples="auto", thin=1, n_chains=2,
                 max_sweeps=22000, max_rhat=1.05, min_ess=100, n_jobs=None, scheduler="threads", random_state=None,
                 progress=False):
        self.n_factors = n_factors
        self.alpha = alpha
        self.sigma = sigma
        self.n_burnin = n_burnin
        self.n_samples = n_samples
        self.thin = thin
        self.n_chains = n_chains
        self.max_sweeps = max_sweeps
        self.max_rhat = max_rhat
        self.min_ess = min_ess
        self.n_jobs = n_jobs
        self.scheduler = scheduler
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
        _check_lengths(params)
        position = _researcher_column(labels, researcher)
        features, names = align_features(labels, X)
        pool_ids, pool_features = _pool(labels, X, features)
        task, labeler, sign = labels.triples()
        data = prepare(pool_features, task, labeler, sign, labels.n_labelers)
        _check_sizes(params, n_labelers=labels.n_labelers, n_columns=data.X.shape[1])
        rng = check_random_state(params["random_state"])
        self._chain_rngs = rng.spawn(params["n_chains"])
        self._record_fit(labels, names, features.shape[1], researcher)
        self._pool_ids, self._pool_features = pool_ids, pool_features
        self._labeler_ids, self._researcher_position = labels.labeler_ids, position
        self._data = data
        self.n_sweeps_ = 0
        starts = [initial_state(data, params["n_factors"], float(params["sigma"]), chain_rng, researcher=position)
                  for chain_rng in self._chain_rngs]
        self._run(params, starts, _plan(params), reserve=ROUND)
        return self

    def _run(self, params, states, plan: Plan, reserve: int = 0):
        """Run (or continue, from ``states``) every chain on ``self._data`` and set the fitted attributes;
        ``reserve`` sweeps at the start keep the last factor the researcher's alone (fresh chains only)."""
        data = self._data
        total = plan.n_burnin + plan.n_samples if plan.fixed else plan.max_sweeps
        description = "BBMC Gibbs sweeps" if plan.fixed else "BBMC Gibbs sweeps (until the chains agree)"
        options = dict(researcher=self._researcher_position, alpha=float(params["alpha"]),
                       sigma=float(params["sigma"]))
        with progress_bar(len(states) * total, description, enabled=params["progress"]) as bar, \
                kernel_threads(params["n_jobs"]) as threads, \
                executor(params["scheduler"], threads, len(states), data) as runner:
            try:
                pooled = run_chains(data, states, self._chain_rngs, plan, runner=runner, bar=bar, reserve=reserve,
                                    **options)
            except (ArithmeticError, FloatingPointError, np.linalg.LinAlgError, ValueError) as error:
                largest = float(np.abs(data.features).max()) if data.features.size else 0.0
                raise InputError(
                    f"The sampler met numbers too large or too small to represent (features up to {largest:.3g} "
                    f"in magnitude, sigma={params['sigma']!r}); standardize X (e.g. to unit variance) and keep "
                    "sigma near 1."
                ) from error
        if not np.all(np.isfinite(pooled.beta)):
            raise InputError(
                f"The sampler met numbers too large or too small to represent (sigma={params['sigma']!r}); "
                "standardize X (e.g. to unit variance) and keep sigma near 1."
            )
        self._chain_rngs = pooled.rngs
        d = data.X.shape[1]
        self.samples_ = pooled.beta.reshape(-1, d)
        self.coef_ = self.samples_.mean(axis=0)
        self.rhat_ = pooled.rhat
        self.ess_ = pooled.ess
        self.converged_ = pooled.converged
        self.stop_reason_ = pooled.reason
        self.n_kept_ = pooled.n_kept
        factors = [pooled.assignment_means[0]]
        for means in pooled.assignment_means[1:]:
            cost = ((pooled.assignment_means[0][:, :, None] - means[:, None, :]) ** 2).sum(axis=0)
            _, order = linear_sum_assignment(cost)
            factors.append(means[:, order])
        names = getattr(self, "feature_names_in_", None)
        feature_columns = list(names) if names is not None else [f"x{j}" for j in range(d)]
        self.labeler_factors_ = pd.DataFrame(
            np.mean(factors, axis=0), index=self._labeler_ids,
            columns=[f"factor_{b}" for b in range(params["n_factors"])],
        )
        self.labeler_weights_ = pd.DataFrame(np.mean(pooled.weight_means, axis=0), index=self._labeler_ids,
                                             columns=feature_columns)
        self.states_ = pooled.states
        self._traces = pooled.traces
        self.n_sweeps_ += pooled.n_sweeps

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

    # --- active learning (seed 003, §3.5) --------------------------------------------------------------------

    def _check_active(self) -> None:
        check_is_fitted(self, "states_")

    def _label_matrix(self) -> LabelMatrix:
        """The labels fitted so far (the fit's and every update's), over every task the model knows."""
        data = self._data
        values = sp.csr_matrix((data.sign.astype(np.int8), (data.task, data.labeler)),
                               shape=(len(self._pool_ids), len(self._labeler_ids)))
        return LabelMatrix(values, task_ids=self._pool_ids, labeler_ids=self._labeler_ids,
                           label_mapping=self.label_mapping_)

    def _candidate_labelers(self, labelers) -> list:
        if isinstance(labelers, str) and labelers in ("researcher", "crowd") and labelers not in self._labeler_ids:
            if labelers == "researcher":
                return [self.researcher_]
            return [l for l in self._labeler_ids if l != self.researcher_]
        chosen = [labelers] if isinstance(labelers, str) or np.ndim(labelers) == 0 else list(labelers)
        unknown = [l for l in chosen if l not in self._labeler_ids]
        if unknown or not chosen:
            raise ParameterError(
                f"labelers must be 'researcher', 'crowd' or a list of the fitted labelers' ids, got "
                f"{_short(unknown) if unknown else 'an empty list'}; known labelers: {_short(list(self._labeler_ids))}."
            )
        return list(pd.unique(pd.Series(chosen, dtype=object)))

    def _new_task_features(self, X, task_ids) -> tuple[pd.Index, np.ndarray]:
        """Features of the tasks in ``task_ids`` the model does not know, from X (indexed by task id)."""
        unknown = pd.Index(task_ids)[~pd.Index(task_ids).isin(self._pool_ids)].unique()
        if len(unknown) == 0:
            return unknown, np.empty((0, self.n_features_in_))
        if not isinstance(X, pd.DataFrame):
            raise InputError(
                f"{len(unknown)} task(s) are new to the model and have no features ({_short(list(unknown))}); "
                "pass X= as a DataFrame indexed by task id with their feature rows."
            )
        absent = unknown[~unknown.isin(X.index)]
        if len(absent):
            raise InputError(
                f"{len(absent)} task(s) new to the model are missing from X ({_short(list(absent))}); add their "
                "rows to X (indexed by task id)."
            )
        if not X.index.is_unique:
            raise InputError("X's index repeats task ids; give each task one row.")
        values = self._features(X.loc[unknown])
        if not np.isfinite(values).all():
            raise InputError("X has NaN or infinite features for new task(s); impute them or drop those tasks.")
        return unknown, values

    def _candidate_tasks(self, tasks, X) -> tuple[pd.Index, np.ndarray]:
        """Candidate task ids and the features of those the model does not know yet."""
        if tasks is None:
            return self._pool_ids, np.empty((0, self.n_features_in_))
        ids = pd.Index([tasks] if isinstance(tasks, str) or np.ndim(tasks) == 0 else list(tasks)).unique()
        if len(ids) == 0:
            raise ParameterError("tasks is an empty list; pass task ids, or None for every task the model knows.")
        _, new_features = self._new_task_features(X, ids)
        return ids, new_features

    def _candidates(self, labelers, tasks, X) -> pd.DataFrame:
        """Every (task, labeler) pair not labelled yet: columns task, labeler, row (into the pool and then the
        new tasks' features), labeler_index."""
        ids, new_features = self._candidate_tasks(tasks, X)
        known = self._pool_ids.get_indexer(ids)
        rows = known.copy()
        rows[known < 0] = len(self._pool_ids) + np.arange(int((known < 0).sum()))
        columns = np.array([self._labeler_ids.get_loc(l) for l in labelers], dtype=np.int64)
        row_grid = np.repeat(rows, columns.size)
        column_grid = np.tile(columns, rows.size)
        m = len(self._labeler_ids)
        labelled = self._data.task * m + self._data.labeler
        keep = ~np.isin(row_grid * m + column_grid, labelled)
        frame = pd.DataFrame({
            "task": np.repeat(np.asarray(ids, dtype=object), columns.size)[keep],
            "labeler": np.tile(np.asarray(self._labeler_ids[columns], dtype=object), rows.size)[keep],
            "row": row_grid[keep],
            "labeler_index": column_grid[keep],
        })
        frame.attrs["features"] = np.vstack([self._pool_features, new_features]) if len(new_features) \
            else self._pool_features
        return frame

    def suggest(self, n=1, labelers="researcher", tasks=None, X=None) -> pd.DataFrame:
        """The (task, labeler) pairs whose label is expected to move the researcher's weights the most.

        The expected utility of asking labeler l' about task i' is I = E_y[U], with
        U = ||E[beta_r] - E[beta_r | y_{i',l'}]||_2 (eq. 3.12) and the expectation over the predictive
        probabilities of the two labels; E[beta_r | y] is approximated from the running chain by the
        perturbed-chain approximation (eqs. 3.8-3.13 and the Appendix), with no chain run per pair.

        Parameters
        ----------
        n : int, default 1
            How many pairs to return.
        labelers : "researcher", "crowd" or list of labeler ids, default "researcher"
            Who may be asked: the researcher (the seed's experiment), every other labeler, or those named.
        tasks : list of task ids, optional
            The candidate tasks. By default every task the model knows: the rows of X given to ``fit``
            (labelled or not, when X was a DataFrame) and to ``update``. Tasks new to the model need
            their features in ``X``.
        X : pandas.DataFrame, optional
            Features of candidate tasks new to the model, indexed by task id (the fitted columns).

        Returns
        -------
        pandas.DataFrame
            Columns task, labeler, utility; the best pair first, ``n`` rows. A pair already labelled is
            never a candidate; asking for more pairs than there are candidates raises
            ``ParameterError``.

        Notes
        -----
        Seed 003, §3.5. For each consecutive pair of recent states (gamma^{s-1}, Z^{s-1}) -> gamma^s
        of every chain, adding the label y to the data perturbs the gamma step (3.10) into (3.11),
        with Sigma_(i',l') from the Sherman-Morrison formula (3.15); the mean of the perturbed step
        minus the unperturbed draw gamma^s is Sigma v (E[t' | y] - v^T gamma^s) / (1 + v^T Sigma v)
        with v = Z_{l'} x_{i'}. Mapping it to beta_r by Z_r and averaging over the draws gives eq.
        (3.13). Cost: one Cholesky inverse and O(T K^2 d^2) per draw for T candidate tasks, then
        O(K d + K^2) per candidate pair and draw (compiled, parallel over pairs). Memory: 2 d + 1
        floats per candidate pair, and O(T (K^2 d + m)) per draw.

        Choices the seed leaves open, made here:

        - The draws: the last min(1000, sweeps run) consecutive sweeps of every chain (whatever
          ``thin``), pooled; after :meth:`update` the sweeps of that update.
        - Inside the expectation (3.13) the new latent t' and the Gaussian noise are integrated out
          exactly: t' ~ N(x_{i'}^T beta_{l'}^{s-1}, 1) truncated to the side of y (eq. 3.3), so
          E[t' | y] = m + y phi(m) / Phi(y m). The norm is taken after averaging over the draws.
        - The predictive probability of y = +1 is the mean over the same draws of Phi(x_{i'}^T beta_{l'}^s)
          (eq. 3.2 for labeler l').
        - Ties keep the candidates' order (tasks in the order given or known, labelers in the label
          matrix's order).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from paucity.crowd import BBMC, LabelMatrix
        >>> rng = np.random.default_rng(0)
        >>> X = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
        >>> rows = [(i, f"w{l}", int(np.sign(X.loc[i, "a"] + 0.3 * rng.normal()))) for i in range(40) for l in range(3)]
        >>> rows += [(i, "me", int(np.sign(X.loc[i, "a"]))) for i in range(3)]
        >>> labels = LabelMatrix.from_frame(pd.DataFrame(rows, columns=["task", "labeler", "label"]))
        >>> model = BBMC(n_factors=2, n_burnin=100, n_samples=200, random_state=0).fit(labels, X, researcher="me")
        >>> best = model.suggest(3)
        >>> list(best.columns), len(best), bool(best["utility"].is_monotonic_decreasing)
        (['task', 'labeler', 'utility'], 3, True)
        """
        self._check_active()
        n = check_parameter(n, "n", [Interval(numbers.Integral, 1, None)], owner="BBMC.suggest",
                            hint="n is the number of pairs to return.")
        chosen = self._candidate_labelers(labelers)
        pairs = self._candidates(chosen, tasks, X)
        if pairs.empty:
            raise InputError("Every candidate (task, labeler) pair is labelled already; name other tasks or labelers.")
        if n > len(pairs):
            raise ParameterError(
                f"BBMC.suggest: n = {n} but there are only {len(pairs)} (task, labeler) pairs not labelled yet; ask "
                f"for at most {len(pairs)}."
            )
        scores = self._utility(pairs)
        order = np.argsort(-scores.utility, kind="stable")[:n]
        return pd.DataFrame({"task": pairs["task"].to_numpy()[order], "labeler": pairs["labeler"].to_numpy()[order],
                             "utility": scores.utility[order]})

    def _utility(self, pairs: pd.DataFrame):
        unique_rows, task = np.unique(pairs["row"].to_numpy(), return_inverse=True)
        return expected_utility(self._data, self._traces, researcher=self._researcher_position,
                                sigma=float(self.sigma), features=pairs.attrs["features"][unique_rows],
                                task=task, labeler=pairs["labeler_index"].to_numpy())

    def _subchain_scores(self, pairs: pd.DataFrame, *, n_sweeps: int, rng) -> np.ndarray:
        """MCMC-ACT's scores of pool pairs: two subordinate chains per pair from the first chain's state."""
        rows = pairs["row"].to_numpy()
        labelers = pairs["labeler_index"].to_numpy()
        gammas, assignments = self._traces[0]
        betas = assignments[1:] @ gammas[1:]  # (S, m, d)
        positive = np.array([ndtr(betas[:, l] @ self._pool_features[i]).mean() for i, l in zip(rows, labelers)])
        baseline = (assignments[1:, self._researcher_position, :, None] * gammas[1:]).sum(axis=1).mean(axis=0)
        return subchain_utility(self._data, self.states_[0], researcher=self._researcher_position,
                                alpha=float(self.alpha), sigma=float(self.sigma), baseline=baseline,
                                positive=positive, task=rows, labeler=labelers, n_sweeps=n_sweeps, rng=rng)

    def update(self, new_labels, X=None, n_sweeps=None):
        """Add labels and continue the same chains from ``states_`` (no restart, no burn-in).

        Parameters
        ----------
        new_labels : LabelMatrix or pandas.DataFrame
            New labels: a label matrix, or a long table with columns task, labeler, label (or
            crowd-kit's task, worker, label; label values in the fitted label matrix's words). Labelers must be the fitted ones; tasks may be
            known or new (new ones need their features in X). A label equal to one already held is
            ignored; a different one is refused.
        X : pandas.DataFrame, optional
            Features of the new tasks, indexed by task id (the fitted columns).
        n_sweeps : int or "auto", optional
            Sweeps per chain after adding the labels (default ``n_samples``); every ``thin``-th is
            kept (at most n_sweeps // thin, at least one). 0 adds the labels and runs nothing: the draws
            stay those of the labels before. "auto" runs until the chains agree again, keeping the
            second half of the sweeps, as ``fit`` does.

        Returns
        -------
        self
            With ``samples_``, ``coef_``, ``rhat_``, ``labeler_factors_``, ``labeler_weights_`` from the
            new sweeps only (the posterior given every label so far), ``states_`` and ``n_sweeps_``
            (sweeps per chain since the start) moved on.
        """
        self._check_active()
        n_sweeps = self.n_samples if n_sweeps is None else n_sweeps
        n_sweeps = check_parameter(n_sweeps, "n_sweeps", [Options("auto"), Iterations(0)], owner="BBMC.update",
                                   hint="n_sweeps is the sweeps per chain to run after adding the labels, or 'auto'.")
        table = self._new_label_table(new_labels)
        new_ids, new_features = self._new_task_features(X, table["task"])
        pool_ids = self._pool_ids.append(new_ids) if len(new_ids) else self._pool_ids
        rows = pool_ids.get_indexer(table["task"]).astype(np.int64)
        columns = self._labeler_ids.get_indexer(table["labeler"]).astype(np.int64)
        mapping = self.label_mapping_
        signs = np.array([mapping[v] for v in table["label"]], dtype=np.float64)
        pairs = pd.DataFrame({"row": rows, "col": columns, "sign": signs}).drop_duplicates()
        if pairs.duplicated(["row", "col"]).any():
            raise InputError("new_labels give one (task, labeler) pair both labels; keep one label per pair.")
        m = len(self._labeler_ids)
        held = pd.Series(self._data.sign, index=self._data.task * m + self._data.labeler)
        codes = pairs["row"].to_numpy() * m + pairs["col"].to_numpy()
        seen = np.isin(codes, held.index.to_numpy())
        if seen.any():
            differ = held.loc[codes[seen]].to_numpy() != pairs["sign"].to_numpy()[seen]
            if differ.any():
                first = pairs[seen][differ].iloc[0]
                raise InputError(
                    f"task {pool_ids[int(first['row'])]!r} by labeler {self._labeler_ids[int(first['col'])]!r} is "
                    "labelled already with the other label; keep one label per pair."
                )
            pairs = pairs[~seen]
        features = np.vstack([self._pool_features, new_features]) if len(new_features) else self._pool_features
        data = self._data
        self._data = prepare(features, np.concatenate([data.task, pairs["row"].to_numpy(np.int64)]),
                             np.concatenate([data.labeler, pairs["col"].to_numpy(np.int64)]),
                             np.concatenate([data.sign, pairs["sign"].to_numpy(np.float64)]), m)
        self._pool_ids, self._pool_features = pool_ids, features
        if n_sweeps:
            params = dict(self.get_params(), thin=min(int(self.thin), n_sweeps) if n_sweeps != "auto" else self.thin)
            if n_sweeps == "auto":
                plan = _plan(params, n_burnin="auto", n_samples="auto")
            else:
                plan = _plan(params, n_burnin=0, n_samples=n_sweeps)
            self._run(params, list(self.states_), plan)
        return self

    def _new_label_table(self, new_labels) -> pd.DataFrame:
        if isinstance(new_labels, LabelMatrix):
            table = new_labels.to_long()
        elif isinstance(new_labels, pd.DataFrame):
            columns = long_columns(new_labels, what="new_labels", error=InputError, named=False)
            table = new_labels[list(columns)].set_axis(["task", "labeler", "label"], axis=1).reset_index(drop=True)
        else:
            raise InputTypeError(
                f"new_labels must be a LabelMatrix or a DataFrame with columns task, labeler (or worker), label, "
                f"got {type(new_labels).__name__}."
            )
        if table.empty:
            raise InputError("new_labels holds no labels; give at least one.")
        if table.isna().any(axis=None):
            raise InputError("new_labels has a missing task, labeler or label; drop or fill those rows.")
        values = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(table["label"])]
        unknown = [v for v in values if v not in self.label_mapping_]
        if unknown:
            raise InputError(f"new_labels hold value(s) {_short(unknown)} the model was not fitted on; its labels are "
                             f"{list(self.label_mapping_)}.")
        absent = [l for l in pd.unique(table["labeler"]) if l not in self._labeler_ids]
        if absent:
            raise ParameterError(f"new_labels name labeler(s) {_short(absent)} the model was not fitted on; known "
                                 f"labelers: {_short(list(self._labeler_ids))}. Refit to add labelers.")
        return table


def _short(values, limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    return "[" + shown + (", ..." if len(values) > limit else "") + "]"
