"""The Compare page: pick a text and tokenizers, then see them aligned, measured, probed and swept.

The tabs run lazily: only the open one is computed (Streamlit reruns the page when another is
picked), so an ordinary click costs the visible view only, whatever the size of the corpus. The
open tab is part of the address like every other input.

>>> TABS[0], TAB
('Side by side', 'compare_tab')
"""

from __future__ import annotations

import streamlit as st

from ui import session as state
from ui import url_state
from ui.compare import PREFIX, choices, numbers_view, probes, round_trip_view, sweep_view, text_source, views
from ui.widgets import display
from ui.widgets.text import display_name, escape_markdown

TAB = PREFIX + "tab"
TABS = ("Side by side", "Metrics", "Robustness", "Languages", "Round trip", "Numbers", "Vocabulary-size sweep")
URL_PARAMS = (url_state.choice(TAB, TAB, TABS, default=TABS[0]), *text_source.URL_PARAMS, *choices.URL_PARAMS,
              *views.URL_PARAMS, *probes.URL_PARAMS, *sweep_view.URL_PARAMS,
              *numbers_view.URL_PARAMS)


def render_page() -> None:
    """The whole page (called by ``pages/compare.py``)."""
    corpus = state.active_corpus()
    text_source.before_seed()
    url_state.seed(URL_PARAMS)
    sweep_view.after_seed()
    display.intro(escape_markdown(
        f"The same text through word, character and byte tokenizers, subword tokenizers trained on "
        f"“{display_name(corpus)}”, and anything on the shelf."))
    with display.folded("Text and tokenizers"):
        left, right = st.columns([1, 1], gap="medium")
        with left:
            text = text_source.choose_text(corpus)
        with right:
            build = choices.choose(corpus)
    translate = display.markers_toggle("compare")
    # The tabs are drawn before the tokenizers are built: the page's skeleton is on screen at once and
    # the open tab fills in (a first visit builds the corpus' baselines there, under progress bars).
    aligned, metrics, robust, languages, trip, numbers, sweep = st.tabs(TABS, key=TAB, on_change="rerun")
    if sweep.open:
        with sweep:
            sweep_view.render_sweep(corpus)
        url_state.publish(URL_PARAMS)
        return
    tab = next(tab for tab in (aligned, metrics, robust, languages, trip, numbers) if tab.open)
    with tab:
        chosen = build()
        if not chosen:
            st.info("Pick at least one tokenizer above.")
        elif aligned.open:
            views.render_aligned(text, chosen, translate=translate)
        elif metrics.open:
            views.render_metrics(text, chosen, corpus)
        elif robust.open:
            probes.render_robustness(chosen, translate=translate)
        elif trip.open:
            round_trip_view.render_round_trip(text, chosen)
        elif numbers.open:
            numbers_view.render_numbers(chosen)
        else:
            probes.render_languages(chosen)
    url_state.publish(URL_PARAMS)
