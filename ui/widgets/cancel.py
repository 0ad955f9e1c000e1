"""Cancelling a long job (training) from the page that runs it.

A job runs inside the script and reports progress through an ``st.progress`` bar. A click on the
Cancel button drawn under the bar asks Streamlit for a rerun; Streamlit then stops the script at
its next call into Streamlit, which is the job's next progress update (the engines report
progress regularly), so the job ends there and nothing half-done is kept. The button's callback
leaves a note that the next run shows as a toast.

>>> note_key = NOTE
>>> st.session_state[note_key] = "Training cancelled."
>>> pop_note()
'Training cancelled.'
>>> pop_note() is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import streamlit as st

NOTE = "tp_cancelled_note"


def cancel_button(*, key: str, what: str, then: Optional[Callable[[], None]] = None) -> None:
    """Draw a Cancel button for the job about to run (call it after the job's progress bar);
    ``then`` runs on the click too, before the next run (e.g. to reopen the job's settings)."""
    st.button("Cancel", key=key, icon=":material/cancel:", on_click=_leave_note, args=(what, then),
              help="Stops the job at its next progress update; nothing half-done is kept.")


def _leave_note(what: str, then: Optional[Callable[[], None]] = None) -> None:
    st.session_state[NOTE] = f"{what} cancelled."
    if then is not None:
        then()


def pop_note() -> Optional[str]:
    """The note a cancelled job left (once), or None."""
    return st.session_state.pop(NOTE, None)


def show_note() -> None:
    """Toast the note a cancelled job left, if any (the router calls this on every run)."""
    note = pop_note()
    if note:
        st.toast(note, icon=":material/cancel:")
