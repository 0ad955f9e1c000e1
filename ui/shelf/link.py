"""The shelf tokenizers a page uses, in its address (``?shelf=<id>&shelf=<id>``), on every page.

Each id is the random link id the workspace store keeps a tokenizer of the user's under (never a
digest of it). Before the page runs, :func:`restore` puts every tokenizer the address names on the
session's shelf, so the page's picker (which keeps the tokenizer's label in the address) finds it
after a reload, a server restart, or in a student's browser. After the page, :func:`publish` writes
the ids of the shelf items the page's pickers used in this run (:func:`note_used`).

References need no id: everybody's shelf has them.
"""

from __future__ import annotations

import streamlit as st

from ui import url_state
from ui.shelf import state as shelf

PARAM = "shelf"
_USED = "shelf_used_now"  # keys of the items the pickers gave out in this run
# Read from the address into one session key, written to it from another: the ids asked for are
# consumed once restored, while the ids shown follow what the page used in each run.
_ASKED = url_state.many(PARAM, "shelf_links_asked", what="your tokenizers", limit=40)
_SHOWN = url_state.many(PARAM, "shelf_links_shown", what="your tokenizers", limit=40)


def begin_run() -> None:
    """Forget the previous run's items (the router calls this before the page)."""
    st.session_state[_USED] = []


def note_used(item: shelf.ShelfItem) -> None:
    """A picker gave ``item`` to the page in this run."""
    used = st.session_state.setdefault(_USED, [])
    if item.key not in used:
        used.append(item.key)


def restore() -> None:
    """Put the tokenizers the address names on the shelf, once per distinct address value."""
    url_state.show_refusals(url_state.restore((_ASKED,)))
    for link in (st.session_state.pop(_ASKED.key, None) or [])[:shelf.MAX_ITEMS]:
        shelf.restore(link)


def in_use() -> list[str]:
    """The store ids of every tokenizer on this session's shelf (kept from expiry while it is open)."""
    return [item.link for item in shelf.items() if item.kind != shelf.Kind.REFERENCE and item.link]


def publish() -> None:
    """Write the ids of the shelf items this run's page used into the address."""
    used = set(st.session_state.get(_USED, []))
    own = [item for item in shelf.items() if item.kind != shelf.Kind.REFERENCE]
    st.session_state[_SHOWN.key] = [item.link for item in own if item.key in used and item.link]
    url_state.publish((_SHOWN,))
