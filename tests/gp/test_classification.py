"""HeavyTailedProcessClassifier: the scikit-learn contract, its errors, eq. (4.11)'s gradient and selective shrinkage."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils.estimator_checks import check_non_transformer_estimators_n_iter, parametrize_with_checks

from paucity._errors import (InputError, InputTypeError, NotFittedError, ParameterError, PaucityWarning,
                             ShapeMismatchError)
from paucity.gp.classification import MAX_CLASSES, HeavyTailedProcessClassifier
from paucity.gp.marginals import MARGINALS


def clusters(seed=0, n_per_class=8):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(c, 0.5, size=(n_per_class, 2)) for c in (-2.0, 0.0, 2.0)])
    y = np.repeat(["a", "b", "c"], n_per_class)
    return X, y


FIXED = ConstantKernel(1.0, "fixed") * RBF(1.0, "fixed")


# scikit-learn's checks, with the kernel fixed: with optimize=True they pass too but take a minute,
# spent in L-BFGS on check_classifiers_train's 300 points (the Hessian is factored densely). The checks fit
# one estimator on two classes and on three: the Gaussian one keeps the default n_samples, since two
# Gaussian classes are predicted exactly and fit refuses any other value there.
@parametrize_with_checks(
    [
        HeavyTailedProcessClassifier(optimize=False, n_samples=100, random_state=0),
        HeavyTailedProcessClassifier(marginal="gaussian", optimize=False, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# every check at the defaults (optimize=True), as a user fits it: minutes of L-BFGS-B on the checks' data sets
@pytest.mark.slow
@parametrize_with_checks([HeavyTailedProcessClassifier()])
def test_sklearn_compatible_at_the_defaults(estimator, check):
    check(estimator)


def test_n_iter_counts_the_mode_search_that_found_the_mode():
    # the check that failed at the defaults: after the kernel's optimization the last mode search starts at its mode
    # (from the optimizer's last point) and finds it at once; that iteration counts, so n_iter_ is at least 1
    check_non_transformer_estimators_n_iter("HeavyTailedProcessClassifier", HeavyTailedProcessClassifier(random_state=0))


@pytest.mark.parametrize("marginal", MARGINALS)
def test_fit_predict_on_clusters(marginal):
    X, y = clusters()
    model = HeavyTailedProcessClassifier(marginal=marginal, random_state=0).fit(X, y)
    assert list(model.predict([[-2.0, -2.0], [0.0, 0.0], [2.0, 2.0]])) == ["a", "b", "c"]
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.latent_mode_.shape == (len(X), 3)
    assert model.n_features_in_ == 2 and list(model.classes_) == ["a", "b", "c"]
    assert np.isfinite(model.log_marginal_likelihood_)
    if marginal == "gaussian":
        assert model.b_ == 1.0  # not optimized: redundant with the kernel's amplitude
    assert not model.hessian_clipped_


def test_optimization_raises_the_log_marginal_likelihood():
    X, y = clusters()
    start = HeavyTailedProcessClassifier(marginal="hypsecant", optimize=False).fit(X, y)
    fitted = HeavyTailedProcessClassifier(marginal="hypsecant", random_state=0).fit(X, y)
    assert fitted.log_marginal_likelihood_ > start.log_marginal_likelihood_
    assert fitted.log_marginal_likelihood() == fitted.log_marginal_likelihood_
    # the fit keeps the mode its kernel search found from a warm start; log|H| moves at first order
    # with the mode, and here H is nearly singular, so a search from zero agrees on (4.11) only to
    # about 1e-6 (both stop at a gradient below tol = 1e-6)
    assert fitted.log_marginal_likelihood(fitted.kernel_.theta, fitted.b_) == pytest.approx(
        fitted.log_marginal_likelihood_, abs=1e-5)


def test_kernel_optimization_is_capped_and_says_so(monkeypatch):
    import paucity.gp.classification as classification

    X, y = clusters()
    monkeypatch.setattr(classification, "OPTIMIZER_MAX_ITER", 2)
    with pytest.warns(PaucityWarning, match="stopped after 2 L-BFGS-B iterations"):
        capped = HeavyTailedProcessClassifier(marginal="hypsecant", random_state=0).fit(X, y)
    start = HeavyTailedProcessClassifier(marginal="hypsecant", optimize=False).fit(X, y)
    assert capped.log_marginal_likelihood_ > start.log_marginal_likelihood_  # two steps still climb


def test_kernel_search_stops_when_the_likelihood_no_longer_rises(monkeypatch):
    # past its third evaluation every point is made 1 nat worse than it is: L-BFGS-B's line searches
    # fail one after another, and the search stops after OPTIMIZER_STALL_EVALUATIONS of them with the best
    import dataclasses

    import paucity.gp.classification as classification

    X, y = clusters()
    lml = classification.HeavyTailedProcessClassifier._lml
    seen = []

    def worse_after_three(self, *args, **kwargs):
        fit = lml(self, *args, **kwargs)
        if len(seen) >= 3:
            fit = dataclasses.replace(fit, log_marginal_likelihood=fit.log_marginal_likelihood - 1.0)
        seen.append((args[0].theta.copy(), args[3], fit.log_marginal_likelihood))
        return fit

    monkeypatch.setattr(classification.HeavyTailedProcessClassifier, "_lml", worse_after_three)
    model = HeavyTailedProcessClassifier(marginal="laplace", random_state=0).fit(X, y)
    values = [value for _, _, value in seen]
    best = int(np.argmax(values))
    assert best < 3
    assert len(seen) == best + 1 + classification.OPTIMIZER_STALL_EVALUATIONS
    np.testing.assert_array_equal(model.kernel_.theta, seen[best][0])
    assert model.b_ == seen[best][1]
    assert model.log_marginal_likelihood_ == values[best]


def test_kernel_search_on_many_points_starts_from_a_subsample_and_takes_a_short_first_step(monkeypatch):
    import paucity.gp.classification as classification

    X, y = clusters(n_per_class=10)
    monkeypatch.setattr(classification, "OPTIMIZER_SUBSAMPLE", 12)  # 30 points > 2 x 12
    lml = classification.HeavyTailedProcessClassifier._lml
    seen = []

    def record(self, kernel, X_, Y_, b, **kwargs):
        fit = lml(self, kernel, X_, Y_, b, **kwargs)
        seen.append((X_.shape[0], np.concatenate([kernel.theta, [np.log(b)]]), fit.log_marginal_likelihood))
        return fit

    monkeypatch.setattr(classification.HeavyTailedProcessClassifier, "_lml", record)
    model = HeavyTailedProcessClassifier(marginal="laplace", random_state=0).fit(X, y)
    sizes = [size for size, _, _ in seen]
    first_full = sizes.index(30)
    assert first_full > 0 and set(sizes[:first_full]) == {12} and set(sizes[first_full:]) == {30}
    sub = [(phi, value) for size, phi, value in seen[:first_full]]
    best_sub = max(sub, key=lambda item: item[1])[0]
    np.testing.assert_allclose(seen[first_full][1], best_sub)  # the full search starts at the subsample's best
    full = [phi for size, phi, _ in seen[first_full:]]
    for start, step in ((sub[0][0], sub[1][0]), (full[0], full[1])):  # L-BFGS-B's first step, scaled down
        assert np.max(np.abs(step - start)) <= classification.OPTIMIZER_FIRST_STEP + 1e-9
    assert model.log_marginal_likelihood_ >= max(value for size, _, value in seen if size == 30) - 1e-9


def test_stratified_subsample_keeps_every_class():
    from paucity.gp.classification import _stratified_subsample

    Y = np.zeros((3, 100))
    Y[0, :90], Y[1, 90:97], Y[2, 97:] = 1, 1, 1
    index = _stratified_subsample(Y, 20)
    counts = Y[:, index].sum(axis=1)
    assert counts.tolist() == [18, 2, 2]  # 90 % -> 18, and at least 2 of each rare class
    np.testing.assert_array_equal(index, np.sort(index))
    np.testing.assert_array_equal(index, _stratified_subsample(Y, 20))  # a fixed draw


def test_penalty_keeps_parameters_near_their_start():
    X, y = clusters()
    free = HeavyTailedProcessClassifier(marginal="laplace").fit(X, y)
    held = HeavyTailedProcessClassifier(marginal="laplace", alpha=100.0).fit(X, y)
    start = np.concatenate([ConstantKernel(1.0).theta, RBF(1.0).theta, [0.0]])
    distance = [np.linalg.norm(np.concatenate([m.kernel_.theta, [np.log(m.b_)]]) - start) for m in (free, held)]
    assert distance[1] < distance[0] and distance[1] < 0.1


def test_restarts_are_reproducible():
    X, y = clusters()
    one = HeavyTailedProcessClassifier(marginal="gaussian", n_restarts=2, random_state=3).fit(X, y)
    two = HeavyTailedProcessClassifier(marginal="gaussian", n_restarts=2, random_state=3).fit(X, y)
    np.testing.assert_allclose(one.kernel_.theta, two.kernel_.theta)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_log_marginal_likelihood_gradient_matches_finite_differences(marginal):
    X, y = clusters(n_per_class=5)
    model = HeavyTailedProcessClassifier(marginal=marginal, kernel=ConstantKernel(1.5) * RBF(0.8), b=1.2,
                                         optimize=False, tol=1e-9, max_iter=200).fit(X, y)
    theta, b = model.kernel_.theta, model.b_
    value, grad = model.log_marginal_likelihood(theta, b, eval_gradient=True)
    assert value == pytest.approx(model.log_marginal_likelihood_, abs=1e-8)
    assert grad.shape == (len(theta) + (marginal != "gaussian"),)
    h = 1e-5
    for j in range(len(theta)):
        step = np.zeros(len(theta))
        step[j] = h
        fd = (model.log_marginal_likelihood(theta + step, b) - model.log_marginal_likelihood(theta - step, b)) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-5, abs=1e-6)
    if marginal != "gaussian":
        fd = (model.log_marginal_likelihood(theta, b * np.exp(h))
              - model.log_marginal_likelihood(theta, b * np.exp(-h))) / (2 * h)
        assert grad[-1] == pytest.approx(fd, rel=1e-5, abs=1e-6)


def test_predict_proba_is_deterministic_under_random_state():
    X, y = clusters()
    model = HeavyTailedProcessClassifier(marginal="student", kernel=FIXED, random_state=7).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(X))
    again = clone(model).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), again.predict_proba(X))


@pytest.mark.parametrize("marginal", ["laplace", "hypsecant", "student"])
def test_isolated_point_is_shrunk_more_than_a_dense_cluster(marginal):
    # Three dense clusters of 8 points and one isolated point per class, far apart, on a line; the kernel's
    # variance equals sigma^2 as in eq. (4.4), and b = 0.5. Shrinkage is measured against marginal="gaussian"
    # with the same kernel and b: the excess p(class) - 1/3 of the heavy-tailed model divided by the Gaussian's.
    rng = np.random.default_rng(0)
    X = np.concatenate([c + 0.05 * rng.normal(size=(8, 1)) for c in (0.0, 3.0, 6.0)] + [[[20.0], [25.0], [30.0]]])
    y = np.array([0] * 8 + [1] * 8 + [2] * 8 + [0, 1, 2])
    test = np.array([[0.0], [20.0]])  # the dense cluster and the isolated point of class 0

    def excess(name):
        model = HeavyTailedProcessClassifier(marginal=name, kernel=FIXED, b=0.5, optimize=False, random_state=0)
        model.fit(X, y)
        return model.predict_proba(test)[:, 0] - 1.0 / 3.0

    dense, isolated = excess(marginal) / excess("gaussian")
    assert isolated < dense - 0.2


def test_clone_and_get_params():
    model = HeavyTailedProcessClassifier(marginal="hypsecant", kernel=FIXED, b=2.0, alpha=0.5, n_restarts=1)
    params = model.get_params()
    assert params["marginal"] == "hypsecant" and params["b"] == 2.0 and params["kernel"] is FIXED
    copy = clone(model)
    assert copy.get_params()["alpha"] == 0.5 and copy is not model
    X, y = clusters()
    model.fit(X, y)
    assert model.kernel_ is not FIXED  # the kernel is cloned in fit


def test_default_kernel_is_constant_times_rbf():
    X, y = clusters()
    model = HeavyTailedProcessClassifier(optimize=False).fit(X, y)
    assert model.kernel_ == ConstantKernel(1.0) * RBF(1.0)


@pytest.mark.parametrize(
    "X, y, error, match",
    [
        (np.zeros((4, 2)), [1, 1, 1, 1], InputError, "one class"),
        ([[0.0, np.nan], [1, 2], [3, 4], [5, 6]], [0, 0, 1, 1], InputError, "NaN or infinite"),
        ([[0.0, np.inf], [1, 2], [3, 4], [5, 6]], [0, 0, 1, 1], InputError, "NaN or infinite"),
        (np.arange(10.0).reshape(5, 2), [0, 0, 1, 1, 2], InputError, "class 2 of y has 1 point"),
        (np.zeros((4, 2)), [0, 0, 1], ShapeMismatchError, "y has 3 entries but X has 4 rows"),
        (np.arange(2.0 * 42).reshape(42, 2), np.repeat(np.arange(21), 2), InputError, "at most 20 are supported"),
        (np.arange(8.0).reshape(4, 2), [0.1, 0.2, 0.3, 0.4], InputError, "continuous"),
    ],
)
def test_bad_input(X, y, error, match):
    with pytest.raises(error, match=match):
        HeavyTailedProcessClassifier(optimize=False).fit(X, y)


def test_more_classes_than_the_limit():
    assert MAX_CLASSES == 20


@pytest.mark.parametrize(
    "params, match",
    [
        ({"b": 0.0}, "b must be a number > 0"),
        ({"b": -1.0}, "b must be a number > 0"),
        ({"marginal": "cauchy"}, "marginal must be one of"),
        ({"kernel": "rbf"}, "kernel must be a scikit-learn kernel"),
        ({"n_samples": 0}, "n_samples must be an integer >= 1"),
        ({"random_state": -1}, "random_state must be"),
    ],
)
def test_bad_parameters(params, match):
    X, y = clusters()
    with pytest.raises(ParameterError, match=match):
        HeavyTailedProcessClassifier(**params).fit(X, y)


def test_errors_after_fit():
    X, y = clusters()
    with pytest.raises(NotFittedError):
        HeavyTailedProcessClassifier().predict_proba(X)
    model = HeavyTailedProcessClassifier(kernel=FIXED).fit(X, y)
    with pytest.raises(ShapeMismatchError, match="X has 3 features"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(InputTypeError, match="sparse input is not supported"):
        import scipy.sparse as sp

        model.predict(sp.csr_matrix(np.zeros((2, 2))))
    with pytest.raises(ParameterError, match="b must be > 0"):
        model.log_marginal_likelihood(model.kernel_.theta, b=-1.0)


def test_von_mises_kernel_refuses_degrees():
    from paucity.gp.kernels import VonMises

    rng = np.random.default_rng(0)
    X = rng.uniform(-np.pi, np.pi, size=(12, 2))
    y = np.repeat([0, 1, 2], 4)
    model = HeavyTailedProcessClassifier(kernel=ConstantKernel(1.0) * VonMises(), optimize=False).fit(X, y)
    assert model.predict_proba(X).shape == (12, 3)
    with pytest.raises(InputError, match="radians"):
        HeavyTailedProcessClassifier(kernel=VonMises(), optimize=False).fit(np.rad2deg(X), y)
    with pytest.raises(InputError, match="radians"):
        model.predict(np.rad2deg(X))


@pytest.mark.parametrize("params", [{"optimize": False, "n_restarts": 3}, {"optimize": False, "alpha": 5.0}])
def test_a_parameter_of_the_optimization_is_refused_when_nothing_is_optimized(params):
    from paucity._errors import ParameterError
    from paucity.gp import HeavyTailedProcessClassifier

    X = np.arange(8.0)[:, None]
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    name = next(key for key in params if key != "optimize")
    with pytest.raises(ParameterError, match=f"{name}=.* applies to the optimization .*skips \\(optimize=False\\)"):
        HeavyTailedProcessClassifier(**params).fit(X, y)


def test_n_samples_is_refused_where_two_gaussian_classes_are_predicted_exactly():
    X = np.arange(8.0)[:, None]
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    with pytest.raises(ParameterError) as error:
        HeavyTailedProcessClassifier(marginal="gaussian", kernel=FIXED, n_samples=100).fit(X, y)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("HeavyTailedProcessClassifier: n_samples=100 ")
    assert "leave n_samples at 16384" in message and "three or more classes" in message
    # the default is accepted, and so is any value where the predictive samples: three classes, or a heavy tail
    HeavyTailedProcessClassifier(marginal="gaussian", kernel=FIXED).fit(X, y)
    HeavyTailedProcessClassifier(marginal="laplace", kernel=FIXED, n_samples=100).fit(X, y)
    three = np.array([0, 0, 2, 1, 2, 1, 1, 2])
    model = HeavyTailedProcessClassifier(marginal="gaussian", kernel=FIXED, n_samples=64).fit(X, three)
    finer = HeavyTailedProcessClassifier(marginal="gaussian", kernel=FIXED, n_samples=4096).fit(X, three)
    assert not np.array_equal(model.predict_proba(X), finer.predict_proba(X))  # there it changes the result
