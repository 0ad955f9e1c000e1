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

import time
from collections.abc import Callable
from typing import Optional, TypeVar

import streamlit as st

from tokenizer_core.types import ProgressCallback

NOTE = "tp_cancelled_note"
CANCELLED = "tp_cancelled_jobs"  # ids of the jobs this session cancelled (not started again by itself)
T = TypeVar("T")


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


def throttled(update: Callable[[int, int, str], None], *, every: float = 0.1) -> ProgressCallback:
    """An engine's progress callback that passes at most one update per ``every`` seconds to
    ``update`` (and always the last one): a browser round trip per call would slow the job down.
    Every update that gets through is also where a Cancel click stops the job (module docstring).

    >>> seen = []
    >>> p = throttled(lambda d, t, m: seen.append(d), every=60)
    >>> for i in range(1, 6): p(i, 5, "")
    >>> seen
    [1, 5]
    """
    last = [float("-inf")]

    def progress(done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        update(done, total, message)

    return progress


def run_job(*, job: str, what: str, make: Callable[[ProgressCallback], T]) -> Optional[T]:
    """Run a long computation the page needs (statistics, a baseline) under a progress bar with Cancel.

    ``job`` identifies it with its content (say, ``"stats:" + corpus digest``). A cancelled job is not
    started again on the next rerun by itself: until the user asks for it with the button shown in
    its place, this returns None and the page draws without it.
    """
    cancelled: set[str] = st.session_state.setdefault(CANCELLED, set())
    if job in cancelled:
        st.info(f"{what} was cancelled.", icon=":material/cancel:")
        if not st.button(f"{what}: start again", key=f"tp_restart_{job}", icon=":material/refresh:"):
            return None
        cancelled.discard(job)
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=f"{what}…")
        cancel_button(key=f"tp_cancel_{job}", what=what, then=lambda: cancelled.add(job))
    def show(done: int, total: int, message: str) -> None:
        bar.progress(min(1.0, done / total) if total else 0.0, text=message or f"{what}…")

    try:
        return make(throttled(show))
    finally:
        slot.empty()
