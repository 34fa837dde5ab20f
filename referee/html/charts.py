"""Inline SVG charts for the tournament report, drawn here: no chart library, no script, no network.

Each function returns one ``<svg>`` element as a string.  Numbers are escaped text, every mark has a ``<title>``
(the browser's tooltip) and a ``data-`` attribute naming what it shows, so tests and readers can check a chart
against the table next to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from referee.html import html_text

PALETTE = ("#2f7ed8", "#e4572e", "#29a36a", "#9b59b6", "#f0a202", "#17becf", "#d62d79", "#8c564b", "#7f8c8d",
           "#b5bd00", "#1f3a93", "#ff7f50")
DUMMY_COLOUR = "#9aa3a0"
FONT = 'font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"'


def colour(i: int, dummy: bool = False) -> str:
    return DUMMY_COLOUR if dummy else PALETTE[i % len(PALETTE)]


def nice_ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    """Round tick values covering ``[lo, hi]`` (1, 2 or 5 times a power of ten apart)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    v = start
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 10))
        v += step
    if ticks[-1] < hi:
        ticks.append(round(v, 10))
    return ticks


def fmt(v: float, digits: int = 1) -> str:
    if v == int(v) and abs(v) >= 10:
        return f"{int(v)}"
    return f"{v:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{v:.0f}"


class _Scale:
    def __init__(self, lo: float, hi: float, a: float, b: float) -> None:
        self.lo, self.hi, self.a, self.b = lo, hi, a, b

    def __call__(self, v: float) -> float:
        if self.hi == self.lo:
            return (self.a + self.b) / 2
        return self.a + (v - self.lo) / (self.hi - self.lo) * (self.b - self.a)


def interval_chart(rows: Sequence[dict[str, object]], *, width: int = 720, unit: str = "points per hand") -> str:
    """Horizontal error bars: per row ``name``, ``mean``, ``lo``, ``hi`` (None: no interval), ``dummy``."""
    label_w, pad, row_h, top = 150, 24, 30, 26
    values: list[float] = [0.0]
    for r in rows:
        values += [float(v) for v in (r.get("mean"), r.get("lo"), r.get("hi")) if isinstance(v, (int, float))]
    ticks = nice_ticks(min(values), max(values))
    x = _Scale(ticks[0], ticks[-1], label_w, width - pad)
    height = top + row_h * len(rows) + 34
    out = [(f'<svg id="ci-chart" class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="mean {html_text(unit)} with 95% intervals" '
           f'{FONT}>')]
    bottom = top + row_h * len(rows)
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top - 6}" x2="{x(t):.1f}" y2="{bottom}" stroke="#e3e7e5"/>'
                   f'<text x="{x(t):.1f}" y="{bottom + 16}" font-size="11" text-anchor="middle" fill="#555">'
                   f'{fmt(t)}</text>')
    out.append(f'<line x1="{x(0):.1f}" y1="{top - 8}" x2="{x(0):.1f}" y2="{bottom}" stroke="#333" '
               f'stroke-dasharray="4 3"/>')
    out.append(f'<text x="{(label_w + width - pad) / 2:.0f}" y="{bottom + 31}" font-size="11" text-anchor="middle" '
               f'fill="#333">mean {html_text(unit)}, with 95% interval</text>')
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        name = str(r["name"])
        c = colour(i, bool(r.get("dummy")))
        mean, lo, hi = r.get("mean"), r.get("lo"), r.get("hi")
        out.append(f'<g class="ci-row" data-bot="{html_text(name)}" data-mean="{mean}" data-lo="{lo}" data-hi="{hi}">')
        out.append(f'<text x="{label_w - 8}" y="{y + 4:.1f}" font-size="12" text-anchor="end" fill="#222">'
                   f'{html_text(_short(name, 20))}</text>')
        if isinstance(mean, (int, float)):
            tip = f"{name}: {fmt(float(mean), 2)}"
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
                tip += f" [{fmt(float(lo), 2)}, {fmt(float(hi), 2)}]"
                out.append(f'<line class="bar" x1="{x(float(lo)):.1f}" y1="{y:.1f}" x2="{x(float(hi)):.1f}" '
                           f'y2="{y:.1f}" stroke="{c}" stroke-width="3"/>')
                for v in (lo, hi):
                    out.append(f'<line x1="{x(float(v)):.1f}" y1="{y - 7:.1f}" x2="{x(float(v)):.1f}" '
                               f'y2="{y + 7:.1f}" stroke="{c}" stroke-width="2"/>')
            else:
                tip += " (no interval: one group)"
            out.append(f'<circle class="point" cx="{x(float(mean)):.1f}" cy="{y:.1f}" r="5.5" fill="{c}" '
                       f'stroke="#fff" stroke-width="1.5"><title>{html_text(tip)}</title></circle>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def histograms(series: Sequence[dict[str, object]], *, width: int = 720, bins: int = 24) -> str:
    """Small multiples, one per bot, sharing bins: ``name``, ``counts`` (``(points in one hand, how many hands)``
    pairs: a histogram's size does not grow with the hands), ``dummy``."""
    all_values = [float(v) for s in series for v, _ in s["counts"]]  # type: ignore[attr-defined]
    label_w, pad, panel_h, gap, top = 150, 24, 58, 10, 8
    lo, hi = (min(all_values), max(all_values)) if all_values else (-1.0, 1.0)
    ticks = nice_ticks(lo, hi, 8)
    step = (ticks[-1] - ticks[0]) / bins if ticks[-1] > ticks[0] else 1.0
    edges = [ticks[0] + step * i for i in range(bins + 1)]
    x = _Scale(ticks[0], ticks[-1], label_w, width - pad)
    height = top + (panel_h + gap) * len(series) + 40
    out = [(f'<svg id="distribution" class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="points per hand, per bot" {FONT}>')]
    bottom_all = top + (panel_h + gap) * len(series)
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom_all - gap}" stroke="#eef1ef"/>'
                   f'<text x="{x(t):.1f}" y="{bottom_all + 8}" font-size="11" text-anchor="middle" fill="#555">'
                   f'{fmt(t)}</text>')
    out.append(f'<text x="{(label_w + width - pad) / 2:.0f}" y="{bottom_all + 26}" font-size="11" '
               f'text-anchor="middle" fill="#333">points in one hand (share of the bot\'s hands per bin)</text>')
    for i, s in enumerate(series):
        pairs = [(float(v), int(k)) for v, k in s["counts"]]  # type: ignore[attr-defined]
        name = str(s["name"])
        c = colour(i, bool(s.get("dummy")))
        y0 = top + (panel_h + gap) * i
        base = y0 + panel_h
        counts = [0] * bins
        for v, k in pairs:
            j = min(bins - 1, max(0, int((v - edges[0]) / step))) if step else 0
            counts[j] += k
        n = sum(k for _, k in pairs)
        peak = max([1, *counts])
        mean = sum(v * k for v, k in pairs) / n if n else 0.0
        out.append(f'<g class="hist" data-bot="{html_text(name)}" data-n="{n}">')
        out.append(f'<text x="{label_w - 8}" y="{y0 + panel_h / 2 + 4:.1f}" font-size="12" text-anchor="end" '
                   f'fill="#222">{html_text(_short(name, 20))}</text>')
        out.append(f'<line x1="{label_w}" y1="{base}" x2="{width - pad}" y2="{base}" stroke="#bbb"/>')
        for j, k in enumerate(counts):
            if not k:
                continue
            bx, bw = x(edges[j]), x(edges[j + 1]) - x(edges[j])
            bh = (panel_h - 4) * k / peak
            share = 100 * k / n
            out.append(f'<rect x="{bx + 0.5:.1f}" y="{base - bh:.1f}" width="{max(1.0, bw - 1):.1f}" '
                       f'height="{bh:.1f}" fill="{c}" opacity="0.85"><title>{html_text(name)}: {k} hands '
                       f'({share:.0f}%) in [{fmt(edges[j])}, {fmt(edges[j + 1])})</title></rect>')
        if n:
            out.append(f'<line class="mean" x1="{x(mean):.1f}" y1="{y0}" x2="{x(mean):.1f}" y2="{base}" '
                       f'stroke="#222" stroke-width="1.5" stroke-dasharray="3 2"><title>mean {fmt(mean, 2)}'
                       f'</title></line>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def line_chart(series: Sequence[dict[str, object]], *, matches: int, width: int = 720, height: int = 320) -> str:
    """Cumulative points: per series ``name``, ``points`` (list of ``[match number, cumulative]``), ``dummy``."""
    left, right, top, bottom = 64, 150, 14, 40
    ys = [0.0] + [float(p[1]) for s in series for p in s["points"]]  # type: ignore[attr-defined]
    ticks = nice_ticks(min(ys), max(ys))
    xt = nice_ticks(0, max(1, matches), 8)
    x = _Scale(0, xt[-1], left, width - right)
    y = _Scale(ticks[0], ticks[-1], height - bottom, top)
    out = [(f'<svg id="cumulative" class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="cumulative points over the matches" {FONT}>')]
    for t in ticks:
        out.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{width - right}" y2="{y(t):.1f}" '
                   f'stroke="{"#999" if t == 0 else "#eef1ef"}"/><text x="{left - 6}" y="{y(t) + 4:.1f}" '
                   f'font-size="11" text-anchor="end" fill="#555">{fmt(t)}</text>')
    for t in xt:
        if t != int(t):
            continue
        out.append(f'<text x="{x(t):.1f}" y="{height - bottom + 16}" font-size="11" text-anchor="middle" '
                   f'fill="#555">{int(t)}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" font-size="11" text-anchor="middle" '
               f'fill="#333">matches played (in schedule order)</text>')
    labels: list[tuple[float, str, str]] = []
    for i, s in enumerate(series):
        pts = [(0.0, 0.0)] + [(float(p[0]), float(p[1])) for p in s["points"]]  # type: ignore[attr-defined]
        name = str(s["name"])
        c = colour(i, bool(s.get("dummy")))
        path = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
        out.append(f'<g class="line" data-bot="{html_text(name)}" data-final="{pts[-1][1]:g}">'
                   f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2" stroke-linejoin="round">'
                   f'<title>{html_text(name)}: {pts[-1][1]:g} after {len(pts) - 1} matches</title></polyline></g>')
        labels.append((y(pts[-1][1]), name, c))
    # legend at the line ends, nudged apart
    labels.sort()
    last = -1e9
    for ly, name, c in labels:
        ly = max(ly, last + 14)
        last = ly
        out.append(f'<text x="{width - right + 8}" y="{ly + 4:.1f}" font-size="12" fill="{c}">'
                   f'{html_text(_short(name, 18))}</text>')
    out.append("</svg>")
    return "".join(out)


def _short(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"
