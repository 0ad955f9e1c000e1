"""The "Share this view" button every page has (in the sidebar): the page's full link, with its
inputs, the active corpus and the shelf tokenizers it uses, ready to copy.

The address bar keeps working as before; this only saves looking for it on a projector, and says
what a link carries. Draw it after every part of the page has published its inputs.

>>> link_for("http://host/batch", [("text", "a b"), ("shelf", "x"), ("shelf", "y")])
'http://host/batch?text=a+b&shelf=x&shelf=y'
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import streamlit as st

from ui import url_state


def link_for(base: str, pairs: Sequence[tuple[str, str]]) -> str:
    """``base`` with the query ``pairs`` (a parameter may repeat)."""
    return base + ("?" + urlencode(list(pairs)) if pairs else "")


def current_link() -> str:
    """This page's link as the browser will show it after this run."""
    return link_for(st.context.url or "", url_state.current_pairs())


SHARE = "share_popover"


def render_share() -> None:
    """The button, and in its popover the link with a copy button.

    Opening the popover reruns the whole app (``on_change="rerun"``): a fragment (the BPE page's
    step view, auto-play) changes the view without redrawing the sidebar, so a link written at the
    last full run could name an older view. The rerun writes it from the view on screen now."""
    with st.popover("Share this view", icon=":material/share:", width="stretch", key=SHARE, on_change="rerun"):
        st.caption("Anyone who opens this link sees this page as it is now: the corpus, the settings and "
                   "the tokenizers of yours it shows (this server keeps them while they are used). Copy it "
                   "with the button at the right of the link.")
        st.code(current_link(), language=None, wrap_lines=True)
