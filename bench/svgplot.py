"""Small SVG charts for the evaluation scripts: grouped bars and lines, no dependencies.

The charts are plain SVG 1.1 text (one <svg> element, fixed size, system fonts), so they
open in any browser and diff cleanly. Both functions return the SVG as a string.

  bars(title, ylabel, groups, series, values, baseline=None)
      groups: category names along x (e.g. samples); series: names of the bars within a
      group (e.g. configurations); values[s][g]: height of series s in group g (None for
      a missing value, drawn as nothing). baseline: a y value drawn as a dashed line
      (e.g. 1.0 for normalized IPC).
  lines(title, xlabel, ylabel, xs, series, values)
      xs: x positions (numbers); values[s][i]: y of series s at xs[i] (None skips).
"""

WIDTH, HEIGHT = 900, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 40, 90
PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac"]


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _nice_ticks(lo, hi, n=5):
    """About n round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    while mag > raw:
        mag /= 10
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    start = (lo // step) * step
    ticks, t = [], start
    while True:
        ticks.append(round(t, 10))
        if t >= hi - step * 1e-9:
            return ticks
        t += step


def _frame(title, ylabel, ticks, ymap, out):
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
               f'font-family="sans-serif" font-size="11">')
    out.append(f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>')
    out.append(f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="14">'
               f'{_esc(title)}</text>')
    for t in ticks:
        y = ymap(t)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    out.append(f'<text transform="translate(16,{(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" '
               f'text-anchor="middle">{_esc(ylabel)}</text>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" '
               f'stroke="black"/>')


def _legend(series, out):
    for i, name in enumerate(series):
        y = TOP + 16 * i
        color = PALETTE[i % len(PALETTE)]
        out.append(f'<rect x="{WIDTH - RIGHT + 12}" y="{y}" width="10" height="10" '
                   f'fill="{color}"/>')
        out.append(f'<text x="{WIDTH - RIGHT + 27}" y="{y + 9}">{_esc(name)}</text>')


def _scale(values, extra):
    flat = [v for row in values for v in row if v is not None] + list(extra)
    lo, hi = min(flat + [0.0]), max(flat + [0.0])
    ticks = _nice_ticks(lo, hi)
    lo, hi = min(ticks[0], lo), max(ticks[-1], hi)
    span = (hi - lo) or 1.0
    return ticks, lambda v: TOP + (hi - v) / span * (HEIGHT - TOP - BOTTOM)


def bars(title, ylabel, groups, series, values, baseline=None):
    ticks, ymap = _scale(values, [baseline] if baseline is not None else [])
    out = []
    _frame(title, ylabel, ticks, ymap, out)
    plot_w = WIDTH - LEFT - RIGHT
    gw = plot_w / max(len(groups), 1)
    bw = gw * 0.8 / max(len(series), 1)
    y0 = ymap(0.0)
    for g, name in enumerate(groups):
        x0 = LEFT + g * gw + gw * 0.1
        for s in range(len(series)):
            v = values[s][g]
            if v is None:
                continue
            y = ymap(v)
            top, h = min(y, y0), abs(y0 - y)
            out.append(f'<rect x="{x0 + s * bw:.1f}" y="{top:.1f}" width="{bw * 0.95:.1f}" '
                       f'height="{h:.1f}" fill="{PALETTE[s % len(PALETTE)]}">'
                       f'<title>{_esc(series[s])} {_esc(name)}: {v:.4g}</title></rect>')
        cx = LEFT + (g + 0.5) * gw
        out.append(f'<text transform="translate({cx:.1f},{HEIGHT - BOTTOM + 10}) rotate(45)" '
                   f'text-anchor="start">{_esc(name)}</text>')
    out.append(f'<line x1="{LEFT}" y1="{y0:.1f}" x2="{WIDTH - RIGHT}" y2="{y0:.1f}" '
               f'stroke="black"/>')
    if baseline is not None:
        yb = ymap(baseline)
        out.append(f'<line x1="{LEFT}" y1="{yb:.1f}" x2="{WIDTH - RIGHT}" y2="{yb:.1f}" '
                   f'stroke="black" stroke-dasharray="4,3"/>')
    _legend(series, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def lines(title, xlabel, ylabel, xs, series, values):
    ticks, ymap = _scale(values, [])
    out = []
    _frame(title, ylabel, ticks, ymap, out)
    xlo, xhi = min(xs), max(xs)
    xspan = (xhi - xlo) or 1.0

    def xmap(x):
        return LEFT + (x - xlo) / xspan * (WIDTH - LEFT - RIGHT)

    for x in xs:
        out.append(f'<text x="{xmap(x):.1f}" y="{HEIGHT - BOTTOM + 16}" '
                   f'text-anchor="middle">{x:g}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - BOTTOM + 36}" '
               f'text-anchor="middle">{_esc(xlabel)}</text>')
    for s, name in enumerate(series):
        pts = [(xmap(x), ymap(v)) for x, v in zip(xs, values[s]) if v is not None]
        color = PALETTE[s % len(PALETTE)]
        if pts:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                       f'stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
    _legend(series, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"
