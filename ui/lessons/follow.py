"""The class's place across every page: the router sends the teacher's page and view after each
run, and takes a following student (or the speaker screen) where the class is before the page draws.
The server's class watcher reruns a following session when its class moves (:mod:`ui.lessons.push`).

A view is the page's address parameters (the same state a shared link restores), less what belongs
to one screen: the class and speaker parameters, presenter mode and its notes switch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from ui import address, url_state
from ui.lessons import live, push
from ui.store.backend import StoreError
from ui.store.classes import ClassError

#: Address parameters that belong to one screen, never sent to the class.
PRIVATE = frozenset({live.JOIN_PARAM, live.SPEAKER_PARAM, "present", "notes"})
LESSON = "lessons_lesson"  # the Lessons page's session keys (ui/lessons/page.py)
STEP = "lessons_step"


def view_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an address the class follows.

    >>> view_of({"lesson": "x", "step": "2", "present": "1", "class": "ABC"})
    {'lesson': 'x', 'step': '2'}
    """
    return {k: v for k, v in params.items() if k not in PRIVATE}


def lead(page: str) -> None:
    """Where the teacher is goes to the class (a new version only if it moved). The Lessons page calls
    it as soon as its step is known, before the step draws (students start following while the
    teacher's figure is still computing); the router calls it again after every run for the other
    pages and for what changed later in the run."""
    if live.role() != "teacher":  # most runs: nobody here leads a class
        return
    r = live.room()
    if r is None:
        return
    lesson, step = st.session_state.get(live.LEAD, (None, None)) if page == "lessons" else (None, None)
    try:
        r.move(st.session_state[live.CODE], st.session_state[live.SECRET], lesson=lesson, step=step, page=page,
               view=view_of(dict(url_state.current_pairs())))  # the address as this run leaves it
    except (ClassError, StoreError):
        pass  # the class panel says what is wrong


def follow(pages: Mapping[str, Any], current: str) -> None:
    """Before the page draws: a following session takes the class's lesson, step, page and view when
    the class changed since this session last showed it (a late joiner lands where the class is)."""
    live.new_run()
    live.open_speaker_link()
    if not live.following():  # most runs: nobody here follows a class
        return
    r = live.room()
    if r is None:
        return
    try:
        state = live.class_state(r, st.session_state[live.CODE])
    except (ClassError, StoreError):
        return  # the class panel says what is wrong
    if state.version == st.session_state.get(live.SEEN):
        return
    st.session_state[live.SEEN] = state.version
    st.session_state[LESSON] = state.lesson
    st.session_state[STEP] = state.step
    target = "lessons" if live.role() == "speaker" or state.page not in pages else state.page
    own = {k: v for k, v in address.address().items() if k in PRIVATE}
    view = {**state.view, **own} if target == state.page else {**own}
    if target != current:
        st.switch_page(pages[target], query_params=view)
    if view_of(address.address()) != view_of(view):
        address.replace_address(view)  # the page restores its state from the new address


def poll() -> None:
    """After the page drew: a following session is rerun when the class moves. The server's class
    watcher does it (:mod:`ui.lessons.push`); where it cannot (AppTest has no server), the page
    checks the class's version every second in a small fragment and reruns itself."""
    if not live.following():
        push.leave()
        return
    r = live.room()
    if r is None:
        return
    code = st.session_state[live.CODE]
    if push.watch(r, code=code, seen=st.session_state.get(live.SEEN)):
        return

    @st.fragment(run_every=live.POLL_SECONDS)
    def _poll() -> None:
        try:
            # A copy up to a quarter of a poll old will do: the server's followers share one read.
            version = r.version(code, max_age=live.POLL_SECONDS / 4)
        except StoreError:
            return
        if version is not None and version != st.session_state.get(live.SEEN):
            st.rerun(scope="app")

    _poll()
