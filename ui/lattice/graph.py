"""The lattice as a plotly figure: positions as nodes on a line, each vocabulary piece an arc from
its start to its end (taller for longer pieces), labelled with its log-probability, drawn as wide
as its marginal probability; the Viterbi path in the theme's accent colour. Colours and text sizes
come from a :class:`~ui.widgets.export_theme.ChartStyle` (light or dark theme, presenter mode).

>>> from tokenizer_core.unigram.explain import course_model
>>> fig = lattice_figure(course_model().lattice("hugs"))
>>> sum(1 for t in fig.data if t.name == "Viterbi path") >= 1
True
"""

from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from tokenizer_core.unigram.lattice import Lattice
from ui.widgets.export_theme import LIGHT, ChartStyle
from ui.widgets.tokens import visible_whitespace

_ARC_POINTS = 24
#: The colour of the Viterbi path in words, for captions: the theme's accent, #c2410c in light
#: mode and #ff922b in dark mode (tests check that both are orange).
VITERBI_COLOUR = "orange"
#: The tallest lattice in presenter mode, in pixels: under the page's title, the folded settings
#: and the tabs it leaves about 100 px to spare on a 1280x720 screen (and more at 1024x768).
PRESENTER_MAX_HEIGHT = 440


def _arc(start: int, end: int, height: float) -> tuple[list[float], list[float]]:
    """A half-ellipse from ``start`` to ``end`` on the x axis, ``height`` high."""
    xs, ys = [], []
    mid, half = (start + end) / 2, (end - start) / 2
    for i in range(_ARC_POINTS + 1):
        t = math.pi * (1 - i / _ARC_POINTS)
        xs.append(mid + half * math.cos(t))
        ys.append(height * math.sin(t))
    return xs, ys


def lattice_figure(lattice: Lattice, *, alpha: float = 1.0, style: ChartStyle = LIGHT) -> go.Figure:
    """The figure (edges with hover text: piece, id, log-probability, marginal)."""
    viterbi, other = style.accent, style.blue
    marginals = lattice.marginals(alpha=alpha) if lattice.text else []
    on_path = set(lattice.viterbi().edges) if lattice.text else set()
    fig = go.Figure()
    seen_legend: set[str] = set()
    # Less likely edges first, so likely ones and the Viterbi path are drawn on top.
    order = sorted(range(len(lattice.edges)), key=lambda i: (lattice.edges[i] in on_path, marginals[i]))
    labels_x, labels_y, labels, hovers, colours = [], [], [], [], []
    for i in order:
        e, m = lattice.edges[i], marginals[i]
        best = e in on_path
        length = e.end - e.start
        # Arcs of the same length would coincide in height; nudge by start so they separate.
        height = 0.6 + 0.5 * length + 0.07 * (e.start % 3)
        xs, ys = _arc(e.start, e.end, height)
        name = "Viterbi path" if best else "other pieces"
        piece = html.escape(visible_whitespace(e.piece[:30]))
        hover = (f"<b>{piece}</b>{' (unknown)' if e.unknown else ''}<br>id {e.id} · chars {e.start}–{e.end}"
                 f"<br>log-prob {e.log_prob:.3f}<br>marginal {m:.3f}")
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name=name, legendgroup=name, showlegend=name not in seen_legend,
            line=dict(color=viterbi if best else other, width=1 + 9 * m),
            opacity=1.0 if best else 0.25 + 0.6 * m, hoverinfo="skip"))
        seen_legend.add(name)
        labels_x.append((e.start + e.end) / 2)
        labels_y.append(height + 0.02 + 0.012 * (1 + 9 * m))  # above the arc's stroke, however wide
        labels.append(f"{piece} {e.log_prob:.2f}")
        hovers.append(hover)
        colours.append(viterbi if best else other)
    fig.add_trace(go.Scatter(x=labels_x, y=labels_y, mode="text", text=labels, textposition="top center",
                             textfont=dict(color=colours, size=style.size(11), family="monospace"), hovertext=hovers,
                             hoverinfo="text", showlegend=False))
    n = len(lattice.text)
    fig.add_trace(go.Scatter(x=list(range(n + 1)), y=[0] * (n + 1), mode="markers+text", name="positions",
                             text=[str(i) for i in range(n + 1)], textposition="bottom center",
                             textfont=dict(color=style.muted, size=style.size(12)),
                             marker=dict(size=style.size(10), color=style.node),
                             hovertemplate="position %{x}<extra></extra>", showlegend=False))
    fig.add_trace(go.Scatter(x=[i + 0.5 for i in range(n)], y=[-0.45] * n, mode="text",
                             text=[html.escape(visible_whitespace(c)) for c in lattice.text],
                             textfont=dict(color=style.text, size=style.size(16), family="monospace"),
                             hoverinfo="skip", showlegend=False))
    top = max([0.6 + 0.5 * (e.end - e.start) + 0.2 for e in lattice.edges] + [1.5])
    grow = style.size(60) / 60
    height = min(round(640 * grow), round((180 + 60 * top) * grow))
    if style.presenter:
        height = min(height, PRESENTER_MAX_HEIGHT)
    fig.update_layout(height=height,
                      margin=dict(l=10, r=10, t=style.size(30), b=10),
                      xaxis=dict(visible=False, range=[-0.5, n + 0.5]),
                      yaxis=dict(visible=False, range=[-0.8, top + 0.35]),
                      legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0,
                                  font=dict(color=style.text, size=style.font)),
                      font=dict(color=style.text, size=style.font),
                      paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)")
    return fig
