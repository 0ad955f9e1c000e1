"""A lesson figure's charts (:class:`tokenizer_core.lessons.figure_types.Chart`, plain data) as
Altair charts, for the page (with PNG/SVG downloads) and as SVG for the handout.

>>> from tokenizer_core.lessons.figure_types import Chart
>>> c = altair_of(Chart("t", "x", "y", ({"x": 1, "y": 2, "series": "s"},), mark_x=1), style=LIGHT)
>>> type(c).__name__
'LayerChart'
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import altair as alt
import pandas as pd

from tokenizer_core.lessons.figure_types import Chart
from ui import cache
from ui.widgets.export import altair_image, vega_spec
from ui.widgets.export_theme import LIGHT, ChartStyle

CHART_HEIGHT = 280  # pixels of a lesson chart outside presenter mode (grown like its text within it)


def altair_of(chart: Chart, *, style: ChartStyle) -> Any:
    """The chart in ``style``'s colours (the theme's accent marks ``mark_x``, the knee or the step)."""
    frame = pd.DataFrame(list(chart.rows))
    numeric_x = pd.api.types.is_numeric_dtype(frame["x"])
    x_type = "Q" if numeric_x else "N"
    # Category labels ("characters #1", a segmentation) stay level and whole: slanted, cut labels are
    # unreadable on a projector. Counts (merges, tokens) are whole numbers: no 0.2 ticks between them.
    if not numeric_x:
        axis = alt.Axis(labelAngle=0, labelLimit=240)
    else:
        axis = _whole_axis() if whole_numbers(frame["x"]) else alt.Undefined
    x = alt.X(f"x:{x_type}", title=chart.x_title, sort=None, axis=axis,
              scale=alt.Scale(type="log") if chart.log_x else alt.Undefined)
    y_axis = _whole_axis() if whole_numbers(frame["y"]) else alt.Undefined
    y = alt.Y("y:Q", title=chart.y_title, axis=y_axis)
    colour = alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom"))
    tooltip = [alt.Tooltip("x", title=chart.x_title), alt.Tooltip("y:Q", title=chart.y_title), "series:N"]
    base = alt.Chart(frame)
    if chart.mark == "bar":
        body = base.mark_bar().encode(x=x, y=alt.Y("y:Q", title=chart.y_title, stack=True, axis=y_axis), color=colour,
                                      tooltip=tooltip)
    else:
        body = base.mark_line(point=True).encode(x=x, y=y, color=colour, tooltip=tooltip)
    layers = [body]
    if chart.mark_x is not None:
        rule = alt.Chart(pd.DataFrame({"x": [chart.mark_x]})).mark_rule(color=style.accent, strokeWidth=2,
                                                                         strokeDash=[6, 3])
        layers.append(rule.encode(x=alt.X(f"x:{x_type}")))
    # The plot grows with the text: presenter mode's larger labels never squeeze the plot area.
    return alt.layer(*layers).properties(height=style.size(CHART_HEIGHT), title=chart.name)


def lesson_spec(chart: Chart, *, style: ChartStyle) -> Any:
    """:func:`altair_of` as a Vega-Lite spec, built once per chart and style for the whole server (a
    class of forty reruns the same step at once, and building the Altair chart was half of each
    rerun), a fresh copy each call; the Altair chart itself when its data is past Altair's inline
    limit. Keyed by the chart's content, never by a lesson's name.

    >>> a = lesson_spec(Chart("t", "x", "y", ({"x": 1, "y": 2, "series": "s"},)), style=LIGHT)
    >>> a == lesson_spec(Chart("t", "x", "y", ({"x": 1, "y": 2, "series": "s"},)), style=LIGHT), a["title"]
    (True, 't')
    """
    data = json.dumps(dataclasses.asdict(chart), sort_keys=True, default=repr, ensure_ascii=False)
    key = (cache.digest_text(data), style.dark, style.presenter)
    spec = cache.LESSON_CHARTS.get(key)
    if spec is None:
        built = altair_of(chart, style=style)
        spec = vega_spec(built)
        if spec is None:
            return built
        cache.LESSON_CHARTS.put(key, spec)
    return copy.deepcopy(spec)  # the stored spec is never handed out: a caller may change its copy


def whole_numbers(values: Any) -> bool:
    """Whether every value is a whole number (then the axis shows whole numbers only).

    >>> whole_numbers(pd.Series([0, 1, 3])), whole_numbers(pd.Series([0.5, 1.0]))
    (True, False)
    """
    numbers = pd.to_numeric(pd.Series(values), errors="coerce")
    return bool(len(numbers)) and not numbers.isna().any() and bool((numbers == numbers.round()).all())


def _whole_axis() -> Any:
    return alt.Axis(format=",d", tickMinStep=1)


def svg_of(chart: Chart) -> str:
    """The chart as an SVG drawing in the light theme (for the printable handout)."""
    svg = altair_image(altair_of(chart, style=LIGHT), "svg", LIGHT).decode("utf-8")
    return svg[svg.find("<svg"):] if "<svg" in svg else ""
