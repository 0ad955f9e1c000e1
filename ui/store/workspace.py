"""The app's side of the workspace store: one :class:`~ui.store.backend.Store` per server process,
a workspace per browser session, and failures said once per session, never raised to a page.

The database comes from ``TOKENIZER_PLAYGROUND_DB`` (a path to a SQLite file, or a SQLAlchemy URL
such as ``postgresql://user@host/db`` for several app servers sharing one store); by default a
SQLite file in the cache folder. Quotas: ``TOKENIZER_PLAYGROUND_WORKSPACE_MB`` (per workspace, 300),
``TOKENIZER_PLAYGROUND_STORE_MB`` (in total, 2000), ``TOKENIZER_PLAYGROUND_IN_USE_MINUTES`` (what a
session used this recently is never expired, 60). ``TOKENIZER_PLAYGROUND_DB=off`` turns saving off.

When the store cannot be used (a corrupt or foreign file, PostgreSQL down, a full disk), the app
works on without persistence and each session is told once, at its first save or restore.

Module state: ``_SERVER`` holds the one engine of the process (or why there is none); it holds no
user's data, so sharing it between sessions is safe (the audit in README lists it).
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Optional

import streamlit as st

from tokenizer_core.cache_paths import cache_dir
from ui.store.backend import LinkNotFound, Quota, QuotaExceeded, Store, Stored, StoreError, StoreUnavailable
from ui.widgets.text import escape_markdown

_LOCK = threading.Lock()
_SERVER: dict[str, Any] = {}  # "store": Store or None, "problem": why there is none
_WORKSPACE = "store_workspace"  # this session's workspace id
_SAID = "store_said"  # the store's problems this session has been told about
_TOUCHED = "store_touched"  # when this session last marked its links as in use
TOUCH_EVERY = 60.0  # seconds


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value > 0 else default


def configured() -> tuple[Optional[str], Quota]:
    """The database setting (None: saving is off) and the quotas, from the environment."""
    setting = os.environ.get("TOKENIZER_PLAYGROUND_DB", "").strip()
    if setting.lower() == "off":
        url = None
    else:
        url = setting or str(cache_dir() / "workspaces.sqlite3")
    quota = Quota(workspace_bytes=int(_env_number("TOKENIZER_PLAYGROUND_WORKSPACE_MB", 300) * 1e6),
                  total_bytes=int(_env_number("TOKENIZER_PLAYGROUND_STORE_MB", 2000) * 1e6),
                  in_use_seconds=_env_number("TOKENIZER_PLAYGROUND_IN_USE_MINUTES", 60) * 60)
    return url, quota


def server_store() -> Optional[Store]:
    """The process' store, opened on first use; None (and :func:`problem` says why) when unusable."""
    with _LOCK:
        if "store" not in _SERVER:
            url, quota = configured()
            if url is None:
                _SERVER.update(store=None, problem="saving is turned off on this server (TOKENIZER_PLAYGROUND_DB=off)")
            else:
                if "://" not in url:
                    try:
                        os.makedirs(os.path.dirname(os.path.abspath(url)), exist_ok=True)
                    except OSError:
                        pass  # opening will say what is wrong
                try:
                    _SERVER.update(store=Store.open(url, quota=quota), problem="")
                except StoreUnavailable as err:
                    _SERVER.update(store=None, problem=str(err))
        return _SERVER["store"]


def problem() -> str:
    server_store()
    return _SERVER.get("problem", "")


def reset_for_tests() -> None:
    """Forget the process' store (tests point ``TOKENIZER_PLAYGROUND_DB`` elsewhere)."""
    with _LOCK:
        _SERVER.clear()


def workspace() -> str:
    """This session's workspace id (its quota is counted under it)."""
    return st.session_state.setdefault(_WORKSPACE, secrets.token_hex(12))


def say_once(message: str, *, topic: Optional[str] = None) -> None:
    """Tell this session about a store problem, once per ``topic`` (by default, per message)."""
    said = st.session_state.setdefault(_SAID, set())
    topic = topic or message
    if topic in said:
        return
    said.add(topic)
    st.warning(escape_markdown(message), icon=":material/cloud_off:")


def _unavailable() -> None:
    say_once(f"Your work is not saved on this server: {problem() or 'the store cannot be used'}. Everything "
             "works in this session, but links to your own corpora and tokenizers will not survive a reload.",
             topic="unavailable")


def save(kind: str, digest: str, payload: Callable[[], bytes], *, meta: dict[str, Any], what: str) -> Optional[str]:
    """Keep an item in the store; its link id, or None after saying why not (``what`` names the item
    for people, e.g. "a link to this corpus")."""
    store = server_store()
    if store is None:
        _unavailable()
        return None
    try:
        return store.put(kind, digest, payload, meta=meta, workspace=workspace())
    except QuotaExceeded as err:
        say_once(f"Not saved: {err}")
    except StoreUnavailable as err:
        say_once(f"Not saved: {err}. Everything works in this session, but {what} will not survive a reload.",
                 topic="unavailable")
    return None


def load(link: str) -> Optional[Stored]:
    """What ``link`` names, or None after saying why not (unknown or expired, or no store)."""
    store = server_store()
    if store is None:
        _unavailable()
        return None
    try:
        return store.get(link)
    except LinkNotFound:
        say_once("This link names something of yours that this server no longer keeps (it expired, or the "
                 "link was cut). The current view stays; upload, paste or train it again.")
    except StoreError as err:
        say_once(f"The saved item could not be read: {err}.")
    return None


def keep_in_use(links: list[str]) -> None:
    """Mark the links this session shows as in use (at most once a minute), so expiry spares them."""
    store = server_store()
    now = time.monotonic()
    if store is None or not links or now - st.session_state.get(_TOUCHED, -TOUCH_EVERY) < TOUCH_EVERY:
        return
    st.session_state[_TOUCHED] = now
    try:
        store.touch(links)
    except StoreUnavailable as err:
        say_once(f"Your work is not saved on this server: {err}.")
