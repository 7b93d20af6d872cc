"""Server-rendered SVG pictures of the marker explorer: no JavaScript library, no network.

Colours: the Okabe–Ito palette for groups and viridis for expression, both
legible to colour-blind readers.
"""

from __future__ import annotations

from html import escape

import numpy as np

__all__ = ["box_svg", "embedding_svg", "history_svg", "viridis", "OKABE_ITO", "MAX_POINTS"]

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
#: The most cells an embedding draws (an even subsample beyond).
MAX_POINTS = 6000
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


def embedding_svg(coordinates: np.ndarray, values: np.ndarray, gene: str, key: str, size: int = 360) -> str:
    """The cells at ``coordinates`` (two columns), coloured by ``values`` with viridis, highest drawn last.

    More than :data:`MAX_POINTS` cells are thinned to an even subsample.
    """
    pad, legend = 12, 40
    n = coordinates.shape[0]
    order = np.argsort(values, kind="stable")  # expressing cells on top
    if n > MAX_POINTS:
        order = order[np.linspace(0, n - 1, MAX_POINTS).astype(int)]
    xy = coordinates[order]
    low, high = xy.min(axis=0), xy.max(axis=0)
    scale = (size - 2 * pad) / np.maximum(high - low, 1e-12)
    px = pad + (xy[:, 0] - low[0]) * scale[0]
    py = size - pad - (xy[:, 1] - low[1]) * scale[1]
    top = float(values.max()) if values.size and values.max() > 0 else 1.0
    colours = viridis(values[order] / top)
    body = [f'<rect x="0" y="0" width="{size}" height="{size}" fill="#fff" stroke="#ccc"/>']
    body.extend(
        f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.2" fill="{c}"/>' for a, b, c in zip(px.tolist(), py.tolist(), colours)
    )
    steps = 24
    bar = size - 2 * pad
    for s, colour in enumerate(viridis(np.linspace(1, 0, steps))):
        body.append(
            f'<rect x="{size + 10}" y="{pad + bar * s / steps:.1f}" width="12" height="{bar / steps + 0.5:.1f}" fill="{colour}"/>'
        )
    body.append(f'<text x="{size + 26}" y="{pad + 10}">{_number(top)}</text>')
    body.append(f'<text x="{size + 26}" y="{size - pad}">0</text>')
    title = f"{gene} on {key.removeprefix('X_').upper()}"
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
