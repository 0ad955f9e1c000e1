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
