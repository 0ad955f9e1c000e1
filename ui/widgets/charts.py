"""Charts of the step-through page (Altair): candidate pairs and the compression curve.

Token text in charts is drawn by Vega as SVG/canvas text, never as HTML; labels
still go through :func:`ui.tokens.display_text` so whitespace and partial bytes
are visible. The frame builders are plain pandas, tested without a browser.

>>> frame = compression_frame([10, 8, 7, 7], 2)
>>> list(frame["step"]), list(frame["tokens"])
([0, 1, 2, 3], [10, 8, 7, 7])
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import altair as alt
import pandas as pd

from ui.merges.run import Candidate, StepInfo
from ui.widgets.export_theme import LIGHT, ChartStyle
from ui.widgets.tokens import Scheme, shown_text

#: The compression curve is drawn with at most about this many points.
CURVE_POINTS = 600
#: Height of one candidate bar (pixels); the chart grows with the number of candidates.
BAR_HEIGHT = 24
KIND_COLOURS = {
    "merged": "#d9480f",
    "tied": "#f59f00",
    "runner-up": "#74c0fc",
    "BPE's choice": "#7048e8",
}


def pair_label(c: Candidate, *, scheme: Scheme, translate: bool) -> str:
    """``left + right`` as shown in charts and tables."""
    return (f"{shown_text(c.left, scheme=scheme, translate=translate) or '∅'} + "
            f"{shown_text(c.right, scheme=scheme, translate=translate) or '∅'}")


def candidates_frame(info: StepInfo, *, scheme: Scheme, translate: bool) -> pd.DataFrame:
    """One row per candidate pair of a step: the merged one first, then the runner-ups.

    For WordPiece the BPE choice is appended when it is not among them. ``value``
    is the count (BPE) or the score (WordPiece).
    """
    wordpiece = info.score is not None
    tied = {c.pair for c in info.tied}
    rows: list[tuple[Candidate, str]] = [(info.chosen, "merged")]
    rows += [(c, "tied" if c.pair in tied else "runner-up") for c in info.runner_ups]
    if wordpiece and info.bpe_choice is not None:
        bpe = info.bpe_choice.pair
        rows = [(c, "BPE's choice" if c.pair == bpe and kind != "merged" else kind) for c, kind in rows]
        if all(c.pair != bpe for c, _ in rows):
            rows.append((info.bpe_choice, "BPE's choice"))
    return pd.DataFrame(
        {
            # The rank keeps labels unique even when two pairs display alike.
            "pair": [f"{i}. {pair_label(c, scheme=scheme, translate=translate)}" for i, (c, _) in enumerate(rows, 1)],
            "value": [c.score if wordpiece else c.count for c, _ in rows],
            "count": [c.count for c, _ in rows],
            "kind": [kind for _, kind in rows],
        }
    )


def candidates_chart(info: StepInfo, *, scheme: Scheme, translate: bool,
                     style: ChartStyle = LIGHT) -> alt.Chart:
    """Horizontal bars of the step's candidate pairs, the merged one highlighted; the count at the
    end of each bar in the theme's text colour, every text sized for ``style`` (presenter mode)."""
    data = candidates_frame(info, scheme=scheme, translate=translate)
    wordpiece = info.score is not None
    title = "score = count(ab) / (count(a) · count(b))" if wordpiece else "pair count"
    kinds = [k for k in KIND_COLOURS if k in set(data["kind"])]
    tooltip = [alt.Tooltip("pair:N"), alt.Tooltip("count:Q", format=",")]
    if wordpiece:
        tooltip.append(alt.Tooltip("value:Q", title="score", format=".4g"))
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            # An explicit order: layered charts would otherwise merge their domains in any order.
            y=alt.Y("pair:N", sort=list(data["pair"]), title=None,
                    axis=alt.Axis(labelLimit=style.size(260), labelFontSize=style.size(13), labelOverlap=False)),
            x=alt.X("value:Q", title=title, axis=None if wordpiece else alt.Axis(tickMinStep=1, format=",d")),
            # No Vega legend: under Streamlit a legend below the bars squashes a chart of few
            # candidates to a line; the page draws the legend itself (kinds_legend_html).
            color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=[KIND_COLOURS[k] for k in kinds]),
                            legend=None),
            tooltip=tooltip,
        )
    )
    text = bars.mark_text(align="left", dx=3, fontSize=style.size(12)).encode(
        text=alt.Text("value:Q", format=".3g" if wordpiece else ","), color=alt.value(style.text))
    return (bars + text).properties(height=alt.Step(style.size(BAR_HEIGHT)))


def kinds_legend_html(info: StepInfo, *, scheme: Scheme, translate: bool) -> str:
    """The legend of :func:`candidates_chart`: a coloured square and a name per kind of bar shown."""
    kinds = set(candidates_frame(info, scheme=scheme, translate=translate)["kind"])
    items = "".join(
        f'<span style="margin-right:1em;white-space:nowrap"><span style="display:inline-block;width:0.8em;'
        f'height:0.8em;background:{colour};margin-right:0.3em;vertical-align:-0.05em"></span>{html.escape(kind)}</span>'
        for kind, colour in KIND_COLOURS.items() if kind in kinds
    )
    return f'<div class="tp-legend" style="opacity:0.75;font-size:0.85em">{items}</div>'


def _sample_steps(n: int, step: int, points: int) -> list[int]:
    if n + 1 <= points:
        return list(range(n + 1))
    stride = n / points
    picked = {round(i * stride) for i in range(points + 1)}
    picked.update((0, n, step))
    return sorted(picked)


def compression_frame(curve: Sequence[int], step: int, *, points: int = CURVE_POINTS) -> pd.DataFrame:
    """Corpus length in tokens per step (at most about ``points`` steps, always with 0, the last and ``step``)."""
    steps = _sample_steps(len(curve) - 1, step, points)
    return pd.DataFrame({"step": steps, "tokens": [curve[s] for s in steps]})


def compression_chart(curve: Sequence[int], step: int, *, style: ChartStyle = LIGHT) -> alt.Chart:
    """Tokens against merge step, the current step marked by a rule and a dot."""
    data = compression_frame(curve, step)
    line = alt.Chart(data).mark_line(color=style.blue).encode(
        x=alt.X("step:Q", title="merge step", scale=alt.Scale(domain=[0, max(1, len(curve) - 1)]),
                axis=alt.Axis(tickMinStep=1, format=",d")),
        y=alt.Y("tokens:Q", title="corpus length (tokens)", scale=alt.Scale(zero=True),
                axis=alt.Axis(tickMinStep=1, format=",d")),
        tooltip=[alt.Tooltip("step:Q", format=","), alt.Tooltip("tokens:Q", format=",")],
    )
    here = pd.DataFrame({"step": [step], "tokens": [curve[step]]})
    rule = alt.Chart(here).mark_rule(color=style.accent, strokeWidth=2).encode(x="step:Q")
    dot = alt.Chart(here).mark_point(color=style.accent, filled=True, size=90).encode(
        x="step:Q", y="tokens:Q", tooltip=[alt.Tooltip("step:Q", format=","), alt.Tooltip("tokens:Q", format=",")])
    return (line + rule + dot).properties(height=style.size(260))
