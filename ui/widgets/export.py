"""Every chart and table of the app, drawn in the theme and downloadable for slides.

:func:`plotly_chart` and :func:`altair_chart` draw a chart in the run's :class:`ChartStyle` (theme
colours, presenter-mode text) with a row of visible buttons under it: **PNG** and **SVG**.
:func:`table` draws a dataframe with a visible **CSV** button; :func:`json_button` offers numbers as
JSON. Images are made on the server only when a button is clicked (Streamlit's deferred download),
so drawing a page costs nothing more:

* Altair charts through ``vl-convert`` (the Vega engine compiled into a wheel: no browser, about
  30 ms an image once warm, 0.4 s the first time);
* plotly charts through ``kaleido``, which drives a headless Chromium found on the machine (Debian's
  ``chromium``; about 2 s for the first image, while the browser starts, then about 0.15 s). Without
  one, plotly's own camera button (drawn by the browser, offline) is shown instead and the buttons
  say why they are missing.

Measured against plotly's client-side camera: it makes one format per chart (PNG *or* SVG), so it
serves only as the fallback.

Exported images carry the theme's background (the page's own does not come along) and are drawn at
twice the pixels (PNG) for projectors.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Callable
from typing import Any, Optional

import pandas as pd
import streamlit as st

from ui.widgets.export_theme import ChartStyle, current, style_altair, style_plotly, style_spec

#: Pixels of an exported plotly chart's width (its height is the chart's own).
EXPORT_WIDTH = 1200
#: PNGs are drawn at this many pixels per chart pixel (sharp on projectors and slides).
PNG_SCALE = 2
_KALEIDO = threading.Lock()  # one kaleido browser for the process, started at the first export
_kaleido_state: dict[str, Any] = {}


def file_stem(name: str) -> str:
    """A file name from a chart's name: lower case, letters, digits and dashes.

    >>> file_stem("Sweep: BPE (bytes), 16,000!")
    'sweep-bpe-bytes-16-000'
    """
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80] or "chart"


# ------------------------------------------------------------------------------------- images
def altair_image(chart: Any, fmt: str, style: ChartStyle) -> bytes:
    """``chart`` (an Altair chart or a Vega-Lite spec as a dict) as PNG or SVG bytes in ``style``
    (theme background painted in)."""
    import vl_convert as vlc

    if isinstance(chart, dict):
        spec = style_spec(chart, style, background=True)
    else:
        spec = style_altair(chart, style, background=True).to_dict()
    if fmt == "svg":
        return vlc.vegalite_to_svg(spec).encode("utf-8")
    return vlc.vegalite_to_png(spec, scale=PNG_SCALE)


def chromium_path() -> Optional[str]:
    """The Chromium-based browser kaleido would drive, or None when the machine has none."""
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return None
    try:
        return Chromium.find_browser(skip_local=False)
    except Exception:  # noqa: BLE001 - a broken lookup means no browser to use
        return None


def plotly_export_available() -> bool:
    if "available" not in _kaleido_state:
        try:
            import kaleido  # noqa: F401
        except ImportError:
            _kaleido_state["available"] = False
        else:
            _kaleido_state["available"] = chromium_path() is not None
    return bool(_kaleido_state["available"])


def plotly_image(fig: Any, fmt: str, style: ChartStyle) -> bytes:
    """``fig`` (left unchanged) as PNG or SVG bytes in ``style`` (theme background painted in)."""
    import kaleido

    out = style_plotly(copy.deepcopy(fig), style, background=True)
    height = int(out.layout.height or 450)
    opts = dict(format=fmt, width=EXPORT_WIDTH, height=height, scale=PNG_SCALE if fmt == "png" else 1)
    with _KALEIDO:
        if not _kaleido_state.get("started"):
            kaleido.start_sync_server(mathjax=False, silence_warnings=True)  # stopped at exit by kaleido
            _kaleido_state["started"] = True
        return kaleido.calc_fig_sync(out, opts=opts)


# ------------------------------------------------------------------------------------- buttons
def _buttons(key: str, name: str, make: Callable[[str], bytes], container: Any) -> None:
    stem = file_stem(name)
    row = container.container(horizontal=True, key=f"{key}_downloads")  # buttons as wide as their labels
    row.download_button("PNG", data=lambda: make("png"), file_name=f"{stem}.png", mime="image/png",
                       key=f"{key}_png", on_click="ignore", icon=":material/download:",
                       help=f"Download “{name}” as a PNG image (for slides)")
    row.download_button("SVG", data=lambda: make("svg"), file_name=f"{stem}.svg", mime="image/svg+xml",
                       key=f"{key}_svg", on_click="ignore", icon=":material/download:",
                       help=f"Download “{name}” as an SVG drawing (scales without blur)")


def _unstyled(fig: Any, layout: Any) -> Any:
    """A copy of ``fig`` with ``layout`` (the one it was built with) in place of its themed one."""
    plain = copy.deepcopy(fig)
    plain.layout = layout
    return plain


def plotly_chart(fig: Any, *, key: str, name: str, container: Any = None, style: Optional[ChartStyle] = None,
                 **kwargs: Any) -> Any:
    """Draw ``fig`` in the theme, with PNG and SVG downloads under it; returns what
    ``st.plotly_chart`` returns. ``key`` names the chart (its buttons' keys derive from it); ``fig``
    may be a function of the :class:`ChartStyle` that builds the figure (for charts whose own
    colours depend on the theme). ``name`` names the files and the buttons' tooltips: no user text."""
    where = container if container is not None else st
    style = style or current()
    if callable(fig):
        fig = fig(style)
    # Exports re-style the chart as built. The theme changes only the layout, so only the layout is
    # copied: a deep copy of the whole figure was 1.3 s of every rerun for a 100 x 100 heatmap.
    layout = copy.deepcopy(fig.layout)
    style_plotly(fig, style)
    exportable = plotly_export_available()
    config = {"displaylogo": False, "toImageButtonOptions": {"filename": file_stem(name), "scale": PNG_SCALE}}
    if exportable:
        config["displayModeBar"] = False
    else:  # the browser's own camera: PNG only, but offline and always there
        config.update(displayModeBar=True, modeBarButtons=[["toImage"]])
    kwargs.setdefault("width", "stretch")
    shown = where.plotly_chart(fig, key=key, config=config, **kwargs)
    if exportable:
        _buttons(key, name, lambda fmt: plotly_image(_unstyled(fig, layout), fmt, style), where)
    else:
        where.caption("PNG: the camera above the chart. SVG export needs Chromium on the server "
                      "(`apt-get install chromium`).")
    return shown


def altair_chart(chart: Any, *, key: str, name: str, container: Any = None, style: Optional[ChartStyle] = None,
                 **kwargs: Any) -> Any:
    """Draw ``chart`` in the theme, with PNG and SVG downloads under it (``chart`` may be a
    function of the :class:`ChartStyle`, as for :func:`plotly_chart`; an Altair chart or a
    Vega-Lite spec written as a dict)."""
    where = container if container is not None else st
    style = style or current()
    if callable(chart):
        chart = chart(style)
    kwargs.setdefault("width", "stretch")
    spec = chart if isinstance(chart, dict) else vega_spec(chart)
    if spec is None:  # more rows than Altair inlines: Streamlit's own path sends them as Arrow
        shown = where.altair_chart(style_altair(chart, style), key=key, **kwargs)
    else:
        shown = where.vega_lite_chart(style_spec(spec, style), key=key, **kwargs)
    _buttons(key, name, lambda fmt: altair_image(chart, fmt, style), where)
    return shown


def chart_downloads(chart: Callable[[ChartStyle], Any], *, key: str, name: str, container: Any = None,
                    style: Optional[ChartStyle] = None) -> None:
    """Only the PNG and SVG downloads of a chart drawn another way on the page (a quick markup chart
    of :mod:`ui.widgets.quick_charts`): ``chart`` builds its Altair chart or Vega-Lite dict in a
    style, and is called only when a button is clicked."""
    where = container if container is not None else st
    style = style or current()
    # In a popover: its buttons are drawn only when it is opened, and four download buttons redrawn
    # on every step cost the BPE page ~50 ms a click in the browser.
    box = where.popover("Download", icon=":material/download:", key=f"{key}_popover")
    _buttons(key, name, lambda fmt: altair_image(chart(style), fmt, style), box)


def vega_spec(chart: Any) -> Optional[dict[str, Any]]:
    """The chart's Vega-Lite spec, unchecked (the charts are ours; checking every chart against the
    schema on every rerun took ~40 ms of each step on the BPE page), or None when its data is over
    Altair's inline limit (5,000 rows)."""
    import altair as alt

    try:
        return chart.to_dict(validate=False)
    except alt.MaxRowsError:
        return None


def csv_bytes(frame: pd.DataFrame, *, index: bool = False) -> bytes:
    """``frame`` as UTF-8 CSV (with a byte-order mark, so spreadsheet programs read accents right).

    >>> csv_bytes(pd.DataFrame({"a": [1], "b": ["é"]})).decode("utf-8-sig")
    'a,b\\n1,é\\n'
    """
    return frame.to_csv(index=index, lineterminator="\n").encode("utf-8-sig")


def table(frame: Any, *, key: str, name: str, container: Any = None, index: bool = False, **kwargs: Any) -> Any:
    """Draw a dataframe (or a pandas Styler) with a visible CSV download under it."""
    where = container if container is not None else st
    kwargs.setdefault("width", "stretch")
    shown = where.dataframe(frame, key=key, **kwargs)
    data = frame.data if hasattr(frame, "data") and isinstance(frame.data, pd.DataFrame) else frame
    where.download_button("CSV", data=lambda: csv_bytes(data, index=index), file_name=f"{file_stem(name)}.csv",
                          mime="text/csv", key=f"{key}_csv", on_click="ignore", icon=":material/download:",
                          help=f"Download “{name}” as CSV")
    return shown


def json_button(payload: Any, *, key: str, name: str, label: str = "JSON", container: Any = None) -> None:
    """A download of ``payload`` (anything ``json.dumps`` takes) as a JSON file."""
    where = container if container is not None else st
    where.download_button(label, data=lambda: json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8"),
                          file_name=f"{file_stem(name)}.json", mime="application/json", key=f"{key}_json",
                          on_click="ignore", icon=":material/download:", help=f"Download “{name}” as JSON")


