"""The Compare page: pick a text and tokenizers, then see them aligned, measured, probed and swept."""

from __future__ import annotations

import streamlit as st

from ui import session as state
from ui.compare import views
from ui.compare.choices import choose_text, choose_tokenizers
from ui.compare.sweep_view import render_sweep
from ui.widgets import display
from ui.widgets.text import display_name, escape_markdown

TABS = ["Side by side", "Metrics", "Robustness", "Languages", "Vocabulary-size sweep"]


def render_page() -> None:
    """The whole page (called by ``pages/compare.py``)."""
    corpus = state.active_corpus()
    st.markdown(escape_markdown(
        f"The same text through word, character and byte tokenizers, subword tokenizers trained on "
        f"“{display_name(corpus)}”, and anything on the shelf."))
    left, right = st.columns([1, 1], gap="medium")
    with left:
        text = choose_text(corpus)
    with right:
        chosen = choose_tokenizers(corpus)
    translate = display.markers_toggle("compare")
    aligned, metrics, robust, languages, sweep = st.tabs(TABS)
    if chosen:
        with aligned:
            views.render_aligned(text, chosen, translate=translate)
        with metrics:
            views.render_metrics(text, chosen, corpus)
        with robust:
            views.render_robustness(chosen, translate=translate)
        with languages:
            views.render_languages(chosen)
    else:
        for tab in (aligned, metrics, robust, languages):
            tab.info("Pick at least one tokenizer above.")
    with sweep:  # last: a long sweep runs after the other tabs are drawn
        render_sweep(corpus)
