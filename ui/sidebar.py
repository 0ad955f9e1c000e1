"""The sidebar shown on every page: which corpus is active."""

from __future__ import annotations

import streamlit as st

from ui import state
from ui.corpus_view import display_name, escape_markdown, format_bytes, format_count


def render_sidebar() -> None:
    """Show the active corpus' name and size, and where to change it."""
    corpus = state.active_corpus()
    with st.sidebar:
        st.markdown("**Active corpus**")
        # The name may come from a user's file name: escaped, never HTML.
        st.markdown(escape_markdown(display_name(corpus)))
        docs = len(corpus.texts)
        st.caption(
            f"{format_bytes(corpus.size_bytes)} · {format_count(docs)} document{'s' if docs != 1 else ''}"
            + (f" · {format_count(corpus.replaced_bytes)} bytes replaced" if corpus.replaced_bytes else "")
        )
        st.page_link("app_pages/corpus.py", label="Change corpus", icon=":material/swap_horiz:")
