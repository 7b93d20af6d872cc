"""RankCentrality's chain as a Dask sparse matrix, for comparisons that do not fit one machine.

The transposed rate matrix ``Rᵀ`` of :mod:`paucity.ranking.transitions` is
cut into row blocks, one per block of items: block ``b`` holds the rows of the
items of ``b`` (all columns) and is built, on a worker, from the comparisons
that touch an item of ``b`` — every pair that involves an item of ``b`` is
then complete there, so the win fractions of Q̂^NOS and Q̂^RA come out exact.
The blocks stay on the cluster (``persist``); a product ``π Q̂`` sends π to
every block and gathers one slice of the result per block. The solvers of
:mod:`paucity.ranking.stationary` (power iteration, GMRES, ARPACK) run on
the client with that product, which is the only thing that touches the
comparisons: memory on the client is O(n), not O(m).

Only this module (and :mod:`paucity.ranking.distributed`) imports Dask.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._errors import ParameterError
from .comparisons import pair_table
from .distributed import DaskComparisons, check_chunk
from .transitions import TRANSITIONS, pair_rates

__all__ = ["DistributedTransition", "distributed_transition"]


# -- tasks (run on the workers) ---------------------------------------------------------------------
def _route(i, j, y, weights, offset: int, n_items: int, bounds: np.ndarray):
    """Split one chunk into the comparisons touching each block of items (a comparison goes to ≤ 2 blocks)."""
    i, j, won, weights = check_chunk(i, j, y, weights, offset, n_items)
    n_blocks = len(bounds) - 1
    block_i = np.searchsorted(bounds, i, side="right") - 1
    block_j = np.searchsorted(bounds, j, side="right") - 1
    pieces = []
    for b in range(n_blocks):
        rows = np.flatnonzero((block_i == b) | (block_j == b))
        pieces.append((i[rows], j[rows], won[rows].astype(np.int8), None if weights is None else weights[rows]))
    total = float(len(i)) if weights is None else float(np.sum(weights))
    return (*pieces, total)


def _block(kind: str, n_items: int, start: int, stop: int, *pieces):
    """Rows start..stop of Rᵀ (as CSR over all columns), their out-rates and the block's largest degree."""
    parts = [p for p in pieces if len(p[0])]
    size = stop - start
    if not parts:
        return sp.csr_matrix((size, n_items)), np.zeros(size), 0
    i = np.concatenate([p[0] for p in parts])
    j = np.concatenate([p[1] for p in parts])
    y = np.concatenate([p[2] for p in parts])
    weights = None if parts[0][3] is None else np.concatenate([p[3] for p in parts])
    table = pair_table(i, j, y, weights, n_items)
    low, high = np.asarray(table.low), np.asarray(table.high)
    low_wins, high_wins = np.asarray(table.low_wins), np.asarray(table.high_wins)
    up, down = pair_rates(kind, low_wins, high_wins)  # "sampling" with uniform pair probabilities
    # Rᵀ[high, low] = R[low, high] = up (mass from low to high when high won); Rᵀ[low, high] = down
    in_high = (high >= start) & (high < stop)
    in_low = (low >= start) & (low < stop)
    rows = np.concatenate([high[in_high], low[in_low]]) - start
    cols = np.concatenate([low[in_high], high[in_low]])
    values = np.concatenate([up[in_high], down[in_low]])
    block = sp.csr_matrix((values, (rows, cols)), shape=(size, n_items))
    block.sum_duplicates()
    # out-rate of an item: the rates leaving it, R[item, ·] — down for a high item, up for a low item
    out = np.bincount(high[in_high] - start, weights=down[in_high], minlength=size)
    out += np.bincount(low[in_low] - start, weights=up[in_low], minlength=size)
    degree = np.bincount(high[in_high] - start, minlength=size) + np.bincount(low[in_low] - start, minlength=size)
    return block, out, int(degree.max()) if size else 0


def _product(block, x: np.ndarray) -> np.ndarray:
    return block @ x


class DistributedTransition:
    """A :class:`~paucity.ranking.transitions.Transition` whose rates live on a Dask cluster.

    It offers what the stationary solvers use: ``n_items``, ``out_rates``,
    ``scale`` and ``left_multiply``; each product is one round of tasks, one
    per block of items.
    """

    def __init__(self, blocks, bounds: np.ndarray, out_rates: np.ndarray, scale: float, kind: str):
        self.blocks = blocks
        self.bounds = bounds
        self.out_rates = out_rates
        self.scale = float(scale)
        self.kind = kind
        self.n_products = 0

    @property
    def n_items(self) -> int:
        return int(self.bounds[-1])

    def left_multiply(self, x: np.ndarray) -> np.ndarray:
        """``x Q̂`` for a row vector ``x``: ``x + (Rᵀx − out∘x)/s``, Rᵀx gathered block by block."""
        import dask
        from dask import delayed

        self.n_products += 1
        shared = delayed(np.ascontiguousarray(x, dtype=np.float64), pure=True)
        parts = dask.compute(*[delayed(_product, pure=True)(block, shared) for block in self.blocks])
        incoming = np.concatenate(parts)
        return x + (incoming - self.out_rates * x) / self.scale


def distributed_transition(data: DaskComparisons, kind: str = "nos") -> DistributedTransition:
    """Build the row blocks of ``Rᵀ`` on the cluster and keep them there.

    Parameters
    ----------
    data : DaskComparisons
        Its ``n_blocks`` blocks of items are the row blocks.
    kind : {"nos", "ra", "sampling"}
        As :func:`~paucity.ranking.transitions.transition_matrix`; ``"sampling"``
        with uniform pair probabilities only.

    Returns
    -------
    DistributedTransition

    Notes
    -----
    Seed 000, (3.3)–(3.5). Each comparison is sent to the (at most two) blocks
    of its items; a block holds the rows of its items, so the blocks together
    hold every rate twice over at most.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> from paucity.ranking.transitions import transition_matrix
    >>> c = Comparisons.from_winners([0, 1, 1, 2, 0], [1, 0, 2, 0, 2])
    >>> chain = distributed_transition(DaskComparisons.from_comparisons(c, chunks=2, n_blocks=2))
    >>> x = np.array([0.2, 0.3, 0.5])
    >>> bool(np.allclose(chain.left_multiply(x), transition_matrix(c).left_multiply(x)))
    True
    """
    import dask
    from dask import delayed

    if kind not in TRANSITIONS:
        raise ParameterError(f"unknown transition {kind!r}; expected 'nos', 'ra' or 'sampling'.")
    n, bounds = data.n_items, np.asarray(data.block_bounds)
    n_blocks = len(bounds) - 1
    offsets = np.concatenate([[0], np.cumsum(data.i.chunks[0])]).astype(np.int64)
    chunk_arrays = [data.i.to_delayed().ravel(), data.j.to_delayed().ravel(), data.y.to_delayed().ravel()]
    weight_chunks = None if data.weights is None else data.weights.to_delayed().ravel()
    routed = []
    for c in range(len(offsets) - 1):
        weights = None if weight_chunks is None else weight_chunks[c]
        routed.append(
            delayed(_route, nout=n_blocks + 1, pure=True)(
                chunk_arrays[0][c], chunk_arrays[1][c], chunk_arrays[2][c], weights, int(offsets[c]), n, bounds
            )
        )
    built = []
    for b in range(n_blocks):
        built.append(
            delayed(_block, nout=3, pure=True)(kind, n, int(bounds[b]), int(bounds[b + 1]), *[r[b] for r in routed])
        )
    # one pass over the comparisons: the blocks stay where they were built, the totals come back
    persisted = dask.persist(*built, *[r[n_blocks] for r in routed])
    built, totals = persisted[:n_blocks], persisted[n_blocks:]
    summaries = dask.compute(*[(piece[1], piece[2]) for piece in built], *totals)
    out_rates = np.concatenate([summary[0] for summary in summaries[:n_blocks]])
    if kind == "nos":
        scale = max(summary[1] for summary in summaries[:n_blocks])
    elif kind == "ra":
        scale = n
    else:
        scale = float(sum(summaries[n_blocks:]))
    return DistributedTransition([piece[0] for piece in built], bounds, out_rates, max(scale, 1), kind)
