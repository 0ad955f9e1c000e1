"""The entropy chart of the Entropy patches page: one bar per byte (its next-byte entropy, a patch's
first byte in the accent colour), the threshold as a line, and in the relative rule the rise over the
byte before as a second line.

>>> fig = entropy_figure([b"ab", b"c"], [3.0, 0.5, 2.0], threshold=1.0, mode="global")
>>> [t.name for t in fig.data], fig.layout.shapes[0].y0
(['next-byte entropy'], 1.0)
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotly.graph_objects as go

from tokenizer_core.patches.patching import PatchMode
from ui.widgets.tokens import bytes_display, visible_whitespace

START_COLOUR = "#d95f02"
BYTE_COLOUR = "#7570b3"
RISE_COLOUR = "#1b9e77"
CHARACTER_TICKS = 160  # up to this many bytes, the axis names each byte's character


def _labels(patches: Sequence[bytes]) -> list[str]:
    """Each byte as hover text (escaped: the text is the user's), a character's later bytes as ``·``."""
    out = []
    for data in patches:
        i = 0
        while i < len(data):
            lead = data[i]
            size = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4 if lead >> 3 == 30 else 1
            piece = data[i:i + size]
            out.append(html.escape(visible_whitespace(bytes_display(piece))))  # a cut character: <0xE2>
            out.extend("·" for _ in range(len(piece) - 1))
            i += len(piece)
    return out


def entropy_figure(patches: Sequence[bytes], entropies: Sequence[float], *, threshold: float,
                   mode: PatchMode) -> go.Figure:
    """The figure for ``patches`` (the text cut, in order) and each byte's entropy (bits)."""
    starts, at = set(), 0
    for p in patches:
        starts.add(at)
        at += len(p)
    x = list(range(len(entropies)))
    labels = _labels(patches)
    colours = [START_COLOUR if i in starts else BYTE_COLOUR for i in x]
    fig = go.Figure(go.Bar(
        x=x, y=list(entropies), marker_color=colours, name="next-byte entropy", customdata=labels,
        hovertemplate="byte %{x}: %{customdata}<br>entropy %{y:.2f} bits<extra></extra>"))
    if mode == "relative":
        rise = [0.0] + [entropies[i] - entropies[i - 1] for i in range(1, len(entropies))]
        fig.add_trace(go.Scatter(x=x, y=rise, mode="lines", name="rise over the byte before",
                                 line=dict(color=RISE_COLOUR, width=1.5),
                                 hovertemplate="byte %{x}: rise %{y:.2f} bits<extra></extra>"))
    fig.add_hline(y=threshold, line_dash="dash", line_color=START_COLOUR,
                  annotation_text=f"threshold {threshold:g} bits", annotation_position="top right")
    if len(x) <= CHARACTER_TICKS:  # short texts: each bar under its character
        fig.update_xaxes(tickmode="array", tickvals=x, ticktext=labels, tickangle=0)
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), bargap=0.05,
                      showlegend=mode == "relative", legend=dict(orientation="h", y=1.12),
                      xaxis=dict(title="byte" if len(x) > CHARACTER_TICKS else "", tickformat="d"), yaxis=dict(title="bits", rangemode="tozero"))
    return fig
