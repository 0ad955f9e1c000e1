"""Display settings shared by every page: the markers toggle and presenter mode, plus the layout CSS.

One markers setting for the whole session: each page draws its own toggle near its tokens, but all
of them read and write :data:`RAW_MARKERS`, so turning markers on in one place shows them
everywhere (merge trees included) and survives page switches, reloads (``?raw=1``) and shared links.

Presenter mode (``?present=1``, the sidebar toggle, or the key F) is a slide mode for projectors:
larger text and token chips, less padding, no toolbar or sidebar, page intros hidden and settings
folded (:func:`intro`, :func:`folded`), so the thing being taught is on the first screen; a bar on
every page switches pages and leaves it (:mod:`ui.widgets.presenter`). Charts read
:func:`chart_font_scale` to grow their text with the rest.

>>> URL_PARAMS[0].name, URL_PARAMS[1].name
('raw', 'present')
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import streamlit as st

from ui import url_state
from ui.widgets.safe_html import render_html
from ui.widgets.tokens import CHIP_CSS

RAW_MARKERS = "display_raw_markers"  # session-wide: show Ġ ▁ ## </w> as they are
PRESENTER = "display_presenter"  # session-wide: presenter mode
URL_PARAMS = (url_state.flag("raw", RAW_MARKERS), url_state.flag("present", PRESENTER))
MARKERS_LABEL = "Raw markers"
MARKERS_HELP = ("Off: markers are shown as what they mean: · for the space that Ġ and ▁ stand for, "
                "‿ before a WordPiece continuation (##), ⟩ for the end of a word (</w>). "
                "On: the token strings exactly as the vocabulary stores them. One setting for every page.")

#: How much larger chart, axis and lattice text is in presenter mode (the rest of the page grows by
#: 19/16 with the root font, token chips by 1.35 more); read it through :func:`chart_font_scale`.
CHART_FONT_SCALE = 1.5

# Streamlit's default top padding (6rem) pushes the controls below the fold at 1280x720.
# The presenter keys' component (ui.widgets.presenter) has nothing to show: it takes no room.
_LAYOUT_CSS = """
<style>
.stMainBlockContainer { padding-top: 2.5rem !important; padding-bottom: 3rem !important; }
[data-testid="stMetricValue"] { font-size: 1.6rem; }
.st-key-display_presenter_keys_box { display: none !important; }
</style>
"""
# The bar sits fixed at the top right, over the (transparent) header; page titles are icons whose
# names stay for screen readers and tooltips. Its grey, see-through background suits both themes
# (the theme's colours are not CSS variables outside components).
_PRESENTER_CSS = """
<style>
.stMainBlockContainer { padding-top: 0.8rem !important; max-width: 100%; padding-left: 2rem !important; padding-right: 2rem !important; }
html { font-size: 19px; }
.tp-chip { font-size: 1.35em; line-height: 1.9 !important; padding: 2px 6px !important; }
[data-testid="stToolbar"], [data-testid="stDecoration"], [data-testid="stStatusWidget"] { display: none; }
[data-testid="stHeader"] { background: transparent; height: 0; min-height: 0; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] { display: none; }
h1 { font-size: 1.8rem !important; padding: 0 25rem 0.2rem 0 !important; }
[data-testid="stMain"] [data-testid="stExpander"] summary { padding-top: 0.4rem; padding-bottom: 0.4rem; }
.st-key-display_presenter_bar {
  position: fixed; top: 0.45rem; right: 1rem; left: auto; width: max-content !important; max-width: calc(100vw - 2rem);
  z-index: 999991; padding: 0.15rem 0.35rem; flex-wrap: nowrap;
  border-radius: 0.6rem; border: 1px solid rgba(128,128,128,.45);
  background: rgba(128,128,128,.2); backdrop-filter: blur(8px); box-shadow: 0 1px 4px rgba(0,0,0,.2);
}
.st-key-display_presenter_bar [data-testid="stPageLink"] [data-testid="stMarkdownContainer"] {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
}
.st-key-display_presenter_bar > div { width: auto !important; flex: 0 0 auto !important; }
.st-key-display_presenter_bar [data-testid="stPageLink"] a { padding: 0.2rem 0.2rem; margin: 0; }
.st-key-display_presenter_bar [data-testid="stPageLink"] a span { margin: 0; }
.st-key-display_presenter_bar button { min-height: 2rem; padding: 0.1rem 0.6rem; }
</style>
"""


def translate() -> bool:
    """Whether to show markers as what they mean (the session's setting; default yes)."""
    return not st.session_state.get(RAW_MARKERS, False)


def presenter() -> bool:
    """Whether presenter mode is on (the session's setting; charts scale their text by it)."""
    return bool(st.session_state.get(PRESENTER, False))


def chart_font_scale() -> float:
    """How much to scale chart, axis and lattice text: :data:`CHART_FONT_SCALE` in presenter mode, else 1."""
    return CHART_FONT_SCALE if presenter() else 1.0


def intro(text: str) -> None:
    """A page's introduction (markdown the page wrote, not user text): hidden in presenter mode."""
    if not presenter():
        st.markdown(text)


def folded(label: str) -> AbstractContextManager:
    """Where a page draws its inputs: in presenter mode a closed expander named ``label`` (the
    lesson's view gets the first screen), otherwise in place."""
    if presenter():
        return st.expander(label, expanded=False, icon=":material/tune:")
    return st.container()


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
              help="A slide mode for projectors: larger text and tokens, settings folded, the sidebar hidden; "
                   "a bar at the top switches pages (keys 1 to 6) and leaves it (Esc). The key F turns it on "
                   "and off on every page. Shared links keep it (?present=1).")


def apply_css() -> None:
    """The layout CSS, the token chips' (their details on keyboard focus, for pages that draw single
    chips too), and presenter mode's when it is on (call once per run, before the page)."""
    render_html(_LAYOUT_CSS + CHIP_CSS + (_PRESENTER_CSS if presenter() else ""))
