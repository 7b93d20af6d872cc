"""Server-rendered SVG pictures of the marker explorer: no JavaScript library, no network.

Colours: the Okabe–Ito palette for groups and viridis for expression, both
legible to colour-blind readers.
"""

from __future__ import annotations

from html import escape

import numpy as np

__all__ = ["box_svg", "embedding_svg", "history_svg", "stratified_sample", "viridis", "OKABE_ITO", "MAX_POINTS"]

#: Okabe & Ito's colour-blind-safe palette (without black), for groups.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
#: Viridis at eight evenly spaced stops, interpolated in between.
_VIRIDIS = np.array(
    [
        [68, 1, 84], [70, 50, 127], [54, 92, 141], [39, 127, 142],
        [31, 161, 135], [74, 194, 109], [159, 218, 58], [253, 231, 37],
    ],
    dtype=np.float64,
)
#: The most cells an embedding draws (a subsample stratified by group beyond, see :func:`stratified_sample`).
MAX_POINTS = 6000
#: The colours of an embedding's points: viridis in this many steps.
COLOUR_STEPS = 64
_FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="12"'


def viridis(t) -> list[str]:
    """Hex colours of viridis at ``t`` in [0, 1].

    Examples
    --------
    >>> from paucity.serve.plots import viridis
    >>> viridis([0.0, 1.0])
    ['#440154', '#fde725']
    """
    t = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0) * (len(_VIRIDIS) - 1)
    low = np.minimum(np.floor(t).astype(int), len(_VIRIDIS) - 2)
    frac = (t - low)[:, None]
    rgb = np.rint(_VIRIDIS[low] * (1 - frac) + _VIRIDIS[low + 1] * frac).astype(int)
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb]


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(title)}" {_FONT}><title>{escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


def _number(value: float) -> str:
    return f"{value:.3g}"


def _ticks(high: float) -> np.ndarray:
    """Round tick values from 0 to at least ``high``: steps of 1, 2, 2.5 or 5 times a power of ten.

    Examples
    --------
    >>> from paucity.serve.plots import _ticks
    >>> _ticks(5.36).tolist()
    [0.0, 2.0, 4.0, 6.0]
    """
    if not high > 0:
        return np.array([0.0, 1.0])
    raw = high / 4
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return np.arange(0, np.ceil(high / step - 1e-9) + 1) * step


def box_svg(values: np.ndarray, codes: np.ndarray, groups: list[str], gene: str, width: int = 560) -> str:
    """Box plots of ``values`` by group, one row per group, with the share of cells expressing the gene.

    Boxes span the quartiles, the line is the median, whiskers reach the most
    extreme values within 1.5 interquartile ranges; the dot is the mean.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.serve.plots import box_svg
    >>> svg = box_svg(np.array([0.0, 1, 2, 5, 6, 7]), np.array([0, 0, 0, 1, 1, 1]), ["B", "T"], "CD3E")
    >>> svg.startswith("<svg") and svg.count("<rect") >= 2
    True
    """
    labels = [name if len(name) <= 30 else name[:29] + "…" for name in groups]
    left = min(230, 16 + 7 * max((len(name) for name in labels), default=4))
    right, top, row = 70, 26, 24
    height = top + row * len(groups) + 34
    ticks = _ticks(float(values.max()) if values.size else 0.0)
    span = float(ticks[-1])
    plot = width - left - right

    def x(v):
        return left + plot * float(v) / span

    body = [
        f'<text x="{left}" y="16" font-weight="600">{escape(gene)}: expression by group</text>',
        f'<text x="{width - right + 8}" y="16" fill="#555">% expr.</text>',
    ]
    for t, name in enumerate(labels):
        colour = OKABE_ITO[t % len(OKABE_ITO)]
        y0 = top + row * t
        mid = y0 + row / 2
        body.append(
            f'<text x="{left - 8}" y="{mid + 4:.1f}" text-anchor="end">{escape(name)}</text>'
        )
        v = values[codes == t]
        if v.size == 0:
            continue
        q1, median, q3 = np.percentile(v, [25, 50, 75])
        iqr = q3 - q1
        low = float(v[v >= q1 - 1.5 * iqr].min())
        high = float(v[v <= q3 + 1.5 * iqr].max())
        body.append(f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{mid:.1f}" y2="{mid:.1f}" stroke="#333"/>')
        body.append(
            f'<rect x="{x(q1):.1f}" y="{y0 + 5}" width="{max(x(q3) - x(q1), 1.5):.1f}" height="{row - 10}" '
            f'fill="{colour}" fill-opacity="0.75" stroke="#333"/>'
        )
        body.append(f'<line x1="{x(median):.1f}" x2="{x(median):.1f}" y1="{y0 + 5}" y2="{y0 + row - 5}" stroke="#000" stroke-width="2"/>')
        body.append(f'<circle cx="{x(v.mean()):.1f}" cy="{mid:.1f}" r="2.5" fill="#fff" stroke="#000"/>')
        share = 100.0 * float(np.mean(v > 0))
        body.append(f'<text x="{width - right + 8}" y="{mid + 4:.1f}">{share:.0f}%</text>')
    axis = top + row * len(groups) + 4
    body.append(f'<line x1="{left}" x2="{left + plot}" y1="{axis}" y2="{axis}" stroke="#333"/>')
    for tick in ticks:
        body.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{axis}" y2="{axis + 4}" stroke="#333"/>')
        body.append(f'<text x="{x(tick):.1f}" y="{axis + 17}" text-anchor="middle">{_number(tick)}</text>')
    return _svg(width, height, body, f"{gene}: expression by group")


def stratified_sample(codes: np.ndarray, n: int = MAX_POINTS, random_state: int = 0) -> np.ndarray:
    """At most ``n`` cells, ascending, in which every group keeps at least its share of ``n`` split evenly.

    Each of the G groups is first given ``n // G`` places, and a group with
    fewer cells keeps every one of them; the places left are shared by the
    larger groups in proportion to their sizes. A rare group (100 cells of
    200,000, 0.05 %) is therefore drawn whole, where an even subsample of
    6,000 cells would keep three of its cells. Within a group the cells are
    drawn at random (``random_state``), so the picture is the same every
    time.

    Parameters
    ----------
    codes : numpy.ndarray of int
        The group of every cell (0 to G - 1).
    n : int, default :data:`MAX_POINTS`
    random_state : int, default 0

    Returns
    -------
    numpy.ndarray of int64
        Positions of the cells kept, ascending (all of them when there are at most ``n``).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.serve.plots import stratified_sample
    >>> codes = np.r_[np.zeros(199_900, dtype=int), np.ones(100, dtype=int)]
    >>> kept = stratified_sample(codes, 6000)
    >>> len(kept), int((codes[kept] == 1).sum())
    (6000, 100)
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.shape[0] <= n:
        return np.arange(codes.shape[0], dtype=np.int64)
    sizes = np.bincount(codes)
    present = np.flatnonzero(sizes)
    quota = np.zeros_like(sizes)
    quota[present] = np.minimum(sizes[present], n // len(present))
    left = n - int(quota.sum())
    room = sizes - quota
    if left > 0 and room.sum() > 0:  # the rest in proportion to what each group has left, largest remainders first
        share = left * room / room.sum()
        extra = np.floor(share).astype(np.int64)
        order = np.argsort(-(share - extra), kind="stable")
        extra[order[: left - int(extra.sum())]] += 1
        quota += np.minimum(extra, room)
    rng = np.random.default_rng(random_state)
    order = np.argsort(codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    kept = [order[starts[g]:starts[g + 1]][rng.choice(sizes[g], quota[g], replace=False)]
            for g in present if quota[g] > 0]
    return np.sort(np.concatenate(kept)) if kept else np.empty(0, dtype=np.int64)


def embedding_svg(coordinates: np.ndarray, values: np.ndarray, gene: str, key: str, size: int = 360,
                  codes: np.ndarray | None = None, sample: np.ndarray | None = None) -> str:
    """The cells at ``coordinates`` (two columns), coloured by ``values`` with viridis, highest drawn last.

    More than :data:`MAX_POINTS` cells are thinned: with the cells' group
    ``codes``, to :func:`stratified_sample` (every cell of a rare group is
    drawn; ``sample``, its answer for these ``codes`` if already known), else
    to an even subsample of the cells ordered by ``values``. The
    frame is that of every cell, drawn or not. The points are drawn by
    colour, one path per step of :data:`COLOUR_STEPS` (a dot is a
    round-capped stroke of no length), from the lowest expression to the
    highest: about 13 bytes a point, where a circle element takes 50.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.serve.plots import embedding_svg
    >>> rng = np.random.default_rng(0)
    >>> codes = np.r_[np.zeros(20_000, dtype=int), np.ones(10, dtype=int)]
    >>> xy = rng.normal(size=(20_010, 2))
    >>> svg = embedding_svg(xy, np.zeros(20_010), "CD3E", "X_umap", codes=codes)
    >>> svg.count("h0"), 'data-drawn="6000" data-cells="20010"' in svg
    (6000, True)
    """
    pad, legend = 12, 40
    n = coordinates.shape[0]
    low, high = (coordinates.min(axis=0), coordinates.max(axis=0)) if n else (np.zeros(2), np.ones(2))
    if n > MAX_POINTS and (codes is not None or sample is not None):
        kept = stratified_sample(codes, MAX_POINTS) if sample is None else sample
        order = kept[np.argsort(values[kept], kind="stable")]  # expressing cells on top
    else:
        order = np.argsort(values, kind="stable")  # expressing cells on top
        if n > MAX_POINTS:
            order = order[np.linspace(0, n - 1, MAX_POINTS).astype(int)]
    xy = coordinates[order]
    scale = (size - 2 * pad) / np.maximum(high - low, 1e-12)
    px = pad + (xy[:, 0] - low[0]) * scale[0]
    py = size - pad - (xy[:, 1] - low[1]) * scale[1]
    top = float(values.max()) if values.size and values.max() > 0 else 1.0
    steps = np.minimum((values[order] / top * COLOUR_STEPS).astype(np.int64), COLOUR_STEPS - 1)
    palette = viridis(np.arange(COLOUR_STEPS) / (COLOUR_STEPS - 1))
    body = [f'<rect x="0" y="0" width="{size}" height="{size}" fill="#fff" stroke="#ccc"/>',
            f'<g fill="none" stroke-width="4.4" stroke-linecap="round" data-drawn="{len(order)}" data-cells="{n}">']
    points = [f"M{a:.1f} {b:.1f}h0" for a, b in zip(px.tolist(), py.tolist())]
    bounds = np.searchsorted(steps, np.arange(COLOUR_STEPS + 1))  # steps ascend with the values: one run per colour
    for step in range(COLOUR_STEPS):
        if bounds[step] < bounds[step + 1]:
            body.append(f'<path stroke="{palette[step]}" d="{"".join(points[bounds[step]:bounds[step + 1]])}"/>')
    body.append("</g>")
    steps = 24
    bar = size - 2 * pad
    for s, colour in enumerate(viridis(np.linspace(1, 0, steps))):
        body.append(
            f'<rect x="{size + 10}" y="{pad + bar * s / steps:.1f}" width="12" height="{bar / steps + 0.5:.1f}" fill="{colour}"/>'
        )
    body.append(f'<text x="{size + 26}" y="{pad + 10}">{_number(top)}</text>')
    body.append(f'<text x="{size + 26}" y="{size - pad}">0</text>')
    title = f"{gene} on {key.removeprefix('X_').upper()}"
    if len(order) < n:
        title += f" ({len(order):,} of {n:,} cells drawn; every group keeps its share)"
    return _svg(size + legend + 20, size, body, title)


#: The most points of the score history that carry their gene's name on the plot.
MAX_NAMED_POINTS = 40


def history_svg(history: list[dict], width: int = 560, height: int = 180) -> str:
    """The score of every gene added so far, in the order added (by hand or by the search), each point named.

    Up to :data:`MAX_NAMED_POINTS` points carry their gene's name under the
    axis (the plot grows to fit them); beyond that the names are in each
    point's tooltip and in the page's table of changes.

    Examples
    --------
    >>> from paucity.serve.plots import history_svg
    >>> svg = history_svg([{"action": "add", "gene": "LYZ", "score": 1.0}, {"action": "take", "gene": "CST3", "score": 0.4}])
    >>> svg.count("<circle")
    2
    >>> ">LYZ</text>" in svg and ">CST3</text>" in svg
    True
    """
    added = [e for e in history if e["action"] in ("add", "take") and e["score"] is not None]
    named = 0 < len(added) <= MAX_NAMED_POINTS
    label_room = min(90, 6 * max((len(str(e["gene"])) for e in added), default=0) + 8) if named else 0
    height += label_room
    left, right, top, bottom = 50, 16, 24, 28 + label_room
    body = ['<text x="50" y="16" font-weight="600">Score of each gene when added (bits)</text>']
    if not added:
        body.append(f'<text x="{left}" y="{height / 2:.0f}" fill="#555">No gene added yet.</text>')
        return _svg(width, height, body, "Score history")
    scores = np.array([e["score"] for e in added], dtype=np.float64)
    low, high = min(0.0, float(scores.min())), max(float(scores.max()), 1e-9)
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i):
        return left + (plot_w * (i + 0.5) / len(added))

    def y(v):
        return top + plot_h * (high - v) / (high - low)

    body.append(f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#999"/>')
    for tick in (low, high):
        body.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_number(tick)}</text>')
    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(scores))
    body.append(f'<polyline points="{points}" fill="none" stroke="#0072B2" stroke-width="1.5"/>')
    for i, (event, v) in enumerate(zip(added, scores)):
        colour = "#0072B2" if event["action"] == "add" else "#E69F00"
        name = escape(str(event["gene"]))
        body.append(
            f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" fill="{colour}"><title>{name}: '
            f"{v:.3f} bits ({'by hand' if event['action'] == 'add' else 'by the search'})</title></circle>"
        )
        if named:
            base = top + plot_h + 10
            body.append(f'<text x="{x(i):.1f}" y="{base:.1f}" font-size="10" text-anchor="end" '
                        f'transform="rotate(-55 {x(i):.1f} {base:.1f})">{name}</text>')
    body.append(f'<text x="{left}" y="{height - 8}" fill="#555">blue: added by hand · orange: taken by the search</text>')
    return _svg(width, height, body, "Score history")
