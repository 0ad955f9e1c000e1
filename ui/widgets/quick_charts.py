"""Charts drawn as plain markup on the server, for views redrawn on every click of a stepper.

A Vega-Lite chart costs a step of the BPE page about 60 ms (Arrow tables on the server, the Vega
dataflow in the browser) even when only its data changes. The step view's two charts are simple
(bars with labels, one curve with a marker), so they are drawn here as HTML bars (a string the
browser swaps in) and an SVG curve given as data (:class:`Drawing`), whose axes and line the browser
keeps from step to step while the marker moves. Their downloads stay Vega-Lite (:mod:`ui.widgets.export`, made
only when clicked), so slides keep the chart engine's typesetting.

Every label is escaped here (markup) or set as text by the browser (drawings).

>>> nice_ticks(0, 1234)
[0, 200, 400, 600, 800, 1000, 1200]
>>> svg = to_svg(curve_drawing([10, 8, 7, 7], 2, x_title="step", y_title="tokens"))
>>> svg.count("<polyline"), "step 2: 7 tokens" in svg
(1, True)
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import NamedTuple

from ui.widgets.export_theme import LIGHT, ChartStyle

#: Width of the curve's drawing in SVG units: about a half column at 1280 px, so its text is drawn
#: near its own size (the drawing shrinks with a narrower column, and never grows past this).
CURVE_WIDTH = 460
#: The compression curve is drawn (and downloaded) with at most about this many points.
CURVE_POINTS = 600
#: The longest bar's share of the bar column (the rest is for its value).
BAR_SHARE = 80


class Bar(NamedTuple):
    """One bar: its label (markup, already escaped), length, colour, hover text and value text."""

    label_html: str
    value: float
    colour: str
    tip: str
    value_text: str


def nice_ticks(lo: float, hi: float, *, count: int = 6, integer: bool = True) -> list[float]:
    """Round tick positions from ``lo`` to ``hi`` (about ``count`` of them): steps of 1, 2 or 5 times
    a power of ten, never below 1 when ``integer`` (an axis of steps or counts shows no fractions).

    >>> nice_ticks(0, 3)
    [0, 1, 2, 3]
    >>> nice_ticks(0.0, 0.5, integer=False)
    [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5]
    """
    span = max(hi - lo, 1e-12)
    raw = span / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    fraction = raw / power  # in [1, 10): rounded to the nearest of 1, 2, 5 and 10
    step = power * (1 if fraction < 1.5 else 2 if fraction < 3 else 5 if fraction < 7 else 10)
    if integer:
        step = max(1, round(step))
    first = math.ceil(lo / step)
    ticks = [k * step for k in range(first, int(math.floor(hi / step)) + 1)]
    return [int(t) for t in ticks] if integer else ticks


def bars_html(bars: Sequence[Bar], *, style: ChartStyle = LIGHT, bar_height: int = 24) -> str:
    """Horizontal bars in a grid, label | bar and value; lengths relative to the largest value.

    >>> out = bars_html([Bar("a &amp; b", 3, "#000", "a & b: 3", "3"), Bar("c", 1, "#111", "c: 1", "1")])
    >>> out.count("tp-bar-row"), "width:26.7%" in out
    (2, True)
    """
    top = max((b.value for b in bars), default=0) or 1
    height = style.size(bar_height)
    rows = []
    for b in bars:
        width = BAR_SHARE * max(b.value, 0) / top
        rows.append(
            f'<div class="tp-bar-row" title="{html.escape(b.tip, quote=True)}" style="display:contents">'
            f'<div style="text-align:right;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">{b.label_html}</div>'
            f'<div style="display:flex;align-items:center;gap:4px;min-width:0">'
            f'<div style="width:{width:.1f}%;height:{round(height * 0.8)}px;background:{b.colour};flex:none"></div>'
            f'<span style="font-size:{style.size(12)}px;color:{style.text};white-space:nowrap">'
            f'{html.escape(b.value_text)}</span></div></div>'
        )
    return (f'<div class="tp-bars" style="display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);'
            f'column-gap:8px;row-gap:2px;align-items:center;min-height:{height}px;'
            f'font-size:{style.size(13)}px;color:{style.text}">{"".join(rows)}</div>')


def sample_steps(n: int, marked: int, points: int) -> list[int]:
    """At most about ``points`` x positions of 0..n, always with 0, ``n`` and ``marked`` (the
    compression curve's points, drawn here and in its Vega-Lite download).

    >>> sample_steps(10, 3, 4)
    [0, 2, 3, 5, 8, 10]
    """
    if n + 1 <= points:
        return list(range(n + 1))
    stride = n / points
    picked = {round(i * stride) for i in range(points + 1)}
    picked.update((0, n, marked))
    return sorted(picked)


class Drawing(NamedTuple):
    """A small SVG drawing as data: a view box, shapes that change rarely (``base``) and shapes that
    move on every step (``overlay``). Each shape is a dict: ``tag`` (line, polyline, circle, text),
    its attributes, ``text`` for a text's words and ``tip`` for hover text. Drawn in the browser by
    :mod:`ui.widgets.drawing` (Streamlit's ``st.html`` strips SVG), or as markup by :func:`to_svg`."""

    width: int
    height: int
    label: str
    base: list[dict[str, object]]
    overlay: list[dict[str, object]]


def curve_drawing(curve: Sequence[int], marked: int, *, x_title: str, y_title: str, style: ChartStyle = LIGHT,
                  height: int = 260, points: int = CURVE_POINTS,
                  boundaries: Sequence[tuple[int, str]] = ()) -> Drawing:
    """``curve[x]`` against ``x`` as a line from a zero-based y axis, ``marked`` shown by a rule and a
    dot (its value on hover), integer ticks on both axes; each of ``boundaries`` (x, label) a dashed
    rule labelled at its top (SuperBPE's switch to stage 2).

    >>> d = curve_drawing([10, 8, 7, 7], 2, x_title="step", y_title="tokens")
    >>> [s["tag"] for s in d.overlay], d.overlay[1]["tip"]
    (['line', 'circle'], 'step 2: 7 tokens')
    """
    n = max(len(curve) - 1, 1)
    h = style.size(height)
    font = style.size(12)
    y_max = max(max(curve, default=1), 1)
    y_ticks = nice_ticks(0, y_max)
    # Room for the longest tick label (digits about 0.6 em wide) and the axis title beside it.
    left, right, top, bottom = round(font * (0.6 * len(f"{y_ticks[-1]:,}") + 2.2)), font * 1.8, 10, font * 3.4
    plot_w, plot_h = CURVE_WIDTH - left - right, h - top - bottom
    y_top = max(y_max, y_ticks[-1])

    def px(x: float) -> float:
        return round(left + plot_w * x / n, 1)

    def py(y: float) -> float:
        return round(top + plot_h * (1 - y / y_top), 1)

    base: list[dict[str, object]] = []
    for t in y_ticks:
        base.append({"tag": "line", "x1": left, "x2": left + plot_w, "y1": py(t), "y2": py(t), "stroke": style.grid})
        base.append({"tag": "text", "x": left - 6, "y": round(py(t) + font * 0.35, 1), "text-anchor": "end",
                     "fill": style.muted, "text": f"{t:,}"})
    for t in nice_ticks(0, len(curve) - 1 if len(curve) > 1 else 1, count=7):
        base.append({"tag": "line", "x1": px(t), "x2": px(t), "y1": top + plot_h, "y2": top + plot_h + 4,
                     "stroke": style.muted})
        base.append({"tag": "text", "x": px(t), "y": round(top + plot_h + font * 1.4, 1), "text-anchor": "middle",
                     "fill": style.muted, "text": f"{t:,}"})
    base.append({"tag": "text", "x": round(left + plot_w / 2, 1), "y": round(h - font * 0.5, 1),
                 "text-anchor": "middle", "fill": style.text, "text": x_title})
    base.append({"tag": "text", "transform": "rotate(-90)", "x": -round(top + plot_h / 2, 1),
                 "y": round(font * 1.1, 1), "text-anchor": "middle", "fill": style.text, "text": y_title})
    for bx, text in boundaries:
        if 0 <= bx < len(curve):
            base.append({"tag": "line", "x1": px(bx), "x2": px(bx), "y1": top, "y2": top + plot_h,
                         "stroke": style.muted, "stroke-dasharray": "5 4", "tip": text})
            anchor = "end" if px(bx) > left + plot_w * 0.6 else "start"
            base.append({"tag": "text", "x": round(px(bx) + (-4 if anchor == "end" else 4), 1),
                         "y": round(top + font, 1), "text-anchor": anchor, "fill": style.muted, "text": text})
    line = " ".join(f"{px(x)},{py(curve[x])}" for x in sample_steps(len(curve) - 1, marked, points))
    base.append({"tag": "polyline", "points": line, "fill": "none", "stroke": style.blue, "stroke-width": 2})
    overlay: list[dict[str, object]] = []
    if 0 <= marked < len(curve):
        x, y = px(marked), py(curve[marked])
        unit = y_title.split(" (")[-1].rstrip(")")
        overlay.append({"tag": "line", "x1": x, "x2": x, "y1": top, "y2": top + plot_h, "stroke": style.accent,
                        "stroke-width": 2})
        overlay.append({"tag": "circle", "cx": x, "cy": y, "r": 5, "fill": style.accent,
                        "tip": f"{x_title} {marked:,}: {curve[marked]:,} {unit}"})
    return Drawing(CURVE_WIDTH, h, f"{y_title} against {x_title}", base, overlay)


def to_svg(drawing: Drawing) -> str:
    """The drawing as SVG markup, every text and attribute escaped (for files and tests).

    >>> to_svg(Drawing(10, 10, "a<b", [{"tag": "text", "x": 1, "y": 2, "text": "<x>"}], []))
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img" aria-label="a&lt;b"><text x="1" y="2">&lt;x&gt;</text></svg>'
    """
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {drawing.width} {drawing.height}" role="img" '
             f'aria-label="{html.escape(drawing.label, quote=True)}">']
    for shape in (*drawing.base, *drawing.overlay):
        attrs = "".join(f' {k}="{html.escape(str(v), quote=True)}"' for k, v in shape.items()
                        if k not in ("tag", "text", "tip"))
        inner = html.escape(str(shape.get("text", "")))
        if "tip" in shape:
            inner += f"<title>{html.escape(str(shape['tip']))}</title>"
        parts.append(f"<{shape['tag']}{attrs}>{inner}</{shape['tag']}>")
    parts.append("</svg>")
    return "".join(parts)
