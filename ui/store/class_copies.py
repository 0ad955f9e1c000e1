"""What one class room last read or wrote of each class, and who hears of its moves.

A server's followers all read the same class: one read of its version answers the server's watcher
(:mod:`ui.store.class_watch`), and one read of its state answers every follower whose page reruns
for that version. A copy is taken only when it is young enough (``max_age``) and, for a state, never
older than the newest version this room knows (a follower told of version 7 never draws version 6).

>>> clock = [0.0]
>>> copies = ClassCopies(clock=lambda: clock[0])
>>> copies.version("ABC", max_age=0.25, read=lambda: 3)
3
>>> copies.version("ABC", max_age=0.25, read=lambda: 4)   # young enough: no read
3
>>> heard = []
>>> copies.listeners.append(heard.append)
>>> copies.noted(State("ABC", 5)).version, heard         # a move through this room
(5, ['ABC'])
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple, Optional, Protocol, TypeVar

from ui.store.recent import Recent


class _Versioned(Protocol):
    @property
    def code(self) -> str: ...

    @property
    def version(self) -> int: ...


S = TypeVar("S", bound=_Versioned)


class State(NamedTuple):
    """The least a class's state has for its copies (the doctest's; the room's is ``ClassState``)."""

    code: str
    version: int


class ClassCopies:
    """Each class's version and state as last read or written here (thread-safe), and the
    ``listeners`` told a class's code when a move or reveal goes through this room."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.versions = Recent(clock=clock)
        self.states = Recent(clock=clock)
        self.listeners: list[Callable[[str], None]] = []

    def version(self, code: str, *, max_age: float, read: Callable[[], Optional[int]]) -> Optional[int]:
        """The version of ``code``: a copy at most ``max_age`` seconds old, else ``read()`` (kept)."""
        fresh, kept = self.versions.get(code, max_age=max_age)
        if fresh:
            return kept
        asked = self.versions.clock()  # before the read: a copy is never taken for newer than it is
        found = read()
        self.versions.put(code, found, at=asked)
        return found

    def state(self, code: str, *, max_age: float, read: Callable[[], S]) -> S:
        """The state of ``code``: a copy at most ``max_age`` seconds old whose version is at least the
        newest one known here, else ``read()`` (kept, its version too)."""
        fresh, kept = self.states.get(code, max_age=max_age)
        if fresh:
            newest = self.versions.get(code, max_age=math.inf)[1]
            if newest is None or kept.version >= newest:
                return kept
        asked = self.states.clock()
        found = read()
        self.states.put(code, found, at=asked)
        self.versions.put(code, found.version, at=asked)
        return found

    def noted(self, state: S) -> S:
        """``state``, just written through this room: the newest copy at once, and the listeners told."""
        self.versions.put(state.code, state.version)
        self.states.put(state.code, state)
        for listener in list(self.listeners):
            listener(state.code)
        return state
