"""Followers told when their class moves: one thread per class room (per app server) reads the version
of each class that sessions on this server follow, one read per class four times a second however
many follow it, and asks for a rerun of every session whose page shows an older version.

This replaced a poll in every follower's page (a timed fragment each second): forty idle students
were forty fragment runs a second, and a student saw the teacher's move half a second late on
average before the page even began to rerun. A move through this server's room is heard at once
(:attr:`ClassCopies.listeners <ui.store.class_copies.ClassCopies.listeners>`); one through another
server's room within a ``period``.

No Streamlit here: the app passes ``rerun(session) -> bool`` (False: that session is gone), which asks
Streamlit to run the session's page again (:mod:`ui.lessons.push`); tests pass a list's append.

>>> from ui.store.classes import ClassRoom
>>> room = ClassRoom.open("sqlite://")
>>> code, secret = room.start(lesson="x", title="t")
>>> asked = []
>>> watch = ClassWatch(room, rerun=lambda session: asked.append(session) or True, start=False)
>>> watch.follow("s1", code, seen=room.version(code))
>>> watch.check()                 # nothing moved: nobody asked
[]
>>> _ = room.move(code, secret, lesson="x", step=1)
>>> watch.check(), asked
(['s1'], ['s1'])
>>> watch.check()                 # asked once for that version, not at every look
[]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ui.store.backend import StoreError

if TYPE_CHECKING:
    from ui.store.classes import ClassRoom

_LOG = logging.getLogger(__name__)
_ENDED = -1  # what a follower was asked for when its class ended (asked once, never again)


@dataclass
class _Follower:
    code: str
    seen: Optional[int]  # the version the session's page last showed
    asked: Optional[int] = None  # the version its last rerun was asked for
    asked_at: float = 0.0
    times: int = 0  # reruns asked for that version (a page that never catches up is not asked forever)


class ClassWatch:
    """The followers of one room's classes on this server, and the thread that tells them.

    ``period``: seconds between looks at the store; ``at_once``: reruns asked and not yet shown at one
    time (a follower's page reports the version it shows at the end of its run, and the next is asked
    then: twenty reruns at once all end when the last does, twenty two at a time end one by one, so
    the median student sees the move twice as soon for the same work); ``again_after``: a session
    asked that still shows the older version that long after is asked again (at most ``tries`` times
    per version); ``alive(session)``: whether a session is still open, asked of every follower each
    ``prune_every`` seconds (a follower of a class that never moves again is never asked to rerun, so
    a closed tab would stay listed); ``start``: False for no thread (call :meth:`check` yourself).
    """

    def __init__(self, room: "ClassRoom", *, rerun: Callable[[str], bool], period: float = 0.25,
                 at_once: int = 2, again_after: float = 3.0, tries: int = 3,
                 alive: Optional[Callable[[str], bool]] = None, prune_every: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, start: bool = True) -> None:
        self.room = room
        self.period, self.at_once, self.again_after, self.tries = period, at_once, again_after, tries
        self._alive, self.prune_every = alive, prune_every
        self._pruned = clock()
        self._rerun = rerun
        self._clock = clock
        self._followers: dict[str, _Follower] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: Optional[threading.Thread] = None
        self._start = start
        room.copies.listeners.append(self._heard)

    # -- what sessions say ----------------------------------------------------------------------
    def follow(self, session: str, code: str, *, seen: Optional[int]) -> None:
        """Session ``session`` follows class ``code`` and its page shows version ``seen`` (every run
        of a following session says so again)."""
        with self._lock:
            kept = self._followers.get(session)
            if kept is not None and kept.code == code:
                kept.seen = seen
            else:
                self._followers[session] = _Follower(code, seen)
            if self._start and self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._loop, name="class-watch", daemon=True)
                self._thread.start()
        self._wake.set()

    def leave(self, session: str) -> None:
        """``session`` follows no class any more (it left, or explores on its own)."""
        with self._lock:
            self._followers.pop(session, None)

    def following(self) -> dict[str, str]:
        """Session -> the code of the class it follows."""
        with self._lock:
            return {s: f.code for s, f in self._followers.items()}

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        if self._heard in self.room.copies.listeners:
            self.room.copies.listeners.remove(self._heard)

    # -- looking --------------------------------------------------------------------------------
    def _heard(self, code: str) -> None:
        """A move or reveal through this room: look now, not at the next period."""
        self._wake.set()

    def check(self) -> list[str]:
        """One look: read each followed class's version, ask the sessions behind it to rerun; returns
        the sessions asked."""
        self._prune()
        with self._lock:
            codes = {f.code for f in self._followers.values()}
        versions: dict[str, Optional[int]] = {}
        for code in codes:
            try:  # a copy from this room's own move is the newest; others are read every period
                versions[code] = self.room.version(code, max_age=self.period / 2)
            except StoreError:
                continue  # the store is away for a moment: look again next period
        now = self._clock()
        due: list[str] = []
        with self._lock:
            behind = []
            for session, f in self._followers.items():
                if f.code not in versions:
                    continue
                want = versions[f.code]
                want = _ENDED if want is None else want
                if want == f.seen or (want == _ENDED and f.asked == _ENDED):
                    continue
                if f.asked == want and now - f.asked_at < self.again_after:
                    behind.append(None)  # asked, its rerun not shown yet
                elif f.asked != want or f.times < self.tries:
                    behind.append((session, f, want))
            free = self.at_once - behind.count(None)
            for session, f, want in [b for b in behind if b is not None][:max(free, 0)]:
                f.times = f.times + 1 if f.asked == want else 1
                f.asked, f.asked_at = want, now
                due.append(session)
        for session in due:
            if not self._rerun(session):
                self.leave(session)  # the session is gone (its tab closed): nobody to tell
        return due

    def _prune(self) -> None:
        """Forget the followers whose sessions closed (every ``prune_every`` seconds)."""
        now = self._clock()
        if self._alive is None or now - self._pruned < self.prune_every:
            return
        self._pruned = now
        for session in list(self.following()):
            if not self._alive(session):
                self.leave(session)

    def _loop(self) -> None:
        while not self._closed:
            with self._lock:
                idle = not self._followers
            # Nobody follows: sleep until someone does (no reads for a server without a class).
            self._wake.wait(None if idle else self.period)
            self._wake.clear()
            if self._closed:
                return
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the watcher must outlive any one bad look
                _LOG.exception("the class watcher failed to look at its classes")
