"""Values as last read or written, each with its time, for readers that accept a copy of a given age.

A server reads each class its students follow several times a second (its class watcher, and every
follower's rerun); a copy a fraction of a second old answers most of those reads
(:class:`ui.store.class_copies.ClassCopies`).

>>> clock = [0.0]
>>> recent = Recent(clock=lambda: clock[0])
>>> recent.put("ABC", 3)
>>> recent.get("ABC", max_age=0.25)
(True, 3)
>>> clock[0] = 1.0
>>> recent.get("ABC", max_age=0.25)
(False, None)
>>> recent.put("ABC", 5)                # a move noted at 1.0
>>> recent.put("ABC", 4, at=0.9)        # a read that began before it ends after it: not taken
>>> recent.get("ABC", max_age=0.25)
(True, 5)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, Optional


class Recent:
    """A thread-safe map of key -> (time it was true, value); at most ``limit`` keys (then emptied:
    what it holds can always be read again)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, limit: int = 4096) -> None:
        self.clock = clock
        self._limit = limit
        self._values: dict[Hashable, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, *, max_age: float) -> tuple[bool, Any]:
        """``(True, value)`` when a value for ``key`` is at most ``max_age`` seconds old (the boundary
        included), else ``(False, None)``."""
        with self._lock:
            kept = self._values.get(key)
        if kept is not None and max_age > 0 and self.clock() - kept[0] <= max_age:
            return True, kept[1]
        return False, None

    def put(self, key: Hashable, value: Any, *, at: Optional[float] = None) -> None:
        """``value`` was true for ``key`` at time ``at`` (default: now); a copy known true later is kept
        (a slow read that began before a write must not put back the older value)."""
        at = self.clock() if at is None else at
        with self._lock:
            kept = self._values.get(key)
            if kept is not None and kept[0] > at:
                return
            if kept is None and len(self._values) >= self._limit:
                self._values.clear()
            self._values[key] = (at, value)
