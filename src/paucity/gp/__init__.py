"""Heavy-tailed process classification (seed 003, chapter 4).

A Gaussian-process classifier trained where the data's density varies is
over-confident near isolated training points. Transforming the Gaussian
process through a Gaussian copula, ``f = G_b⁻¹(Φ_{0,σ²}(z))``, gives a process
with heavy-tailed marginals whose inference stays Gaussian in z-space and
which shrinks predictions towards 1/2 more near isolated observations than in
dense regions.

- :func:`warp`, :func:`unwarp`, :func:`log_density`: the copula map for the
  Laplace, hyperbolic secant, Student-t-inspired and Gaussian marginals, with
  its derivatives (eq. 4.3).
"""

from importlib import import_module

_WHERE = {
    "MARGINALS": "marginals",
    "Warp": "marginals",
    "warp": "marginals",
    "unwarp": "marginals",
    "log_density": "marginals",
}

__all__ = list(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'paucity.gp' has no attribute {name!r}")
    return getattr(import_module(f"paucity.gp.{_WHERE[name]}"), name)


def __dir__():
    return sorted(__all__)
