"""``?text=`` in a page's address: a shared link opens the page on that text.

The text goes into the page's text widget once per distinct value, so a later edit by the user is
not overwritten on the next rerun (the address keeps its ``?text=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import streamlit as st

from ui import url_state


def seed_from_url(widget_key: str, *, limit: int, also: Optional[Mapping[str, Any]] = None) -> None:
    """Put ``?text=`` (cut to ``limit`` characters) into ``st.session_state[widget_key]`` when it is
    new, and set the widgets in ``also`` with it (say, a source picker to "type")."""
    given = st.query_params.get("text")
    if given and url_state.is_news("text", given):  # not one this session wrote (the browser may lag)
        url_state.note_seen("text", given)
        st.session_state[widget_key] = given[:limit]
        for key, value in (also or {}).items():
            st.session_state[key] = value


def publish_text(value: Optional[str], *, max_chars: int = 1000) -> None:
    """Write the page's text into ``?text=`` (after its widget is drawn), so a reload or a shared link
    shows it again; None, an empty text or one longer than ``max_chars`` leaves the address without it."""
    if not value or len(value) > max_chars:
        if "text" in st.query_params:
            del st.query_params["text"]
        return
    if st.query_params.get("text") != value:
        st.query_params["text"] = value
    url_state.note_seen("text", value)  # what the address now says is already in the widget
