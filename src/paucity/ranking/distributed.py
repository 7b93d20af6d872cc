r"""BRE and URE on comparisons held as Dask arrays: partial scores per block pair.

Seed 003, §5.6 (distributed ranking, equations 5.31–5.33). The items are
split by position into ``K`` blocks :math:`D_1, \dots, D_K` (item ``p`` of
``n`` is in block ``p * K // n``). The comparisons between two blocks
:math:`k \le l` are the set :math:`\bar C_{k,l}` of (5.31); from them one task
per block pair computes the partial scores

.. math:: \hat\Pi_{k,l}(j) = \sum_{i \in D_k} s_{i,j}(2\bar c_{i,j} - 1) \quad \forall j \in D_l \qquad (5.32)

for BRE (:math:`s_{i,j}\bar c_{i,j}` for URE), and :math:`\hat\Pi_{l,k}` for
the items of :math:`D_k` (the seed's implicit :math:`\bar C_{l,k}`). They are
computed as weighted wins and losses of the items of each block against the
other block, the sufficient statistics of both BRE and URE. One task per
block then sums its partial scores over the opposing blocks,
:math:`\hat\Pi(j) = \sum_k \hat\Pi_{k,l(j)}(j)` (5.33), and the per-block
results are joined into the counts that :class:`~paucity.ranking.BRE` and
:class:`~paucity.ranking.URE` turn into scores. Everything runs on the active Dask scheduler: a
``dask.distributed.Client`` when one is open, the local threads otherwise.

This module is imported only when Dask input is used; the single-machine
paths of :mod:`paucity.ranking` never import Dask.
"""

from __future__ import annotations

import math
import numbers
from operator import getitem

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._validation import Interval, check_parameter
from .comparisons import Comparisons, draw_message, require_no_ties
from .counting import ItemCounts, win_loss_sums

__all__ = ["DaskComparisons", "block_bounds"]


def block_bounds(n_items: int, n_blocks: int) -> np.ndarray:
    """First position of each block and ``n_items`` at the end (``n_blocks + 1`` entries).

    Block ``b`` holds the positions ``p`` with ``p * n_blocks // n_items == b``.

    Examples
    --------
    >>> block_bounds(10, 3).tolist()
    [0, 4, 7, 10]
    """
    return (np.arange(n_blocks + 1, dtype=np.int64) * n_items + n_blocks - 1) // n_blocks


def _pairs(n_blocks: int) -> list[tuple[int, int]]:
    """The block pairs (k, l), k <= l, in the order of :func:`_pair_index`."""
    return [(k, l) for k in range(n_blocks) for l in range(k, n_blocks)]


def _pair_index(lo: np.ndarray, hi: np.ndarray, n_blocks: int) -> np.ndarray:
    return lo * n_blocks - lo * (lo - 1) // 2 + (hi - lo)


# -- tasks (run on the workers) ---------------------------------------------------------------------
def check_chunk(i, j, y, weights, offset: int, n_items: int):
    """Validate one chunk; errors name the comparison by its index in the whole array."""
    i, j, y = np.asarray(i), np.asarray(j), np.asarray(y)
    for name, positions in (("i", i), ("j", j)):
        bad = (positions < 0) | (positions >= n_items)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name} holds position {positions[first]} at comparison {offset + first}, outside "
                f"0..{n_items - 1}; positions index the {n_items} items given as items=."
            )
    same = i == j
    if same.any():
        first = int(np.flatnonzero(same)[0])
        error = InputError(
            f"comparison {offset + first} compares the item at position {i[first]} with itself; "
            "a comparison needs two different items."
        )
        error.comparison, error.position = offset + first, int(i[first])
        raise error
    if y.dtype.kind == "f":
        missing = np.isnan(y)
        if missing.any():
            raise InputError(f"y has a missing outcome (NaN) at comparison {offset + int(np.flatnonzero(missing)[0])}.")
    bad = (y != 0) & (y != 1)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        if y[first] == 0.5:
            raise InputError(draw_message("DaskComparisons", offset + first))
        raise InputError(
            f"y must be 0 (i preferred) or 1 (j preferred); comparison {offset + first} has y = {y[first].item()!r}."
        )
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        finite = np.isfinite(weights)
        if not finite.all():
            first = offset + int(np.flatnonzero(~finite)[0])
            raise InputError(f"weights has a non-finite value at comparison {first}; weights must be finite.")
        if (weights < 0).any():
            first = int(np.flatnonzero(weights < 0)[0])
            raise InputError(f"weights must be non-negative; comparison {offset + first} has weight {weights[first]}.")
    return i.astype(np.int64, copy=False), j.astype(np.int64, copy=False), y == 1, weights


def _route_chunk(i, j, y, weights, offset: int, n_items: int, bounds: np.ndarray):
    r"""Split one chunk into its pieces of :math:`\bar C_{k,l}` (5.31), one per block pair, plus its totals.

    A piece holds the pair's comparisons as positions local to the pair
    (``D_k`` first, then ``D_l``), or, when that is smaller, their wins and
    losses already summed per item: the partial scores of this chunk.
    """
    i, j, won, weights = check_chunk(i, j, y, weights, offset, n_items)
    totals = (float(len(won)) if weights is None else float(np.sum(weights)), len(won))
    winners, losers = np.where(won, j, i), np.where(won, i, j)
    n_blocks = len(bounds) - 1
    size = np.diff(bounds)
    if n_blocks == 1:
        return (_piece(winners, losers, weights, n_items), totals)
    block_w, block_l = winners * n_blocks // n_items, losers * n_blocks // n_items
    lo, hi = np.minimum(block_w, block_l), np.maximum(block_w, block_l)
    upper = hi != lo
    local_w = winners - bounds[block_w] + np.where(upper & (block_w == hi), size[lo], 0)
    local_l = losers - bounds[block_l] + np.where(upper & (block_l == hi), size[lo], 0)
    pair = _pair_index(lo, hi, n_blocks)
    order = np.argsort(pair, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(pair, minlength=n_blocks * (n_blocks + 1) // 2))])
    pieces = []
    for index, (k, l) in enumerate(_pairs(n_blocks)):
        rows = order[starts[index]:starts[index + 1]]
        space = int(size[k] + (size[l] if l != k else 0))
        pieces.append(_piece(local_w[rows], local_l[rows], None if weights is None else weights[rows], space))
    return (*pieces, totals)


def _piece(winners, losers, weights, space: int):
    if len(winners) == 0:
        return None
    if len(winners) >= space:  # summed counts are smaller than the comparisons themselves
        return ("counts", *win_loss_sums(winners, losers, weights, space))
    dtype = np.int32 if space < 2**31 else np.int64
    return ("comparisons", winners.astype(dtype), losers.astype(dtype), weights)


def _pair_scores(space: int, split: int, *pieces):
    """Partial wins and losses of one block pair (5.32): for the items of D_k, then of D_l."""
    wins, losses = np.zeros(space), np.zeros(space)
    raw = [p for p in pieces if p is not None and p[0] == "comparisons"]
    for piece in pieces:
        if piece is not None and piece[0] == "counts":
            wins += piece[1]
            losses += piece[2]
    if raw:
        weights = None if raw[0][3] is None else np.concatenate([p[3] for p in raw])
        more_wins, more_losses = win_loss_sums(
            np.concatenate([p[1] for p in raw]), np.concatenate([p[2] for p in raw]), weights, space
        )
        wins += more_wins
        losses += more_losses
    if split == space:  # a block with itself
        return (wins, losses), None
    return (wins[:split], losses[:split]), (wins[split:], losses[split:])


def _block_scores(*parts):
    """Sum over the opposing blocks of one block's partial scores (5.33)."""
    wins, losses = parts[0][0].copy(), parts[0][1].copy()
    for part in parts[1:]:
        wins += part[0]
        losses += part[1]
    return wins, losses


def _join(totals, *blocks):
    wins = np.concatenate([b[0] for b in blocks])
    losses = np.concatenate([b[1] for b in blocks])
    total_weight = 0.0
    n_comparisons = 0
    for weight, count in totals:
        total_weight += weight
        n_comparisons += count
    return ItemCounts(wins, losses, total_weight, n_comparisons)


# -- the public object ------------------------------------------------------------------------------
def _as_dask(values, name: str, kinds: str, expected: str):
    import dask.array as da

    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy()
    array = values if isinstance(values, da.Array) else da.asarray(values)
    if array.ndim != 1:
        raise InputError(f"{name} must be 1-dimensional (one entry per comparison), got shape {array.shape}.")
    if array.dtype.kind not in kinds:
        raise InputTypeError(f"{name} must hold {expected}, got dtype {array.dtype}.")
    if math.isnan(array.shape[0]):
        raise InputError(
            f"{name} has chunks of unknown length; call {name}.compute_chunk_sizes() first so that errors can "
            "name the comparison at fault."
        )
    return array


class DaskComparisons:
    r"""Pairwise comparisons held as Dask arrays of item positions, for BRE and URE.

    Pass it to :meth:`BRE.fit <paucity.ranking.BRE.fit>`,
    :meth:`URE.fit <paucity.ranking.URE.fit>` or their ``partial_fit``; the
    counting runs on the active Dask scheduler (a ``dask.distributed``
    Client when one is open) and gives exactly the scores of the in-memory
    :class:`~paucity.ranking.Comparisons` for integer weights.

    Parameters
    ----------
    i, j : dask.array.Array of int, shape (m,)
        Positions in ``items`` of the two items of each comparison. Other
        arrays are wrapped with ``dask.array.asarray``; see
        :meth:`from_arrays` to choose the chunks. ``j``, ``y`` and
        ``weights`` are rechunked like ``i``.
    y : dask.array.Array of {0, 1}, shape (m,)
        1 when ``j`` was preferred to ``i``, 0 when ``i`` was.
    weights : dask.array.Array of float, shape (m,), optional
        A non-negative weight or count per comparison.
    items : sequence of hashable, or int
        The label of every item, in the order of positions; an int ``n``
        stands for the labels ``0..n-1``.
    n_blocks : int, optional
        The number ``K`` of item blocks, from 1 to the number of items; 4 by
        default (or the number of items when fewer), which gives 10 block
        pairs. The result does not depend on it; the task graph has
        ``chunks × K(K+1)/2`` pieces, so keep it moderate.

    Attributes
    ----------
    i, j, y, weights : dask.array.Array
        The arrays, all with the chunks of ``i``.
    items : pandas.Index
    n_items, n_comparisons, n_blocks : int
    block_bounds : ndarray of int64
        First position of each block, then ``n_items``.

    Notes
    -----
    Seed 003, §5.6, equations 5.31–5.33. Item ``p`` belongs to block
    ``p * K // n``. Each chunk of comparisons is checked (positions in
    range, no item compared with itself, outcomes 0 or 1, finite
    non-negative weights; the error names the comparison by its index in
    the whole array) and split into its pieces of the block pairs
    :math:`\bar C_{k,l}` (5.31). One task per block pair ``k <= l`` computes
    the partial scores (5.32) of the items of both blocks, one task per
    block sums them over the opposing blocks (5.33), and the ``K`` block
    results are joined. With integer weights (or none) every sum is exact,
    so the scores equal the in-memory ones bit for bit, whatever ``K`` and
    the chunks; with fractional weights they may differ in the last bits.

    Communication (§5.6): collecting every comparison at one place costs
    :math:`O(n\,m(n))`, while the partial scores are :math:`K^2 f = nK`
    numbers (two per item and opposing block here: wins and losses), which
    is much less when :math:`m(n) \gg K`. Here a chunk's piece of a block
    pair is sent to the pair's task as per-item sums when those are fewer
    than its comparisons, and as the comparisons otherwise. When each chunk
    holds the comparisons of one block pair (as when each pair of machines
    measures its own block of pairs, §5.6), a pair's task can run where its
    chunk is and only partial scores travel; chunks that mix all pairs are
    shuffled once to the pair tasks, spread over ``K(K+1)/2`` tasks rather
    than gathered on one machine. The graph has ``chunks × K(K+1)/2``
    pieces, so keep ``K`` moderate (the seed expects ``K < 100``).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.ranking import BRE
    >>> from paucity.ranking.distributed import DaskComparisons
    >>> i = np.array([0, 0, 2, 2, 0, 1])          # positions into items
    >>> j = np.array([1, 2, 1, 3, 3, 3])
    >>> y = np.zeros(6, dtype=int)                 # i won every time
    >>> data = DaskComparisons.from_arrays(i, j, y, items=["a", "b", "c", "d"], chunks=4, n_blocks=2)
    >>> data
    DaskComparisons(6 comparisons of 4 items in 2 chunks, 2 blocks)
    >>> BRE(random_state=0).fit(data).scores_.tolist()
    [0.375, -0.125, 0.125, -0.375]
    """

    def __init__(self, i, j, y, weights=None, *, items, n_blocks=None):
        if isinstance(items, numbers.Integral) and not isinstance(items, bool):
            labels = pd.RangeIndex(int(items))
        else:
            if isinstance(items, (str, bytes)) or np.isscalar(items):
                raise InputTypeError(f"items must be a sequence of item labels or a number of items, got {items!r}.")
            labels = pd.Index(items.to_numpy() if isinstance(items, pd.Series) else items)
            if labels.ndim != 1:
                raise InputError(f"items must be 1-dimensional, got shape {labels.shape}.")
            if not labels.is_unique:
                raise InputError(f"items has duplicate label {labels[labels.duplicated()][0]!r}; each item must appear once.")
        if len(labels) < 2:
            raise InputError(f"items names {len(labels)} item(s); ranking needs at least two.")
        i = _as_dask(i, "i", "iu", "integer positions into items (map labels with items.get_indexer first)")
        j = _as_dask(j, "j", "iu", "integer positions into items (map labels with items.get_indexer first)")
        y = _as_dask(y, "y", "biuf", "0/1 outcomes (1 when j was preferred to i)")
        if weights is not None:
            weights = _as_dask(weights, "weights", "iuf", "numbers (a weight or count per comparison)")
        m = int(i.shape[0])
        for name, array in (("j", j), ("y", y), ("weights", weights)):
            if array is not None and int(array.shape[0]) != m:
                raise ShapeMismatchError(f"{name} has {int(array.shape[0])} entries but i has {m}; give one per comparison.")
        if m == 0:
            raise InputError("there are no comparisons; give at least one (i, j, y) observation.")
        self.i = i
        self.j, self.y = j.rechunk(i.chunks), y.rechunk(i.chunks)
        self.weights = None if weights is None else weights.rechunk(i.chunks)
        self.items = labels
        if n_blocks is None:
            n_blocks = min(len(labels), 4)
        n_blocks = int(check_parameter(n_blocks, "n_blocks", [Interval(numbers.Integral, 1, None)], owner="DaskComparisons"))
        if n_blocks > len(labels):
            raise ParameterError(
                f"DaskComparisons: n_blocks={n_blocks} is larger than the number of items ({len(labels)}); "
                "a block holds at least one item."
            )
        self.n_blocks = n_blocks
        self.block_bounds = block_bounds(len(labels), self.n_blocks)

    # -- constructors -----------------------------------------------------------------------------
    @classmethod
    def from_arrays(cls, i, j, y, weights=None, *, items, chunks=1_000_000, n_blocks=None) -> DaskComparisons:
        """Dask comparisons from in-memory arrays of positions, cut into chunks of ``chunks`` comparisons.

        Examples
        --------
        >>> DaskComparisons.from_arrays([0, 1, 2], [1, 2, 0], [1, 1, 0], items=3, chunks=2).n_comparisons
        3
        """
        import dask.array as da

        def wrap(values):
            if values is None:
                return None
            if isinstance(values, (pd.Series, pd.Index)):
                values = values.to_numpy()
            return da.from_array(np.asarray(values), chunks=chunks)

        return cls(wrap(i), wrap(j), wrap(y), wrap(weights), items=items, n_blocks=n_blocks)

    @classmethod
    def from_comparisons(cls, comparisons: Comparisons, *, chunks=1_000_000, n_blocks=None) -> DaskComparisons:
        """The comparisons of an in-memory :class:`~paucity.ranking.Comparisons`, in chunks.

        Examples
        --------
        >>> from paucity.ranking import Comparisons
        >>> c = Comparisons.from_winners(["a", "b"], ["b", "c"])
        >>> DaskComparisons.from_comparisons(c, chunks=1, n_blocks=2).block_bounds.tolist()
        [0, 2, 3]
        """
        if not isinstance(comparisons, Comparisons):
            raise InputTypeError(f"from_comparisons needs a Comparisons object, got {type(comparisons).__name__}.")
        require_no_ties(comparisons, "DaskComparisons")
        return cls.from_arrays(
            comparisons.i, comparisons.j, comparisons.y, comparisons.weights,
            items=comparisons.items, chunks=chunks, n_blocks=n_blocks,
        )

    # -- views ------------------------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_comparisons(self) -> int:
        """Number of comparisons (rows)."""
        return int(self.i.shape[0])

    def __len__(self) -> int:
        return self.n_comparisons

    def __repr__(self) -> str:
        return (
            f"DaskComparisons({self.n_comparisons} comparisons of {self.n_items} items in "
            f"{len(self.i.chunks[0])} chunks, {self.n_blocks} blocks)"
        )

    # -- counting ---------------------------------------------------------------------------------
    def delayed_counts(self):
        """The task graph of 5.31–5.33, as a ``dask.delayed`` object that computes to an ItemCounts.

        One task per chunk checks and splits it, one per block pair computes
        the partial scores (5.32), one per block sums them (5.33) and the last
        joins the blocks. The graph is a single layer over the chunks of the
        arrays.

        Examples
        --------
        >>> data = DaskComparisons.from_arrays([0, 1], [1, 2], [1, 0], items=3, chunks=1)
        >>> data.delayed_counts().compute().wins.tolist()
        [0.0, 2.0, 0.0]
        """
        from dask.base import tokenize
        from dask.delayed import Delayed
        from dask.highlevelgraph import HighLevelGraph

        n, n_blocks, bounds = self.n_items, self.n_blocks, self.block_bounds
        arrays = [a for a in (self.i, self.j, self.y, self.weights) if a is not None]
        name = "ranking-counts-" + tokenize(*(a.name for a in arrays), n, n_blocks)
        pairs = _pairs(n_blocks)
        n_pairs = len(pairs)
        offsets = np.concatenate([[0], np.cumsum(self.i.chunks[0])]).astype(np.int64)
        n_chunks = len(offsets) - 1
        size = np.diff(bounds)
        graph = {}
        for c in range(n_chunks):
            weights = None if self.weights is None else (self.weights.name, c)
            route = (name + "-route", c)
            graph[route] = (
                _route_chunk, (self.i.name, c), (self.j.name, c), (self.y.name, c), weights, int(offsets[c]), n, bounds
            )
            for index in range(n_pairs + 1):
                graph[(name + "-piece", c, index)] = (getitem, route, index)
        for index, (k, l) in enumerate(pairs):
            space = int(size[k] + (size[l] if l != k else 0))
            pieces = [(name + "-piece", c, index) for c in range(n_chunks)]
            graph[(name + "-pair", index)] = (_pair_scores, space, int(size[k]), *pieces)
            for side in (0, 1):
                graph[(name + "-part", index, side)] = (getitem, (name + "-pair", index), side)
        index_of = {pair: index for index, pair in enumerate(pairs)}
        blocks = []
        for l in range(n_blocks):
            parts = [
                (name + "-part", index_of[k, l], 1) if k < l else (name + "-part", index_of[l, k], 0)
                for k in range(n_blocks)
            ]
            graph[(name + "-block", l)] = (_block_scores, *parts)
            blocks.append((name + "-block", l))
        totals = [(name + "-piece", c, n_pairs) for c in range(n_chunks)]
        graph[name] = (_join, totals, *blocks)
        layers = HighLevelGraph.from_collections(name, graph, dependencies=arrays)
        return Delayed(name, layers, layer=name)

    def counts(self) -> ItemCounts:
        """Weighted wins and losses per item and the total weight, computed on the active scheduler.

        Raises the :class:`~paucity._errors.InputError` of the first bad chunk
        met (an item compared with itself, an outcome other than 0/1, a
        position out of range, a negative or non-finite weight).
        """
        import dask

        try:
            (counts,) = dask.compute(self.delayed_counts())
        except InputError as error:
            position = getattr(error, "position", None)
            if position is None:
                raise
            raise InputError(
                f"comparison {error.comparison} compares item {self.items[position]!r} with itself; "
                "a comparison needs two different items."
            ) from None
        return counts
