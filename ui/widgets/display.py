"""Display settings shared by every page: the markers toggle and presenter mode, plus the layout CSS.

One markers setting for the whole session: each page draws its own toggle near its tokens, but all
of them read and write :data:`RAW_MARKERS`, so turning markers on in one place shows them
everywhere (merge trees included) and survives page switches, reloads (``?raw=1``) and shared links.

Presenter mode (``?present=1``, or the sidebar toggle) is for projectors: larger text and token
chips, less padding, no toolbar.

>>> URL_PARAMS[0].name, URL_PARAMS[1].name
('raw', 'present')
"""

from __future__ import annotations

import streamlit as st

from ui import url_state
from ui.widgets.safe_html import render_html

RAW_MARKERS = "display_raw_markers"  # session-wide: show Ġ ▁ ## </w> as they are
PRESENTER = "display_presenter"  # session-wide: presenter mode
URL_PARAMS = (url_state.flag("raw", RAW_MARKERS), url_state.flag("present", PRESENTER))
MARKERS_LABEL = "Raw markers"
MARKERS_HELP = ("Off: markers are shown as what they mean: · for the space that Ġ and ▁ stand for, "
                "‿ before a WordPiece continuation (##), ⟩ for the end of a word (</w>). "
                "On: the token strings exactly as the vocabulary stores them. One setting for every page.")

# Streamlit's default top padding (6rem) pushes the controls below the fold at 1280x720.
_LAYOUT_CSS = """
<style>
.stMainBlockContainer { padding-top: 2.5rem !important; padding-bottom: 3rem !important; }
[data-testid="stMetricValue"] { font-size: 1.6rem; }
</style>
"""
_PRESENTER_CSS = """
<style>
.stMainBlockContainer { padding-top: 3.2rem !important; max-width: 100%; padding-left: 2rem !important; padding-right: 2rem !important; }
html { font-size: 19px; }
.tp-chip { font-size: 1.35em; line-height: 1.9 !important; padding: 2px 6px !important; }
[data-testid="stToolbar"], [data-testid="stDecoration"], [data-testid="stStatusWidget"] { display: none; }
[data-testid="stHeader"] { background: transparent; }
h1 { font-size: 2rem !important; padding-top: 0 !important; }
</style>
"""


def translate() -> bool:
    """Whether to show markers as what they mean (the session's setting; default yes)."""
    return not st.session_state.get(RAW_MARKERS, False)


def presenter() -> bool:
    return bool(st.session_state.get(PRESENTER, False))


def _copy(widget_key: str, target: str) -> None:
    st.session_state[target] = bool(st.session_state.get(widget_key, False))


def markers_toggle(where: str, *, container: object = None) -> bool:
    """The markers toggle of a page (``where`` is its key prefix); returns :func:`translate`.

    The widget's own key is per page (Streamlit forgets widgets between pages); its value is put
    back from the session's setting before it is drawn, and copied there on change.
    """
    key = f"{where}_raw_markers"
    st.session_state[key] = not translate()
    target = container if container is not None else st
    target.toggle(MARKERS_LABEL, key=key, on_change=_copy, args=(key, RAW_MARKERS), help=MARKERS_HELP)
    return translate()


def presenter_toggle() -> None:
    """The sidebar's presenter-mode switch."""
    key = "display_presenter_widget"
    st.session_state[key] = presenter()
    st.toggle("Presenter mode", key=key, on_change=_copy, args=(key, PRESENTER),
              help="For projectors: larger text and tokens, less chrome. Shared links keep it (?present=1).")


def apply_css() -> None:
    """The layout CSS, and presenter mode's when it is on (call once per run, before the page)."""
    render_html(_LAYOUT_CSS + (_PRESENTER_CSS if presenter() else ""))
