"""Keep every page behind the router (``app.py``), even on a fresh server's first request.

Streamlit treats a ``pages/`` folder next to the main script as a v1 multipage app until the
main script has called ``st.navigation`` once; the first request of a fresh server to a page
URL (``/merges``) therefore runs ``pages/merges.py`` on its own: no page config, no
navigation titles, no sidebar. :func:`require_router` notices that run and starts it again
through the router, which then shows the same page.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def require_router() -> None:
    """Call first in every page script: rerun through ``app.py`` if Streamlit skipped it.

    ``st.navigation`` clears ``uses_pages_directory`` for the whole server, so after the
    router's first run this costs one attribute read.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
