"""``?text=`` in a page's address: a shared link opens the page on that text.

The text goes into the page's text widget once per distinct value, so a later edit by the user is
not overwritten on the next rerun (the address keeps its ``?text=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import streamlit as st


def seed_from_url(widget_key: str, *, limit: int, also: Optional[Mapping[str, Any]] = None) -> None:
    """Put ``?text=`` (cut to ``limit`` characters) into ``st.session_state[widget_key]`` when it is
    new, and set the widgets in ``also`` with it (say, a source picker to "type")."""
    given = st.query_params.get("text")
    seen = widget_key + "__from_url"
    if given and st.session_state.get(seen) != given:
        st.session_state[seen] = given
        st.session_state[widget_key] = given[:limit]
        for key, value in (also or {}).items():
            st.session_state[key] = value


def publish_text(widget_key: str, value: Optional[str], *, max_chars: int = 1000) -> None:
    """Write the page's text into ``?text=`` (after its widget is drawn), so a reload or a shared link
    shows it again; None, an empty text or one longer than ``max_chars`` leaves the address without it."""
    seen = widget_key + "__from_url"
    if not value or len(value) > max_chars:
        if "text" in st.query_params:
            del st.query_params["text"]
        st.session_state[seen] = None
        return
    if st.query_params.get("text") != value:
        st.query_params["text"] = value
    st.session_state[seen] = value  # what the address now says is already in the widget
