"""How long a fit will take, said before the work starts, and the fits that keep quiet.

The fit's time is dominated by RELAX: every iteration forms the n·m pair
costs and takes a few dual steps on them (O(nm)), builds the weighted scatter
of the active pairs (O((n + m)d²)) and projects B onto the unit-trace PSD
cone (an eigendecomposition, O(d³)). The constants below were measured on a
2-core x86-64 machine (numpy with one BLAS thread, as RELAX runs) by a
non-negative least-squares fit of the iteration time over 12 problem sizes
from n = m = 100 to 2,000 and d = 10 to 1,200 (each within a factor 2 of the
fit):

- 30 ns per pair of rows (x_i, y_j),
- 0.17 ns per unit of (n + m)·d²,
- 0.16 ns per unit of d³;

and a tightening iteration at 0.1 ms + 6 ns·(n + m)·log₂(n + m) +
0.2 ns·(n + m)·d. The estimate counts every iteration allowed (``max_iter``,
``tighten_max_iter``), so it is an upper bound: RELAX and the tightening runs
usually stop earlier, after ``patience`` iterations without progress.

Fits made inside a larger analysis (the candidates of :class:`PDACV`, the
refits of a permutation test) run inside :func:`quiet_fits`: the analysis
announces its own total once, and warns once about constant features.
"""

from __future__ import annotations

import contextlib
import contextvars
import math

from .._errors import PaucityWarning, warn

__all__ = ["relax_batch_size", "prefilter_seconds", "block_rows", "fit_seconds", "announce", "quiet_fits", "fits_are_quiet", "LONG_SECONDS"]

_PER_PAIR = 3.0e-8
_PER_SCATTER = 1.7e-10
_PER_EIGEN = 1.6e-10
_PER_TIGHTEN_STEP = 1.0e-4
_PER_TIGHTEN_SORT = 6.0e-9
_PER_TIGHTEN_PROJECT = 2.0e-10
_AUTO_BLOCK = 1 << 11  # all rows up to _AUTO_BLOCK² pairs
_AUTO_BLOCK_ROWS = 1 << 10  # rows per side of a block beyond
_AUTO_BLOCK_DENSE = 1 << 8  # PDA (no sparsity): blocks of 256 rows beyond 256 × 256 pairs

#: Estimated durations above this many seconds are announced with a PaucityWarning.
LONG_SECONDS = 60.0

_QUIET = contextvars.ContextVar("paucity_differences_quiet_fits", default=False)


def relax_batch_size(n: int, m: int, batch_size, *, sparse: bool = True):
    """RELAX's ``batch_size`` for PDA's ("auto": for SPARDA all rows up to 2²² pairs, blocks of 2¹⁰ rows beyond;
    for PDA all rows up to 2¹⁶ pairs, blocks of 2⁸ rows beyond)."""
    if batch_size == "auto":
        if not sparse:
            return None if n * m <= _AUTO_BLOCK_DENSE * _AUTO_BLOCK_DENSE else _AUTO_BLOCK_DENSE
        return None if n * m <= _AUTO_BLOCK * _AUTO_BLOCK else _AUTO_BLOCK_ROWS
    return batch_size


def block_rows(n: int, m: int, batch_size, *, sparse: bool = True) -> tuple[int, int]:
    """Rows of X and of Y per RELAX iteration for PDA's ``batch_size`` ("auto", None or an int)."""
    batch_size = relax_batch_size(n, m, batch_size, sparse=sparse)
    if batch_size is None or (batch_size >= n and batch_size >= m):
        return n, m
    return min(n, batch_size), min(m, batch_size)


def fit_seconds(n: int, m: int, d: int, *, max_iter: int, tighten_runs: int, tighten_max_iter: int,
                batch_size="auto", sparse: bool = True) -> float:
    """An upper bound on the seconds of one PDA fit on n and m samples of d features.

    Examples
    --------
    >>> round(fit_seconds(1000, 1000, 500, max_iter=300, tighten_runs=5, tighten_max_iter=500))
    42
    """
    rows_x, rows_y = block_rows(n, m, batch_size, sparse=sparse)
    relax = _PER_PAIR * rows_x * rows_y + _PER_SCATTER * (rows_x + rows_y) * d * d + _PER_EIGEN * d**3
    total = n + m
    tighten = _PER_TIGHTEN_STEP + _PER_TIGHTEN_SORT * total * math.log2(total) + _PER_TIGHTEN_PROJECT * total * d
    return max_iter * relax + tighten_runs * tighten_max_iter * tighten


def prefilter_seconds(n: int, m: int, d: int) -> float:
    """Seconds to rank d features by their marginal divergence (sorting every column)."""
    total = n + m
    return _PER_TIGHTEN_SORT * total * math.log2(total) * d


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def announce(seconds: float, what: str, advice: str, *, stacklevel: int = 3) -> None:
    """Warn (PaucityWarning) when ``seconds`` exceeds :data:`LONG_SECONDS`, unless fits are quiet."""
    if seconds <= LONG_SECONDS or fits_are_quiet():
        return
    warn(
        f"{what} may take up to about {_duration(seconds)} (estimated from the problem size on a 2-core machine; "
        f"usually less, as the iterations stop early); {advice}",
        PaucityWarning,
    )


@contextlib.contextmanager
def quiet_fits():
    """Within this block PDA fits announce no duration and warn about no constant feature."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def fits_are_quiet() -> bool:
    """True inside :func:`quiet_fits`."""
    return _QUIET.get()
