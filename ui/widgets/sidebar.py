"""The sidebar shown on every page: which corpus is active, and what is on the tokenizer shelf."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui import session as state
from ui import url_state
from ui.corpus.counts import is_counts
from ui.shelf import state as shelf
from ui.widgets import display
from ui.widgets.share import render_share
from ui.widgets.text import display_name, escape_markdown, format_bytes, format_count


def render_sidebar() -> Callable[[], None]:
    """Show the active corpus' name and size at once; returns the function that fills in the
    shelf's summary and what the page's link leaves out, to call after the page (which may just
    have put a tokenizer on the shelf)."""
    corpus = state.active_corpus()
    with st.sidebar:
        st.markdown("**Active corpus**")
        # The name may come from a user's file name: escaped, never HTML.
        st.markdown(escape_markdown(display_name(corpus)))
        docs = len(corpus.texts)
        if is_counts(corpus):  # counted pieces, no documents
            st.caption(f"Counts file · {format_count(corpus.distinct)} distinct pieces")
        else:
            st.caption(
                f"{format_bytes(corpus.size_bytes)} · {format_count(docs)} document{'s' if docs != 1 else ''}"
                + (f" · {format_count(corpus.replaced_bytes)} bytes replaced" if corpus.replaced_bytes else "")
            )
        st.page_link("pages/corpus.py", label="Change corpus", icon=":material/swap_horiz:")
        slot = st.empty()
        st.divider()
        display.presenter_toggle()

    def shelf_summary(*, final: bool = True) -> None:
        own = len(shelf.items()) - len(shelf.references())
        with slot.container():
            st.markdown("**Tokenizer shelf**")
            st.caption(f"{own} of your own · {len(shelf.references())} pretrained references")
            st.page_link("pages/tokenizers.py", label="Open the shelf", icon=":material/inventory_2:")
            if final:  # the link is complete only once the page has published its inputs
                render_share()
            left_out = url_state.left_out()
            if left_out:  # the length policy of ui.url_state: said, never silently cut
                st.caption(escape_markdown("Not in this page's link: " + "; ".join(left_out) + "."))

    shelf_summary(final=False)  # drawn now too, so the sidebar never waits for a slow page
    return shelf_summary
