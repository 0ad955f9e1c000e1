"""The sweep's chart, table and comparison lines: held-out metrics against vocabulary size, one curve
per algorithm swept (the first one's knee marked), pure functions of the rows.

The first panel, as wide as the chart, is tokens per byte: the measure SuperBPE's paper compares
tokenizers by, and the one where curves of several algorithms at the same sizes read best.

>>> from tokenizer_core.analysis.sweep import SweepRow
>>> def row(model, size, tokens):
...     return SweepRow(model, size, size, tokens, None, None, None, None, 0, 0.0, False)
>>> changes([row("bpe", 1000, 200), row("bpe", 4000, 100)], [row("superbpe", 1000, 180), row("superbpe", 4000, 75)])
[(1000, -0.1), (4000, -0.25)]
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Optional

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from tokenizer_core.analysis.sweep import SweepRow, knee
from ui.widgets.export_theme import LIGHT, ChartStyle

#: (field, panel title, number format), in panel order: one wide panel, then two by two.
PANELS = (("tokens_per_byte", "tokens per byte (lower is fewer tokens)", ".4f"),
          ("chars_per_token", "characters per token", ".2f"), ("fertility", "tokens per word", ".2f"),
          ("unk_rate", "UNK rate", ".2%"), ("utilization", "vocabulary used", ".1%"))
#: Where each panel sits (row, column) in the 3 × 2 grid, the first spanning both columns.
_CELLS = ((1, 1), (2, 1), (2, 2), (3, 1), (3, 2))
#: A curve's line dash, by its place: a second curve differs by more than its colour.
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
#: What "vocabulary used" means, where the number appears (panel, table, JSON).
USED_HELP = ("Vocabulary used: the share of the vocabulary's tokens that appear at least once when the "
             "held-out text is encoded. Low at large sizes: many tokens were learned for words the held-out "
             "text never uses, and their embedding rows would rarely be trained.")
#: The narrowest panel the tick labels must fit (half the page at 1024 px, less the margins).
MIN_PANEL_PX = 300

#: One algorithm's rows with the name its curve is shown under.
Curve = tuple[str, Sequence[SweepRow]]


def size_label(size: int) -> str:
    """Axis and table label of a vocabulary size: the whole number, with thousands separators.

    >>> size_label(15028), size_label(500)
    ('15,028', '500')
    """
    return f"{size:,}"


def size_ticks(sizes: Sequence[int], *, font_px: float, panel_px: float = MIN_PANEL_PX,
               keep: Optional[int] = None) -> list[int]:
    """The sizes to label on a log axis ``panel_px`` wide: first and last always (and ``keep``, the
    knee, when given), then every other size whose label does not come within a gap of a
    labelled one (labels are about 0.62 ``font_px`` a character).

    >>> size_ticks([500, 1000, 2000, 4000, 8000, 16000], font_px=13)
    [500, 1000, 2000, 4000, 8000, 16000]
    >>> size_ticks([256, 330, 430, 560, 720, 930, 1200, 1600, 2000, 2600], font_px=19.5)
    [256, 430, 720, 2600]
    """
    sizes = sorted(set(sizes))
    if len(sizes) < 3:
        return sizes
    span = math.log(sizes[-1] / sizes[0]) or 1.0

    def px(s: int) -> float:
        return panel_px * math.log(s / sizes[0]) / span

    def half(s: int) -> float:
        return 0.62 * font_px * len(size_label(s)) / 2 + font_px / 2  # half a label and half a gap

    chosen = [sizes[0], sizes[-1]] + ([keep] if keep in sizes else [])
    for s in sizes[1:-1]:
        if all(abs(px(s) - px(t)) >= half(s) + half(t) for t in chosen):
            chosen.append(s)
    return sorted(set(chosen))


def _colours(style: ChartStyle) -> tuple[str, ...]:
    return (style.blue, style.second, style.text, style.muted, style.node)


def sweep_figure(rows: Sequence[SweepRow], *, title: str, style: ChartStyle = LIGHT, name: str = "",
                 beside: Sequence[Curve] = ()) -> go.Figure:
    """Five panels of held-out metrics against vocabulary size (log axis, whole-number labels that
    never overlap): ``rows`` (named ``name``) and each curve ``beside`` it, with a legend when there
    are several; the knee of ``rows``' characters per token marked in each panel: a dashed line, its
    point and its size."""
    fig = make_subplots(rows=3, cols=2, specs=[[{"colspan": 2}, None], [{}, {}], [{}, {}]],
                        subplot_titles=[label for _, label, _ in PANELS], vertical_spacing=0.12,
                        horizontal_spacing=0.1)
    at = knee(rows)
    curves: list[Curve] = [(name, rows), *beside]
    ticks = size_ticks(sorted({r.vocab_size for _, c in curves for r in c}), font_px=style.font, keep=at)
    colours = _colours(style)
    for i, ((field, label, fmt), (r, c)) in enumerate(zip(PANELS, _CELLS)):
        values = [getattr(row, field) for row in rows]
        for k, (curve_name, curve) in enumerate(curves):
            colour = colours[k % len(colours)]
            fig.add_trace(go.Scatter(
                x=[row.vocab_size for row in curve], y=[getattr(row, field) for row in curve], mode="lines+markers",
                name=curve_name or label, legendgroup=str(k), showlegend=bool(beside) and i == 0,
                line=dict(color=colour, dash=_DASHES[k % len(_DASHES)]), marker=dict(color=colour, size=style.size(7)),
                customdata=[[size_label(row.requested_size), row.note or "as asked"] for row in curve],
                hovertemplate=(f"{html.escape(curve_name)}<br>" if curve_name else "")
                + f"vocabulary %{{x:,}} (asked %{{customdata[0]}}: %{{customdata[1]}})<br>{label} %{{y:{fmt}}}"
                  "<extra></extra>"), row=r, col=c)
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[size_label(s) for s in ticks], tickangle=0,
                         title_text="vocabulary size" if r in (1, 3) else None, row=r, col=c)
        if fmt.endswith("%"):
            top = max([v for _, curve in curves for v in (getattr(row, field) for row in curve) if v is not None]
                      + [0.0])
            fig.update_yaxes(tickformat=".0%" if top >= 0.1 else ".1%", range=[0, max(top * 1.15, 0.01)], row=r, col=c)
        if at is not None:
            _mark_knee(fig, at, next((v for row, v in zip(rows, values) if row.vocab_size == at), None), i, r, c, style)
    fig.update_layout(height=style.size(860), margin=dict(l=10, r=10, t=style.size(80), b=10), title=html.escape(title),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1))
    fig.update_yaxes(rangemode="tozero")  # sizes and rates read from zero, never from a cut axis
    return fig


def _mark_knee(fig: go.Figure, at: int, y: Optional[float], i: int, r: int, c: int, style: ChartStyle) -> None:
    """The knee in panel ``i`` (grid cell ``r``, ``c``): a dashed line, its point and its size."""
    fig.add_vline(x=at, line_dash="dash", line_color=style.accent, row=r, col=c)
    if y is not None:
        fig.add_trace(go.Scatter(x=[at], y=[y], mode="markers", name="knee", showlegend=False,
                                 marker=dict(color=style.accent, size=style.size(12), symbol="diamond"),
                                 hovertemplate=f"knee ≈ {at:,}<extra></extra>"), row=r, col=c)
    fig.add_annotation(x=math.log10(at), y=1, yref=f"y{i + 1 if i else ''} domain", xref=f"x{i + 1 if i else ''}",
                       text=f" knee ≈ {at:,}", showarrow=False, font=dict(color=style.accent),
                       xanchor="left", yanchor="top")


def shortfalls(rows: Sequence[SweepRow]) -> list[str]:
    """One line per size that is not the size asked for, saying why (the trainer's reason).

    >>> row = SweepRow("unigram", 8110, 16000, 1, 1.0, 1.0, 0.0, 0.5, 0, 0.0, False, note="the seed was small")
    >>> shortfalls([row])
    ['asked for 16,000, got 8,110: the seed was small']
    """
    return [f"asked for {size_label(r.requested_size)}, got {size_label(r.vocab_size)}: {r.note}"
            for r in rows if r.vocab_size != r.requested_size]


def sweep_frame(rows: Sequence[SweepRow], *, name: str = "", beside: Sequence[Curve] = ()) -> pd.DataFrame:
    """The table of a sweep: a row per size, a knee mark, and why a size is not the one asked for;
    with curves ``beside``, theirs after it, each row saying its algorithm (each curve's own knee)."""
    curves: list[Curve] = [(name, rows), *beside]
    frames = []
    for curve_name, curve in curves:
        at = knee(curve)
        frame = pd.DataFrame([asdict(r) for r in curve]).drop(columns=["model"])
        frame.insert(2, "knee", [r.vocab_size == at for r in curve])
        frame.insert(4, "tokens_per_byte", frame.pop("tokens_per_byte"))  # beside the tokens it divides
        if beside:
            frame.insert(0, "algorithm", curve_name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def changes(rows: Sequence[SweepRow], other: Sequence[SweepRow]) -> list[tuple[int, float]]:
    """``(size asked, relative change of held-out tokens)`` of ``other`` against ``rows`` at each size
    both swept (-0.25: a quarter fewer tokens), sizes in order."""
    base = {r.requested_size: r.heldout_tokens for r in rows}
    return [(r.requested_size, round(r.heldout_tokens / base[r.requested_size] - 1, 4))
            for r in other if base.get(r.requested_size)]


def change_line(name: str, base: str, rows: Sequence[SweepRow], other: Sequence[SweepRow]) -> Optional[str]:
    """One sentence on the held-out tokens of ``other`` (``name``) against ``rows`` (``base``) at the
    sizes both have; None when they share none.

    >>> r = lambda m, s, t: SweepRow(m, s, s, t, None, None, None, None, 0, 0.0, False)
    >>> change_line("SuperBPE", "BPE bytes", [r("bpe", 4000, 100), r("bpe", 8000, 100)],
    ...             [r("superbpe", 4000, 100), r("superbpe", 8000, 80)])
    'Held-out tokens of SuperBPE against BPE bytes: as many at 4,000, 20.0% fewer at 8,000.'
    """
    pairs = changes(rows, other)
    if not pairs:
        return None
    parts = [(f"{abs(c):.1%} {'fewer' if c < 0 else 'more'}" if c else "as many") + f" at {size_label(s)}"
             for s, c in pairs]
    return f"Held-out tokens of {name} against {base}: " + ", ".join(parts) + "."
