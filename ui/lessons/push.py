"""Streamlit's side of the class watcher (:mod:`ui.store.class_watch`): which session this run is, and
how the watcher's thread asks Streamlit to run another session's page again.

A server-initiated rerun is what Streamlit itself does when a source file is saved with
``runOnSave``: the session's ``request_rerun`` with the client state its last run ended with (the
page and the address as the server last set them, no widget triggers, so no button is pressed
twice). It is asked on the session's own event loop. Streamlit keeps these on private attributes;
when they are missing (another Streamlit version, or AppTest, which has no server), :func:`watch`
says so and the page polls in a fragment instead (:func:`ui.lessons.follow.poll`).

Module state: ``_WATCHES`` maps a class room's database to its watcher (session ids and class codes,
no user data); each room has one.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.store.class_watch import ClassWatch
from ui.store.classes import ClassRoom

_LOCK = threading.Lock()
_WATCHES: dict[str, ClassWatch] = {}


def session_id() -> Optional[str]:
    """This run's session id (None outside a script run)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def _app_session(session: str) -> Any:
    """The server's AppSession for ``session`` (None when it is closed, disconnected or no server runs)."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    manager = getattr(runtime.get_instance(), "_session_mgr", None)
    info = manager.get_active_session_info(session) if manager is not None else None
    return getattr(info, "session", None)


def _ready(app_session: Any) -> bool:
    """Whether ``app_session`` has what a server-initiated rerun needs."""
    return all(hasattr(app_session, name) for name in ("request_rerun", "_client_state", "_event_loop"))


def rerun(session: str) -> bool:
    """Ask Streamlit to run ``session``'s page again (from any thread); False when it is gone."""
    from streamlit.proto.ClientState_pb2 import ClientState

    app_session = _app_session(session)
    if app_session is None or not _ready(app_session):
        return False
    state = ClientState()
    state.CopyFrom(app_session._client_state)  # noqa: SLF001 - see the module docstring
    state.ClearField("widget_states")  # the session's own widget values stand; no trigger fires again
    state.fragment_id, state.is_auto_rerun = "", False  # the whole page, as a user's action would
    loop = app_session._event_loop  # noqa: SLF001
    if loop.is_closed():
        return False
    loop.call_soon_threadsafe(app_session.request_rerun, state)
    return True


def _watch_of(room: ClassRoom) -> ClassWatch:
    url = room.engine.url.render_as_string(hide_password=True)
    with _LOCK:
        found = _WATCHES.get(url)
        if found is None or found.room is not room:  # a store opened again (tests) gets its own
            if found is not None:
                found.close()
            found = _WATCHES[url] = ClassWatch(room, rerun=rerun, alive=lambda s: _app_session(s) is not None)
        return found


def watch(room: ClassRoom, *, code: str, seen: Optional[int]) -> bool:
    """This session follows ``code`` showing version ``seen``: the server's watcher reruns it when the
    class moves. False when this server cannot rerun a session itself (the caller polls instead)."""
    session = session_id()
    app_session = _app_session(session) if session else None
    if session is None or app_session is None or not _ready(app_session):
        return False
    _watch_of(room).follow(session, code, seen=seen)
    return True


def leave() -> None:
    """This session follows no class (it never joined, left, or explores on its own)."""
    session = session_id()
    if session is None:
        return
    with _LOCK:
        watches = list(_WATCHES.values())
    for w in watches:
        w.leave(session)
