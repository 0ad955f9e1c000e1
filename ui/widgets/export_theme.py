"""How charts look: colours for the light and the dark theme, text sizes for presenter mode.

Every chart of the app (plotly and Altair) takes its colours and text sizes from one
:class:`ChartStyle`, read per run from the browser's theme (``st.context.theme.type``) and the
session's presenter mode. Backgrounds stay transparent on screen (the chart sits on the page's own
background); exported images get the theme's background painted in. Every text colour keeps a
contrast ratio of at least 4.5 against its theme's background (WCAG AA; the tests compute it).

Streamlit reports the theme of the browser when a run starts: after a switch in the settings menu,
charts follow at the next run (any click), as ``st.context.theme`` documents.

>>> light, dark = ChartStyle(dark=False), ChartStyle(dark=True)
>>> light.text, dark.text
('#31333f', '#fafafa')
>>> ChartStyle(dark=False, presenter=True).size(12)
18
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Text sizes grow by this factor in presenter mode (chart, axis and lattice text alike).
PRESENTER_SCALE = 1.5
#: The base size of chart text (ticks, legends, labels), in pixels, outside presenter mode.
BASE_FONT = 13


@dataclass(frozen=True)
class ChartStyle:
    """The colours and text sizes of charts for one theme; ``presenter`` scales every text size."""

    dark: bool = False
    presenter: bool = False

    # -- colours (each text colour >= 4.5:1 against its background)
    @property
    def background(self) -> str:
        return "#171614" if self.dark else "#ffffff"  # Streamlit 1.67's own backgrounds

    @property
    def text(self) -> str:
        return "#fafafa" if self.dark else "#31333f"

    @property
    def muted(self) -> str:
        """Secondary text: value labels, captions inside charts."""
        return "#c9ccd3" if self.dark else "#4b5563"

    @property
    def grid(self) -> str:
        return "#31353f" if self.dark else "#e5e7eb"

    @property
    def accent(self) -> str:
        """The highlighted thing: the merged pair, the Viterbi path, the knee, the current step."""
        return "#ff922b" if self.dark else "#c2410c"

    @property
    def blue(self) -> str:
        """The ordinary series: lines, other pieces."""
        return "#91a7ff" if self.dark else "#3b5bdb"

    @property
    def second(self) -> str:
        """A second series beside :attr:`blue` (e.g. sorted against given order)."""
        return "#63e6be" if self.dark else "#087f5b"

    @property
    def node(self) -> str:
        """Markers that sit on the background (lattice positions)."""
        return "#e9ecef" if self.dark else "#212529"

    @property
    def empty_cell(self) -> str:
        """Heatmap cells that are 0 (a mask's blocked positions)."""
        return "#262a33" if self.dark else "#f1f3f5"

    @property
    def full_cell(self) -> str:
        return "#748ffc" if self.dark else "#4263eb"

    @property
    def theme_name(self) -> str:
        return "dark" if self.dark else "light"

    # -- sizes
    def size(self, pixels: float) -> int:
        """``pixels`` of text, grown in presenter mode."""
        return round(pixels * (PRESENTER_SCALE if self.presenter else 1.0))

    @property
    def font(self) -> int:
        return self.size(BASE_FONT)


#: The light theme outside presenter mode: the default of chart builders (tests, doctests).
LIGHT = ChartStyle()


def current() -> ChartStyle:
    """The style of this run: the browser's theme and the session's presenter mode."""
    import streamlit as st

    from ui.widgets import display

    try:
        kind = st.context.theme.type
    except Exception:  # noqa: BLE001 - outside a run (tests, bare mode) there is no browser
        kind = None
    return ChartStyle(dark=kind == "dark", presenter=display.presenter())


# ------------------------------------------------------------------------------------- plotly
def style_plotly(fig: Any, style: ChartStyle, *, background: bool = False) -> Any:
    """``fig`` with the theme's text colours and sizes (in place; returned). ``background``:
    paint the theme's background (for exported images) instead of leaving it transparent.

    Colours a chart set on purpose (a trace's or annotation's own) are kept; what the chart left
    unset takes the theme's.
    """
    bg = style.background if background else "rgba(0,0,0,0)"
    fig.update_layout(
        font=dict(color=style.text, size=style.font),
        paper_bgcolor=bg, plot_bgcolor=bg,
        legend=dict(font=dict(color=style.text, size=style.font), bgcolor="rgba(0,0,0,0)"),
        hoverlabel=dict(font=dict(size=style.font)),
    )
    if fig.layout.title.text:
        fig.update_layout(title_font=dict(color=style.text, size=style.size(16)))
    axis = dict(gridcolor=style.grid, zerolinecolor=style.grid, linecolor=style.grid,
                tickfont=dict(color=style.text, size=style.font), title_font=dict(color=style.text, size=style.font))
    fig.update_xaxes(**axis)
    fig.update_yaxes(**axis)
    for note in fig.layout.annotations or ():
        note.font.size = style.size(note.font.size or 14)
        if note.font.color is None:
            note.font.color = style.text
    return fig


# ------------------------------------------------------------------------------------- Altair
def altair_config(style: ChartStyle, *, background: bool = False) -> dict[str, Any]:
    """The theme's Vega-Lite ``config``: :func:`style_altair` gives it to an Altair chart and
    :func:`style_spec` merges it into a spec written as a dict (without Altair's copies and checks:
    a tenth of the cost on every rerun).

    >>> altair_config(ChartStyle(dark=False, presenter=False))["view"]
    {'strokeWidth': 0}
    """
    axis_text = {"labelColor": style.text, "titleColor": style.text, "labelFontSize": style.font,
                 "titleFontSize": style.font}
    return {
        "background": style.background if background else "transparent",
        "axis": {**axis_text, "gridColor": style.grid, "domainColor": style.grid, "tickColor": style.grid},
        "legend": dict(axis_text),
        "title": {"color": style.text, "fontSize": style.size(15)},
        "text": {"color": style.text, "fontSize": style.font},
        "view": {"strokeWidth": 0},
    }


def style_spec(spec: dict[str, Any], style: ChartStyle, *, background: bool = False) -> dict[str, Any]:
    """A Vega-Lite spec (a dict, or a chart's ``to_dict``) with the theme's config merged in (the
    theme wins, as :func:`style_altair`'s ``configure_*`` calls do), drawn as SVG; ``background``
    paints the theme's background (for exported images)."""
    config = dict(spec.get("config") or {})
    for part, values in altair_config(style, background=background).items():
        config[part] = {**config[part], **values} if isinstance(values, dict) and isinstance(config.get(part), dict) \
            else values
    return {**spec, "config": config, "usermeta": {"embedOptions": {"renderer": "svg"}}}


def style_altair(chart: Any, style: ChartStyle, *, background: bool = False) -> Any:
    """``chart`` (any Altair chart, layered or not) configured with the theme's colours and sizes
    (:func:`altair_config`, the one place they are written), drawn as SVG (so its text is in the
    page, where the contrast test reads it)."""
    out = chart.configure(**altair_config(style, background=background))
    out.usermeta = {"embedOptions": {"renderer": "svg"}}
    return out
