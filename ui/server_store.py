"""Results shared by every session of the server (trained tokenizers, sweeps), kept outside
Streamlit's cached functions.

Streamlit records the elements a cached function draws and replays them on a cache hit; a
progress bar created by the page and updated from inside a cached training is such an element, and
replaying it on a later run fails. So the long work runs in the page, which draws its own progress,
and only its result is stored here: a small least-recently-used table per kind of result.

>>> store = ServerStore("doc-example", max_entries=2)
>>> store.put("a", 1); store.put("b", 2); store.get("a"); store.put("c", 3)
1
>>> store.get("b") is None, store.get("a"), store.get("c")
(True, 1, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Optional

import streamlit as st


@st.cache_resource(show_spinner=False)
def _tables() -> dict[str, tuple[threading.Lock, OrderedDict]]:
    return {}


class ServerStore:
    """A named least-recently-used table of at most ``max_entries`` results, one per server process.
    Values must never be changed after they are stored (sessions share them)."""

    def __init__(self, name: str, *, max_entries: int) -> None:
        self.max_entries = max_entries
        self._lock, self._table = _tables().setdefault(name, (threading.Lock(), OrderedDict()))

    def get(self, key: Hashable) -> Optional[Any]:
        with self._lock:
            if key not in self._table:
                return None
            self._table.move_to_end(key)
            return self._table[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._table[key] = value
            self._table.move_to_end(key)
            while len(self._table) > self.max_entries:
                self._table.popitem(last=False)
