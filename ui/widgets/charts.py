"""Charts of the step-through page (Vega-Lite specs): candidate pairs and the compression curve.

Token text in charts is drawn by Vega as SVG/canvas text, never as HTML; labels
still go through :func:`ui.tokens.display_text` so whitespace and partial bytes
are visible. The frame builders are plain pandas, tested without a browser.

>>> frame = compression_frame([10, 8, 7, 7], 2)
>>> list(frame["step"]), list(frame["tokens"])
([0, 1, 2, 3], [10, 8, 7, 7])
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any, Optional

import pandas as pd
from altair import SCHEMA_URL as VEGA_LITE_SCHEMA  # the Vega-Lite version Altair writes

from ui.merges.run import Candidate, StepInfo
from ui.widgets.export_theme import LIGHT, ChartStyle
from ui.widgets.quick_charts import CURVE_POINTS, Bar, bars_html, sample_steps
from ui.widgets.tokens import Scheme, chip_html, shown_text

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


def candidate_rows(info: StepInfo) -> list[tuple[Candidate, str]]:
    """The candidate pairs of a step and the kind of each: the merged one first, then the runner-ups
    (tied or not); for WordPiece, BPE's choice is marked, and appended when it is not among them."""
    tied = {c.pair for c in info.tied}
    rows: list[tuple[Candidate, str]] = [(info.chosen, "merged")]
    rows += [(c, "tied" if c.pair in tied else "runner-up") for c in info.runner_ups]
    if info.score is not None and info.bpe_choice is not None:
        bpe = info.bpe_choice.pair
        rows = [(c, "BPE's choice" if c.pair == bpe and kind != "merged" else kind) for c, kind in rows]
        if all(c.pair != bpe for c, _ in rows):
            rows.append((info.bpe_choice, "BPE's choice"))
    return rows


def candidates_html(info: StepInfo, token_id: Callable[[str], Optional[int]], *, scheme: Scheme, translate: bool,
                    style: ChartStyle = LIGHT) -> str:
    """The bars of :func:`candidates_chart` as markup (:func:`ui.widgets.quick_charts.bars_html`), each
    pair's tokens as chips: the step view draws this on every step, the Vega-Lite spec is its download."""
    wordpiece = info.score is not None
    bars = []
    for rank, (c, kind) in enumerate(candidate_rows(info), 1):
        label = (f"{rank}. {chip_html(token_id(c.left), c.left, scheme=scheme, translate=translate)} + "
                 f"{chip_html(token_id(c.right), c.right, scheme=scheme, translate=translate)}")
        value = c.score if wordpiece and c.score is not None else c.count
        shown = f"{value:.3g}" if wordpiece else f"{value:,}"
        tip = f"{pair_label(c, scheme=scheme, translate=translate)} · {kind} · count {c.count:,}"
        if wordpiece:
            tip += f" · score {value:.4g}"
        bars.append(Bar(label, float(value), KIND_COLOURS[kind], tip, shown))
    return bars_html(bars, style=style, bar_height=BAR_HEIGHT)  # the chips' CSS is the page layout's


def candidates_frame(info: StepInfo, *, scheme: Scheme, translate: bool) -> pd.DataFrame:
    """One row per candidate pair of a step: the merged one first, then the runner-ups.

    For WordPiece the BPE choice is appended when it is not among them. ``value``
    is the count (BPE) or the score (WordPiece).
    """
    wordpiece = info.score is not None
    rows = candidate_rows(info)
    return pd.DataFrame(
        {
            # The rank keeps labels unique even when two pairs display alike.
            "pair": [f"{i}. {pair_label(c, scheme=scheme, translate=translate)}" for i, (c, _) in enumerate(rows, 1)],
            "rank": list(range(1, len(rows) + 1)),
            "value": [c.score if wordpiece else c.count for c, _ in rows],
            "count": [c.count for c, _ in rows],
            "kind": [kind for _, kind in rows],
        }
    )


def candidates_chart(info: StepInfo, *, scheme: Scheme, translate: bool,
                     style: ChartStyle = LIGHT) -> dict[str, Any]:
    """Horizontal bars of the step's candidate pairs, the merged one highlighted; the count at the
    end of each bar in the theme's text colour, every text sized for ``style`` (presenter mode).

    A Vega-Lite spec written as a dict: drawn on every step of the BPE page, where building it with
    Altair (objects, copies, schema checks) took most of a click's time. Everything that changes from
    step to step is in the data (the order is a ``rank`` column, the colour scale lists every kind),
    so the spec Streamlit sends stays the same and the browser updates the drawn chart's data instead
    of compiling and drawing a new chart on every step.
    """
    data = candidates_frame(info, scheme=scheme, translate=translate)
    wordpiece = info.score is not None
    title = "score = count(ab) / (count(a) · count(b))" if wordpiece else "pair count"
    tooltip: list[dict[str, Any]] = [{"field": "pair", "type": "nominal"},
                                     {"field": "count", "type": "quantitative", "format": ","}]
    if wordpiece:
        tooltip.append({"field": "value", "type": "quantitative", "title": "score", "format": ".4g"})
    encoding = {
        # An explicit order (the rank): layered charts would otherwise merge their domains in any order.
        "y": {"field": "pair", "type": "nominal", "sort": {"field": "rank", "op": "min"}, "title": None,
              "axis": {"labelLimit": style.size(260), "labelFontSize": style.size(13), "labelOverlap": False}},
        "x": {"field": "value", "type": "quantitative", "title": title,
              "axis": None if wordpiece else {"tickMinStep": 1, "format": ",d"}},
        # No Vega legend: under Streamlit a legend below the bars squashes a chart of few
        # candidates to a line; the page draws the legend itself (kinds_legend_html).
        "color": {"field": "kind", "type": "nominal", "legend": None,
                  "scale": {"domain": list(KIND_COLOURS), "range": list(KIND_COLOURS.values())}},
        "tooltip": tooltip,
    }
    text = {**encoding, "text": {"field": "value", "type": "quantitative", "format": ".3g" if wordpiece else ","},
            "color": {"value": style.text}}
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "data": {"values": data.to_dict("records")},
        "height": {"step": style.size(BAR_HEIGHT)},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": encoding},
            {"mark": {"type": "text", "align": "left", "dx": 3, "fontSize": style.size(12)}, "encoding": text},
        ],
    }


def kinds_legend_html(info: StepInfo, *, scheme: Scheme, translate: bool) -> str:
    """The legend of :func:`candidates_chart`: a coloured square and a name per kind of bar shown."""
    kinds = set(candidates_frame(info, scheme=scheme, translate=translate)["kind"])
    items = "".join(
        f'<span style="margin-right:1em;white-space:nowrap"><span style="display:inline-block;width:0.8em;'
        f'height:0.8em;background:{colour};margin-right:0.3em;vertical-align:-0.05em"></span>{html.escape(kind)}</span>'
        for kind, colour in KIND_COLOURS.items() if kind in kinds
    )
    return f'<div class="tp-legend" style="opacity:0.75;font-size:0.85em">{items}</div>'


def compression_frame(curve: Sequence[int], step: int, *, points: int = CURVE_POINTS) -> pd.DataFrame:
    """Corpus length in tokens per step (at most about ``points`` steps, always with 0, the last and ``step``)."""
    steps = sample_steps(len(curve) - 1, step, points)
    return pd.DataFrame({"step": steps, "tokens": [curve[s] for s in steps]})


def compression_chart(curve: Sequence[int], step: int, *, style: ChartStyle = LIGHT) -> dict[str, Any]:
    """Tokens against merge step, the current step marked by a rule and a dot (a Vega-Lite spec,
    written as a dict for the same reason as :func:`candidates_chart`). The curve and the marked step
    are named datasets, which Streamlit sends apart from the spec: the spec is the same on every step
    of a run, so a step redraws data, not a chart.

    >>> spec = compression_chart([10, 8, 7], 1)
    >>> [layer["mark"]["type"] for layer in spec["layer"]], spec["datasets"]["here"]
    (['line', 'rule', 'point'], [{'step': 1, 'tokens': 8}])
    >>> {k: v for k, v in spec.items() if k != "datasets"} == {
    ...     k: v for k, v in compression_chart([10, 8, 7], 2).items() if k != "datasets"}
    True
    """
    frame = compression_frame(curve, step)
    line_values = [{"step": int(a), "tokens": int(b)} for a, b in zip(frame["step"], frame["tokens"])]
    tooltip = [{"field": "step", "type": "quantitative", "format": ","},
               {"field": "tokens", "type": "quantitative", "format": ","}]
    x = {"field": "step", "type": "quantitative"}
    y = {"field": "tokens", "type": "quantitative"}
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "height": style.size(260),
        "datasets": {"curve": line_values, "here": [{"step": step, "tokens": int(curve[step])}]},
        "layer": [
            {"data": {"name": "curve"}, "mark": {"type": "line", "color": style.blue},
             "encoding": {
                 "x": {**x, "title": "merge step", "scale": {"domain": [0, max(1, len(curve) - 1)]},
                       "axis": {"tickMinStep": 1, "format": ",d"}},
                 "y": {**y, "title": "corpus length (tokens)", "scale": {"zero": True},
                       "axis": {"tickMinStep": 1, "format": ",d"}},
                 "tooltip": tooltip}},
            {"data": {"name": "here"}, "mark": {"type": "rule", "color": style.accent, "strokeWidth": 2},
             "encoding": {"x": x}},
            {"data": {"name": "here"}, "mark": {"type": "point", "color": style.accent, "filled": True, "size": 90},
             "encoding": {"x": x, "y": y, "tooltip": tooltip}},
        ],
    }
