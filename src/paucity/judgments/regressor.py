"""MultiSelectRegressor: which attributes to have judged, how many times each, and the regression on their means."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from threadpoolctl import threadpool_limits

from .._errors import InputError, InputTypeError, ParameterError, PaucityWarning, warn
from .._progress import progress_bar
from .._spelling import given, owner_prefix, spelled, spells
from .._validation import BOOLEAN, Instance, Interval, Options, check_is_fitted, validate_params
from ._text import listing
from .estimates import Moments, estimate_moments
from .judgments import as_judgments
from .objective import full_objective, full_weights, scoring_objective, scoring_weights
from .selection import GAIN_TOLERANCE, GreedyPath, forward_selection, greedy_full, greedy_scoring

__all__ = ["ALGORITHMS", "MultiSelectRegressor", "check_labels"]

ALGORITHMS = ("full", "scoring", "averages", "copies")


def check_labels(y, objects: pd.Index) -> pd.Series:
    """Labels of ``objects`` from a Series indexed by object: numeric, finite, one per object."""
    if isinstance(y, pd.DataFrame) and y.shape[1] == 1:
        y = y.iloc[:, 0]
    if not isinstance(y, pd.Series):
        raise InputTypeError(
            f"labels must be a pandas Series indexed by object name, got {type(y).__name__}."
        )
    values = pd.to_numeric(y, errors="coerce")
    bad = values.isna() & ~y.isna()
    if bad.any():
        first = y.index[np.flatnonzero(bad.to_numpy())[0]]
        raise InputError(f"{spelled('labels')} must be numbers; object {first!r} has {y[bad].iloc[0]!r}.")
    if values.isna().any() or not np.isfinite(values.to_numpy(dtype=float)).all():
        first = values.index[np.flatnonzero(~np.isfinite(values.to_numpy(dtype=float)))[0]]
        raise InputError(f"{spelled('labels')} must be finite numbers; object {first!r} has a missing or infinite label.")
    if values.index.has_duplicates:
        grouped = values.groupby(level=0)
        disagree = grouped.nunique() > 1
        if disagree.any():
            names = disagree.index[disagree.to_numpy()]
            raise InputError(
                f"{spelled('labels')} are given more than once, with different values, for object(s) {listing(names)}; "
                "keep one label per object."
            )
        values = grouped.first()
    missing = objects.difference(values.index)
    if len(missing):
        raise InputError(
            f"{len(missing)} judged object(s) have no label: {listing(missing)}. Give a label for every "
            "training object, or leave their judgments out."
        )
    return values.reindex(objects).astype(np.float64)


def _check_costs(costs, attributes: pd.Index, judged: pd.Index | None = None) -> pd.Series:
    """Cost of one judgment of each of ``attributes``: positive numbers, 1 where ``costs`` does not list one.

    A name that ``costs`` lists but no judgment has (``judged``: every attribute judged, before any is dropped)
    is refused: it is a misspelling more often than not, and its cost would be silently ignored."""
    if costs is None:
        return pd.Series(1.0, index=attributes, name="cost")
    if isinstance(costs, dict):
        costs = pd.Series(costs, dtype=object)
    if isinstance(costs, pd.DataFrame) and costs.shape[1] == 1:
        costs = costs.iloc[:, 0]
    if not isinstance(costs, pd.Series):
        raise InputTypeError(f"costs must be a pandas Series (or dict) of cost per attribute, got {type(costs).__name__}.")
    values = pd.to_numeric(costs, errors="coerce")
    bad = ~np.isfinite(values.to_numpy(dtype=float)) | (values.to_numpy(dtype=float) <= 0)
    if bad.any():
        first = costs.index[np.flatnonzero(bad)[0]]
        cost = costs.iloc[np.flatnonzero(bad)[0]]
        cost = cost.item() if isinstance(cost, np.generic) else cost  # 0, not np.int64(0)
        raise ParameterError(f"{spelled('costs')} must be positive numbers; attribute {first!r} costs {cost!r}.")
    if values.index.has_duplicates:
        raise ParameterError(f"{spelled('costs')} lists attribute(s) {listing(values.index[values.index.duplicated()])} twice.")
    judged = attributes if judged is None else judged
    unknown = values.index[~values.index.isin(judged)]
    if len(unknown):
        raise ParameterError(
            f"{spelled('costs')} names {len(unknown)} attribute(s) the judgments do not have: {listing(unknown)}; the judged "
            f"attributes are {listing(judged)}. Correct the name(s) or drop those rows."
        )
    return values.reindex(attributes).fillna(1.0).astype(np.float64).rename("cost")


class MultiSelectRegressor(RegressorMixin, BaseEstimator):
    """Feature multi-selection: a repeat vector within a budget, and linear regression on judgment means.

    Parameters
    ----------
    budget : float
        The cost allowed per new object: Σₐ cost[a]·r[a] ≤ budget (with
        unit costs, the number of judgments). A positive finite number.
        Full and Scoring stop early, leaving the rest unspent with a
        warning, once no affordable judgment raises their objective by more
        than :data:`~paucity.judgments.selection.GAIN_TOLERANCE` (10⁻⁴) of its
        value: a larger budget would not change the plan, and the run ends
        after a bounded number of steps however large the budget.
    algorithm : {"full", "scoring", "averages", "copies"}, default "full"
        "full" and "scoring": Algorithm 1 of seed 002 with the Full or the
        Scoring objective. "averages" and "copies": the baselines of §4,
        greedy forward selection by least-squares training error on the
        attributes' k-judgment means (each chosen attribute gets k judgments)
        or on the individual judgment copies (r[a] = copies chosen).
    costs : pandas.Series or dict, optional
        Cost of one judgment per attribute (default 1; attributes not listed
        cost 1; a name no judgment has is refused). The seed counts a numerical
        judgment as 4 binary ones.
    ridge : float, optional
        For ``algorithm="full"`` only: ``ridge``·I is added to every M_r
        before it is inverted, so the Full objective becomes
        b̂ᵀ(M_r + ridge·I)⁺b̂ with M_r = sub_r(Σ̂ + Diag(v̂/r)) (§3.3): it
        limits over-fitting on small training sets. None (the default) is 0;
        giving it with another algorithm is an error.
    min_judgments : int, default 2
        Judgments needed of every attribute on every training object (k ≥ 2).
    drop_incomplete : bool, default False
        Drop objects and attributes short of ``min_judgments`` (reported in
        ``dropped_``) instead of raising an error. Every judged object still
        needs a label: one without is more likely a mistake than an object
        to leave out.
    progress : bool, default False
        Show a bar over the greedy steps.

    Attributes
    ----------
    algorithm_ : str
        The algorithm run (``algorithm`` in lower case).
    repeats_ : pandas.Series of int
        r[a], judgments per attribute for a new object. When the algorithm
        stopped with budget left (a baseline that ran out of attributes, or
        a budget beyond what can matter), ``repeats_.attrs["note"]`` says so.
    unspent_ : float
        Budget left unspent.
    path_ : pandas.DataFrame
        One row per greedy step: ``attribute``, ``cost``, ``spent``,
        ``objective`` (the algorithm's own: Scoring's for "scoring", Full's
        for the others) and ``projected_loss`` (Full's estimate, for every
        algorithm) after the step.
    objective_ : float
        The objective of the chosen repeats: Scoring's obĵₛ(r) for
        "scoring", Full's obĵ_f(r) for the others.
    moments_ : Moments
        The training estimates (b̂, v̂, Σ̂_k, ...).
    coef_ : pandas.Series
        Weights on the means of r[a] judgments: from the estimates at
        ``fit`` (w = M_r⁺ b̂ on the chosen attributes; for Scoring
        w[a] = b̂[a]/(σ̂²[a] + v̂[a]/r[a])), replaced by least squares on
        collected means by :meth:`refit`.
    intercept_ : float
    refitted_ : bool
        Whether ``coef_`` comes from :meth:`refit`.
    costs_ : pandas.Series
        The cost of one judgment of each attribute.
    training_counts_ : pandas.DataFrame
        Judgments per training object and attribute.
    dropped_ : DropReport
    attributes_ : pandas.Index

    Notes
    -----
    Seed 002 (Sabato & Kalai, ICML 2013), Algorithm 1 and §4. The steps of the
    seed's approach: (1) judge m labelled objects k times per attribute and
    :meth:`fit`; (2) :meth:`judgments_needed` lists what to collect so every
    training object has r[a] judgments; (3) :meth:`refit` on the means of
    r[a] judgments; (4) :meth:`predict` new objects judged r[a] times.
    :meth:`projected_loss` estimates E[Y²] − obĵ_f(r), the squared loss of
    the best linear predictor on r judgments, before buying any — with
    Full's estimate whatever the algorithm, so plans compare on one scale.
    :func:`paucity.judgments.plan` runs steps (1)–(3) in one call.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> rows, labels = [], {}
    >>> for i in range(200):
    ...     truth = rng.normal(size=2)
    ...     labels[f"o{i}"] = truth[0] + 0.1 * rng.normal()
    ...     for a, noise in (("useful", 1.0), ("useless", 0.1)):
    ...         value = truth[0] if a == "useful" else truth[1]
    ...         rows += [(f"o{i}", a, value + noise * rng.normal()) for _ in range(2)]
    >>> judgments = pd.DataFrame(rows, columns=["object", "attribute", "value"])
    >>> model = MultiSelectRegressor(budget=5).fit(judgments, pd.Series(labels))
    >>> model.repeats_.to_dict()
    {'useful': 5, 'useless': 0}
    """

    _parameter_constraints = {
        "budget": [Interval(numbers.Real, 0, None, closed="neither")],
        "algorithm": [Options(*ALGORITHMS)],
        "costs": [Instance(pd.Series, pd.DataFrame, dict, description="a pandas Series or dict of cost per attribute"),
                  None],
        "ridge": [Interval(numbers.Real, 0, None), None],
        "min_judgments": [Interval(numbers.Integral, 2, None)],
        "drop_incomplete": [BOOLEAN],
        "progress": [BOOLEAN],
    }

    def __init__(self, budget=10, algorithm: str = "full", costs=None, ridge: float | None = None,
                 min_judgments: int = 2, drop_incomplete: bool = False, progress: bool = False):
        self.budget = budget
        self.algorithm = algorithm
        self.costs = costs
        self.ridge = ridge
        self.min_judgments = min_judgments
        self.drop_incomplete = drop_incomplete
        self.progress = progress

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, judgments, y):
        """Choose the repeat vector from training objects judged k ≥ 2 times per attribute.

        Parameters
        ----------
        judgments : Judgments or pandas.DataFrame
            The training judgments (long format).
        y : pandas.Series
            A label per training object, indexed by object name.

        Returns
        -------
        self
        """
        params = validate_params(self)
        algorithm = params["algorithm"]
        if params["ridge"] is not None and algorithm != "full":
            leave = f"leave {spelled('ridge')} out" if spells("ridge") else "leave ridge=None"
            raise ParameterError(
                f"{owner_prefix('MultiSelectRegressor')}{spelled('ridge')} applies to {given('algorithm', 'full')} "
                f"only (ridge·I is added to M_r of the Full objective); {given('algorithm', algorithm)} does not use "
                f"it, so {leave}."
            )
        self.algorithm_ = algorithm
        self._ridge = float(params["ridge"] or 0.0)
        budget = float(self.budget)
        judgments = as_judgments(judgments)
        labels = check_labels(y, judgments.objects)  # every judged object needs a label, before anything is dropped
        judged = judgments.attributes
        judgments, report = judgments.complete(self.min_judgments, drop_incomplete=self.drop_incomplete)
        labels = labels.reindex(judgments.objects)
        attributes = judgments.attributes
        costs = _check_costs(self.costs, attributes, judged)
        cheapest = float(costs.min())
        if budget < cheapest:
            raise ParameterError(
                f"{given('budget', self.budget)} is smaller than the cheapest attribute ({costs.idxmin()!r}, cost {cheapest:g}); "
                "nothing could be bought."
            )
        counts = judgments.counts
        means = judgments.means().to_numpy()
        variances = judgments.variances().to_numpy()
        moments = estimate_moments(means, variances, counts.to_numpy(), labels.to_numpy())
        self._covariance = moments.external_covariance(self._ridge)  # Σ̂ + ridge·I, behind Full's estimate
        cost_values = costs.to_numpy()
        with progress_bar(None, f"choosing judgments ({algorithm})", self.progress) as bar:
            path, repeats = self._choose(judgments, moments, means, labels.to_numpy(), cost_values, budget, counts,
                                         bar)
        self.attributes_ = attributes
        self.moments_ = moments
        self.costs_ = costs
        self.training_counts_ = counts
        self.dropped_ = report
        self.repeats_ = pd.Series(repeats, index=attributes, name="judgments", dtype=np.int64)
        self.repeats_.index.name = "attribute"
        spent = float((repeats * cost_values).sum())
        self.unspent_ = budget - spent
        self._note(path, budget, spent)
        with threadpool_limits(1, user_api="blas"):  # small matrices: a second BLAS thread only adds waiting
            self.objective_ = self._objective(repeats)
            self.path_ = self._path_table(path, attributes, cost_values)
            self._estimate_coefficients()
        return self

    def _note(self, path: GreedyPath, budget: float, spent: float) -> None:
        """Say in ``repeats_.attrs["note"]`` (and warn, for a budget beyond what can matter) why budget is left."""
        if not len(path.chosen) and not path.saturated:
            self.repeats_.attrs["note"] = (
                f"{self.algorithm_} bought nothing: the cheapest thing it buys (an attribute's k judgments, for "
                f"averages) costs more than the budget of {budget:g}."
            )
        elif path.exhausted:
            self.repeats_.attrs["note"] = (
                f"{self.algorithm_} stopped with {self.unspent_:g} of the budget unspent: it had nothing left to buy "
                "(it gives an attribute at most the k judgments each training object has of it)."
            )
        elif path.saturated:
            note = (
                f"{self.algorithm_} stopped after spending {spent:g} of the budget of {budget:g}: no "
                f"further judgment raises its objective by more than {GAIN_TOLERANCE:g} of its value, so a larger "
                f"budget would not change the plan; {self.unspent_:g} is left unspent."
            )
            self.repeats_.attrs["note"] = note
            warn(note, PaucityWarning)

    def _choose(self, judgments, moments: Moments, means, labels, costs, budget: float, counts, bar):
        d = len(judgments.attributes)
        if self.algorithm_ == "scoring":
            path = greedy_scoring(moments.correlation, moments.external_variance(), moments.internal_variance, costs,
                                  budget, bar=bar)
            return path, path.repeats
        if self.algorithm_ == "full":
            path = greedy_full(moments.correlation, self._covariance, moments.internal_variance, costs, budget, bar=bar)
            return path, path.repeats
        k = counts.to_numpy().min(axis=0)  # judgments every training object has, per attribute
        if self.algorithm_ == "averages":
            path = forward_selection(means, labels, costs * k, budget, bar=bar)
            repeats = path.repeats * k
            return GreedyPath(repeats, path.chosen, path.objective, path.spent, path.exhausted), repeats
        # copies: the j-th judgment of each attribute is a column of its own
        columns, owners = [], []
        for a, attribute in enumerate(judgments.attributes):
            ragged = judgments.ragged(attribute)
            for j in range(k[a]):
                columns.append(ragged.values[ragged.offsets[:-1] + j])
                owners.append(a)
        owners = np.asarray(owners)
        path = forward_selection(np.column_stack(columns), labels, costs[owners], budget, bar=bar)
        repeats = np.bincount(owners[path.repeats > 0], minlength=d)
        return GreedyPath(repeats, owners[path.chosen], path.objective, path.spent, path.exhausted), repeats

    def _path_table(self, path: GreedyPath, attributes: pd.Index, costs: np.ndarray) -> pd.DataFrame:
        k = self.training_counts_.to_numpy().min(axis=0)
        repeats = np.zeros(len(attributes), dtype=np.int64)
        second_moment = self.moments_.label_second_moment
        rows = []
        for step, a in enumerate(path.chosen, start=1):
            bought = k[a] if self.algorithm_ == "averages" else 1  # Averages buys an attribute's k judgments at once
            repeats[a] += bought
            if self.algorithm_ == "full":  # the greedy run evaluated the same Full objective at each step
                objective = full = float(path.objective[step - 1])
            else:
                objective, full = self._objective(repeats), self._full(repeats)
            rows.append({
                "step": step,
                "attribute": attributes[a],
                "cost": float(costs[a] * bought),
                "spent": float((repeats * costs).sum()),
                "objective": objective,
                "projected_loss": second_moment - full,
            })
        return pd.DataFrame(rows, columns=["step", "attribute", "cost", "spent", "objective", "projected_loss"])

    # -- the objective and the projected loss -----------------------------------------------------
    def _repeat_array(self, repeats) -> np.ndarray:
        if repeats is None:
            return self.repeats_.to_numpy()
        if isinstance(repeats, dict):
            repeats = pd.Series(repeats, dtype=float)
        if isinstance(repeats, pd.Series):
            unknown = repeats.index.difference(self.attributes_)
            if len(unknown):
                raise InputError(f"repeats names attribute(s) not seen in training: {listing(unknown)}.")
            repeats = repeats.reindex(self.attributes_).fillna(0)
        repeats = np.asarray(repeats, dtype=np.float64)
        if repeats.shape != (len(self.attributes_),) or (repeats < 0).any() or np.any(repeats != np.round(repeats)):
            raise ParameterError(
                f"repeats must give a whole number >= 0 of judgments for each of the {len(self.attributes_)} attributes."
            )
        return repeats.astype(np.int64)

    def _full(self, repeats: np.ndarray) -> float:
        """Full's objective obĵ_f(r), on Σ̂ + ridge·I."""
        moments = self.moments_
        return full_objective(repeats, moments.correlation, self._covariance, moments.internal_variance)

    def _objective(self, repeats: np.ndarray) -> float:
        """The algorithm's own objective: Scoring's for "scoring", Full's for the others."""
        if self.algorithm_ == "scoring":
            moments = self.moments_
            return scoring_objective(repeats, moments.correlation, moments.external_variance(),
                                     moments.internal_variance)
        return self._full(repeats)

    def projected_loss(self, repeats=None) -> float:
        """Estimated squared loss of the best linear predictor on the means of r[a] judgments.

        E[Y²] − obĵ_f(r) (seed 002, §3, and Theorem 3.1), from the training
        estimates: see what buying more judgments would be worth before
        buying them. It is Full's estimate for every algorithm (with
        ``ridge`` for "full"), so the plans of different algorithms compare
        on one scale; Scoring's own objective is ``objective_``.

        Parameters
        ----------
        repeats : pandas.Series, dict or array, optional
            r, judgments per attribute (default ``repeats_``).
        """
        check_is_fitted(self, "repeats_")
        return float(self.moments_.label_second_moment - self._full(self._repeat_array(repeats)))

    # -- coefficients -----------------------------------------------------------------------------
    def _estimate_coefficients(self) -> None:
        moments = self.moments_
        repeats = self.repeats_.to_numpy().astype(np.float64)
        if self.algorithm_ == "scoring":
            weights = scoring_weights(repeats, moments.correlation, moments.external_variance(),
                                      moments.internal_variance)
        else:
            weights = full_weights(repeats, moments.correlation, self._covariance, moments.internal_variance)
        self.coef_ = pd.Series(weights, index=self.attributes_, name="coefficient")
        self.intercept_ = float(moments.label_mean - weights @ moments.feature_means)
        self.refitted_ = False

    def refit(self, judgments, y):
        """Least squares on the means of the first r[a] judgments of each training object (step 3).

        Parameters
        ----------
        judgments : Judgments or pandas.DataFrame
            Judgments of labelled objects, at least r[a] of every chosen
            attribute on each (see :meth:`judgments_needed`); extra ones are
            ignored.
        y : pandas.Series
            A label per object.

        Returns
        -------
        self
        """
        check_is_fitted(self, "repeats_")
        judgments = as_judgments(judgments)
        labels = check_labels(y, judgments.objects)
        used = self.repeats_[self.repeats_ > 0]
        weights = np.zeros(len(self.attributes_))
        if len(used):
            means = judgments.means(used, attributes=used.index).to_numpy()
            design = np.column_stack([np.ones(len(labels)), means])
            solution = np.linalg.lstsq(design, labels.to_numpy(), rcond=None)[0]
            intercept = float(solution[0])
            weights[self.attributes_.get_indexer(used.index)] = solution[1:]
        else:
            intercept = float(labels.mean())
        self.coef_ = pd.Series(weights, index=self.attributes_, name="coefficient")
        self.intercept_ = intercept
        self.refitted_ = True
        return self

    # -- planning and predicting ------------------------------------------------------------------
    def judgments_needed(self, repeats=None, judgments=None) -> pd.DataFrame:
        """How many more judgments to collect per training object and attribute to reach r (step 2).

        Parameters
        ----------
        repeats : optional
            r (default ``repeats_``).
        judgments : Judgments or DataFrame, optional
            What has been collected so far (default: the training judgments).

        Returns
        -------
        pandas.DataFrame
            ``object``, ``attribute``, ``have``, ``more``: one row per
            (training object, attribute) that needs more judgments.
        """
        check_is_fitted(self, "repeats_")
        target = pd.Series(self._repeat_array(repeats), index=self.attributes_)
        have = self.training_counts_ if judgments is None else as_judgments(judgments).counts
        have = have.reindex(index=self.training_counts_.index, columns=self.attributes_, fill_value=0)
        more = (target.to_numpy()[None, :] - have.to_numpy()).clip(min=0)
        rows, columns = np.nonzero(more)
        return pd.DataFrame(
            {
                "object": have.index[rows],
                "attribute": self.attributes_[columns],
                "have": have.to_numpy()[rows, columns].astype(np.int64),
                "more": more[rows, columns].astype(np.int64),
            }
        )

    def predict(self, judgments) -> pd.Series:
        """Predict the label of objects judged r[a] times (the first r[a] judgments are used; extra ones ignored).

        Returns
        -------
        pandas.Series
            One prediction per object, indexed by object.
        """
        check_is_fitted(self, "repeats_")
        judgments = as_judgments(judgments)
        used = self.repeats_[self.repeats_ > 0]
        prediction = np.full(len(judgments.objects), self.intercept_)
        if len(used):
            means = judgments.means(used, attributes=used.index)
            prediction = prediction + means.to_numpy() @ self.coef_[used.index].to_numpy()
        return pd.Series(prediction, index=judgments.objects, name="prediction")

    def score(self, judgments, y) -> float:
        """R² of :meth:`predict` on labelled objects."""
        from sklearn.metrics import r2_score

        judgments = as_judgments(judgments)
        labels = check_labels(y, judgments.objects)
        return float(r2_score(labels.to_numpy(), self.predict(judgments).to_numpy()))
