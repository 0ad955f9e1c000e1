"""Widget state of the Corpus page that must survive a visit to another page.

Streamlit forgets a widget's value when a run does not draw it, and a value
once set by code comes back in its place: after a look at the step-through
page, the Corpus page would show the first sample and an empty (or old) text
box although the pasted text is still the active corpus. :func:`restore`
(before the widgets are drawn) puts back the last value of every widget the
previous run did not draw; :func:`remember` (after) saves the values of the
widgets drawn. Saved copies live under ``corpus_saved_*`` keys, which no widget
owns. Each kept widget's ``on_change`` (:func:`save_now`) also saves its value the moment the user
changes it: Streamlit calls it before the run that the change starts, so the saved copy is the
user's latest even when that run is stopped before the page saves anything.
"""

from __future__ import annotations

from typing import Optional

import streamlit as st

from ui import session as state

#: The widgets drawn for each text source (the file uploader cannot be refilled by code).
WIDGETS = {
    "sample": ("corpus_source", "corpus_sample"),
    "upload": ("corpus_source", "corpus_replace"),
    "paste": ("corpus_source", "corpus_paste", "corpus_paste_name"),
}
KEPT = tuple(dict.fromkeys(k for keys in WIDGETS.values() for k in keys))
DEFAULTS = {"corpus_source": "sample", "corpus_paste": "", "corpus_paste_name": "pasted text",
            "corpus_replace": False}
_DRAWN = "corpus_drawn"  # (app run number, widget keys drawn in it)
_STARTED = "corpus_started"  # the app run number of the page's last run that began drawing


def _saved(key: str) -> str:
    return "corpus_saved_" + key.removeprefix("corpus_")


def restore(*, active_sample: Optional[str] = None) -> None:
    """Give each kept widget not drawn by the previous run its last value (or its default).

    ``active_sample`` (the active corpus' sample name, if it is a sample) preselects the sample box
    the first time, so the box shows what is in use.
    """
    ss = st.session_state
    run, drawn = ss.get(_DRAWN, (None, ()))
    previous = state.run_number() - 1
    live = set(drawn) if run == previous else set()
    if ss.get(_STARTED) == previous and run != previous:
        # The previous run was this page's and was stopped for a rerun before it ended (a key press
        # while the text was being committed): Streamlit keeps every widget's value across such a
        # run, so they are the user's latest. Put back the saved copies, and a pasted text was lost.
        live = set(KEPT)
    ss[_STARTED] = previous + 1
    for key in KEPT:
        if key in live and key in ss:
            continue  # on screen in the previous run: the value is the user's latest
        if _saved(key) in ss:
            ss[key] = ss[_saved(key)]
        elif key in DEFAULTS:
            ss[key] = DEFAULTS[key]
        elif key == "corpus_sample" and active_sample is not None:
            ss[key] = active_sample


def save_now(key: str) -> None:
    """A kept widget's ``on_change``: its saved copy becomes the value the user just gave it."""
    ss = st.session_state
    if key in ss:
        ss[_saved(key)] = ss[key]


def remember(source: str) -> None:
    """Save the values of the widgets drawn for ``source`` (call after they are drawn)."""
    ss = st.session_state
    keys = WIDGETS.get(source, ())
    for key in keys:
        if key in ss:
            ss[_saved(key)] = ss[key]
    ss[_DRAWN] = (state.run_number(), keys)
