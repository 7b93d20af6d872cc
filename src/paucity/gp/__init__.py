"""Heavy-tailed process classification (seed 003, chapter 4).

A Gaussian-process classifier trained where the data's density varies is
over-confident near isolated training points. Transforming the Gaussian
process through a Gaussian copula, ``f = G_b⁻¹(Φ_{0,σ²}(z))``, gives a process
with heavy-tailed marginals whose inference stays Gaussian in z-space and
which can shrink predictions towards 1/C more near isolated observations than
in dense regions.

- :class:`HeavyTailedProcessClassifier`: C-class softmax classification with
  one heavy-tailed latent process per class, by the Laplace approximation
  (eqs. 4.9-4.12); ``marginal="gaussian"`` is ordinary multiclass Laplace GPC.
- :class:`HeavyTailedProcessRegressor`: regression on f, which is Gaussian
  process regression on the unwarped observations (eqs. 4.4-4.7);
  :func:`selective_shrinkage` is the §4.4 worked example.
- :class:`VonMises`: the seed's product kernel for angles (§4.6), a
  scikit-learn kernel; :func:`check_kernel_input` refuses degrees.
- :func:`warp`, :func:`unwarp`, :func:`log_density`: the copula map for the
  Laplace, hyperbolic secant, Student-t-inspired and Gaussian marginals, with
  its derivatives (eq. 4.3).
"""

from .._lazy import lazy_names

_WHERE = {
    "HeavyTailedProcessClassifier": "classification",
    "MAX_CLASSES": "classification",
    "HeavyTailedProcessRegressor": "regression",
    "Predictive": "regression",
    "Shrinkage": "regression",
    "selective_shrinkage": "regression",
    "selective_shrinkage_gram": "regression",
    "slope_threshold": "regression",
    "gp_posterior": "regression",
    "log_prior_density": "regression",
    "VonMises": "kernels",
    "check_kernel_input": "kernels",
    "MARGINALS": "marginals",
    "Warp": "marginals",
    "warp": "marginals",
    "unwarp": "marginals",
    "log_density": "marginals",
}

__all__ = list(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
