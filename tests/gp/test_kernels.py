"""The von Mises product kernel (seed 003, §4.6) and the angle-range check."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Exponentiation, WhiteKernel

from paucity._errors import InputError, ParameterError
from paucity.gp.kernels import VonMises, check_kernel_input, contains_von_mises


def direct_kernel(X, Y, concentration):
    """The seed's formula entry by entry: exp{λ(Σ_k cos(x_k − y_k) − d)}."""
    K = np.empty((len(X), len(Y)))
    d = X.shape[1]
    for i in range(len(X)):
        for j in range(len(Y)):
            total = 0.0
            for k in range(d):
                total += np.cos(X[i, k] - Y[j, k])
            K[i, j] = np.exp(concentration * (total - d))
    return K


@pytest.fixture
def angles():
    rng = np.random.default_rng(0)
    return rng.uniform(-np.pi, np.pi, size=(30, 2))


@pytest.mark.parametrize("concentration", [0.01, 0.7, 5.0, 200.0])
def test_kernel_matrix_matches_double_loop(angles, concentration):
    kernel = VonMises(concentration=concentration)
    np.testing.assert_allclose(kernel(angles), direct_kernel(angles, angles, concentration), rtol=1e-10, atol=1e-14)
    other = angles[:7] + 0.3
    np.testing.assert_allclose(
        kernel(angles, other), direct_kernel(angles, other, concentration), rtol=1e-10, atol=1e-14
    )


def test_one_dimensional_input_is_one_angle_per_row():
    x = np.array([0.0, 1.0, 2.5])
    np.testing.assert_allclose(VonMises(2.0)(x), direct_kernel(x[:, None], x[:, None], 2.0))


def test_diagonal_is_one_and_matches_diag(angles):
    kernel = VonMises(concentration=3.0)
    np.testing.assert_array_equal(np.diag(kernel(angles)), 1.0)
    np.testing.assert_array_equal(kernel.diag(angles), 1.0)
    assert kernel.is_stationary()


@pytest.mark.parametrize("concentration", [0.05, 1.3, 40.0])
def test_gradient_matches_finite_differences_in_log_concentration(angles, concentration):
    kernel = VonMises(concentration=concentration)
    K, gradient = kernel(angles, eval_gradient=True)
    assert gradient.shape == (30, 30, 1)
    step = 1e-6
    theta = kernel.theta
    plus = kernel.clone_with_theta(theta + step)(angles)
    minus = kernel.clone_with_theta(theta - step)(angles)
    np.testing.assert_allclose(gradient[:, :, 0], (plus - minus) / (2 * step), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(K, kernel(angles))


def test_gradient_inside_product_matches_finite_differences(angles):
    kernel = ConstantKernel(2.0) * VonMises(concentration=0.8)
    _, gradient = kernel(angles, eval_gradient=True)
    assert gradient.shape == (30, 30, 2)
    step = 1e-6
    for p in range(2):
        shift = np.zeros(2)
        shift[p] = step
        numeric = (kernel.clone_with_theta(kernel.theta + shift)(angles)
                   - kernel.clone_with_theta(kernel.theta - shift)(angles)) / (2 * step)
        np.testing.assert_allclose(gradient[:, :, p], numeric, rtol=1e-6, atol=1e-9)


def test_fixed_concentration_has_empty_gradient(angles):
    kernel = VonMises(concentration=1.0, concentration_bounds="fixed")
    _, gradient = kernel(angles, eval_gradient=True)
    assert gradient.shape == (30, 30, 0)
    assert kernel.n_dims == 0


def test_gradient_with_y_is_refused(angles):
    with pytest.raises(InputError, match="Y=None"):
        VonMises()(angles, angles, eval_gradient=True)


@pytest.mark.parametrize("concentration", [0.01, 1.0, 30.0, 1000.0])
def test_positive_semidefinite_on_random_angles(concentration):
    rng = np.random.default_rng(1)
    X = rng.uniform(-2 * np.pi, 2 * np.pi, size=(80, 3))
    K = VonMises(concentration=concentration)(X)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() >= -1e-10


def test_periodic_in_every_angle(angles):
    kernel = VonMises(concentration=4.0)
    for column in range(angles.shape[1]):
        shifted = angles.copy()
        shifted[:, column] += 2 * np.pi
        np.testing.assert_allclose(kernel(shifted, angles), kernel(angles), atol=1e-12)


def test_hyperparameter_in_log_space_and_repr():
    kernel = VonMises(concentration=2.5, concentration_bounds=(0.1, 10.0))
    np.testing.assert_allclose(kernel.theta, [np.log(2.5)])
    np.testing.assert_allclose(kernel.bounds, np.log([[0.1, 10.0]]))
    assert kernel.hyperparameter_concentration.name == "concentration"
    assert repr(kernel) == "VonMises(concentration=2.5)"
    assert kernel.clone_with_theta(np.log([4.0])).concentration == pytest.approx(4.0)


def test_clone_and_get_params():
    kernel = ConstantKernel(2.0) * VonMises(concentration=3.0, concentration_bounds=(1e-2, 1e2))
    params = kernel.get_params()
    assert params["k2__concentration"] == 3.0
    assert params["k2__concentration_bounds"] == (1e-2, 1e2)
    copy = clone(kernel)
    assert copy == kernel and copy is not kernel
    copy.set_params(k2__concentration=5.0)
    assert kernel.k2.concentration == 3.0


def test_sums_products_and_exponents(angles):
    K = VonMises(1.5)(angles)
    np.testing.assert_allclose((ConstantKernel(2.0) * VonMises(1.5))(angles), 2.0 * K)
    np.testing.assert_allclose((VonMises(1.5) + WhiteKernel(0.1))(angles), K + 0.1 * np.eye(len(angles)))
    np.testing.assert_allclose(Exponentiation(VonMises(1.5), 2.0)(angles), K**2)
    # exp{λ(S)}² = exp{2λ(S)}
    np.testing.assert_allclose(Exponentiation(VonMises(1.5), 2.0)(angles), VonMises(3.0)(angles))


def test_negative_concentration_is_a_parameter_error(angles):
    with pytest.raises(ParameterError, match="concentration"):
        VonMises(concentration=-1.0)(angles)


def test_works_in_scikit_learn_classifier():
    rng = np.random.default_rng(2)
    centres = np.array([[-1.2, 2.0], [1.0, -0.5], [2.8, 2.8]])
    X = np.vstack([c + 0.3 * rng.standard_normal((15, 2)) for c in centres])
    y = np.repeat([0, 1, 2], 15)
    model = GaussianProcessClassifier(ConstantKernel(1.0) * VonMises(1.0), random_state=0).fit(X, y)
    assert model.score(X, y) > 0.9
    # The fitted one-vs-rest kernels are still von Mises products with a fitted concentration.
    fitted = model.base_estimator_.estimators_[0].kernel_
    assert isinstance(fitted.k2, VonMises)
    assert fitted.k2.concentration != 1.0
    proba = model.predict_proba(centres)
    np.testing.assert_array_equal(proba.argmax(axis=1), [0, 1, 2])


def test_contains_von_mises_walks_the_kernel_tree():
    assert contains_von_mises(VonMises())
    assert contains_von_mises(ConstantKernel() * VonMises() + WhiteKernel())
    assert contains_von_mises(RBF() + Exponentiation(ConstantKernel() * VonMises(), 2.0))
    assert not contains_von_mises(ConstantKernel() * RBF() + WhiteKernel())
    assert not contains_von_mises(None)


def test_check_kernel_input_accepts_radians_and_ignores_other_kernels():
    X = np.array([[0.0, 2 * np.pi], [-2 * np.pi, 1.0]])
    check_kernel_input(ConstantKernel() * VonMises(), X)
    check_kernel_input(RBF(), np.array([[181.0, 0.0]]))
    check_kernel_input(None, np.array([[181.0, 0.0]]))


def test_check_kernel_input_names_the_first_entry_in_degrees():
    X = np.zeros((5, 2))
    X[3, 0] = 181.0
    X[4, 1] = -200.0
    expected = (
        "angles must be in radians within [-2pi, 2pi]; X has 181.0 at row 3, column 0: "
        "convert degrees with numpy.deg2rad"
    )
    with pytest.raises(InputError) as error:
        check_kernel_input(ConstantKernel() * VonMises() + WhiteKernel(), X)
    assert str(error.value) == expected
    with pytest.raises(ValueError, match="row 0, column 1"):
        check_kernel_input(VonMises(), np.array([[0.0, -7.0]]))


def test_classifier_refuses_degrees_with_von_mises_and_accepts_radians():
    from paucity.gp.classification import HeavyTailedProcessClassifier

    rng = np.random.default_rng(4)
    X = rng.uniform(-np.pi, np.pi, size=(24, 2))
    y = np.repeat([0, 1, 2], 8)
    model = HeavyTailedProcessClassifier(marginal="gaussian", kernel=ConstantKernel() * VonMises(), optimize=False,
                                         n_samples=50, random_state=0)
    with pytest.raises(InputError, match="convert degrees with numpy.deg2rad"):
        model.fit(np.rad2deg(X), y)
    model.fit(X, y)
    with pytest.raises(InputError, match="radians"):
        model.predict_proba(np.rad2deg(X[:3]))
    assert model.predict_proba(X[:3]).shape == (3, 3)
