"""The class watcher (ui/store/class_watch.py) and the room's copies (ui/store/class_copies.py): a
server's followers are asked to rerun once per move, a few at a time, again when a rerun never
showed, never after they left; a follower's state is never older than the version it was told of."""

from __future__ import annotations

import threading

import pytest

from ui.store.class_watch import ClassWatch
from ui.store.classes import ClassError, ClassRoom


@pytest.fixture
def two_rooms(tmp_path):
    """Two app servers' rooms on one SQLite database, and a class the first one's teacher started."""
    url = str(tmp_path / "classes.sqlite3")
    here, there = ClassRoom.open(url), ClassRoom.open(url)
    code, secret = there.start(lesson="l", title="t")
    return here, there, code, secret


class Asked(list):
    """The rerun function the app would pass: notes each session; ``gone`` sessions answer False."""

    def __init__(self, gone=()):
        super().__init__()
        self.gone = set(gone)

    def __call__(self, session: str) -> bool:
        self.append(session)
        return session not in self.gone


def test_each_follower_is_asked_once_per_move_and_only_while_it_follows(two_rooms):
    here, there, code, secret = two_rooms
    asked = Asked()
    watch = ClassWatch(here, rerun=asked, start=False, period=0.0)
    v = here.version(code)
    for s in ("a", "b"):
        watch.follow(s, code, seen=v)
    assert watch.check() == [] and asked == []  # nobody is behind
    there.move(code, secret, step=1)  # the teacher is on the other server
    assert sorted(watch.check()) == ["a", "b"]
    assert watch.check() == []  # asked once for that version, not at every look
    watch.follow("a", code, seen=v + 1)  # a's page ran and shows the move
    watch.leave("b")  # b left the class (or explores on its own)
    there.move(code, secret, step=2)
    assert watch.check() == ["a"] and watch.following() == {"a": code}


def test_at_most_at_once_reruns_are_asked_until_their_pages_show_the_move(two_rooms):
    """Twenty reruns asked together all end when the last does; asked two at a time the median
    student sees the move twice as soon for the same work."""
    here, there, code, secret = two_rooms
    watch = ClassWatch(here, rerun=Asked(), start=False, period=0.0, at_once=2)
    v = here.version(code)
    for s in "abcde":
        watch.follow(s, code, seen=v)
    there.move(code, secret, step=1)
    assert watch.check() == ["a", "b"]
    assert watch.check() == []  # both still running
    watch.follow("a", code, seen=v + 1)
    assert watch.check() == ["c"]
    for s in "bc":
        watch.follow(s, code, seen=v + 1)
    assert watch.check() == ["d", "e"]


def test_a_rerun_that_never_showed_is_asked_again_a_few_times_and_a_gone_session_is_dropped(two_rooms):
    here, there, code, secret = two_rooms
    clock = [0.0]
    asked = Asked(gone={"closed"})
    watch = ClassWatch(here, rerun=asked, start=False, period=0.0, again_after=3.0, tries=2,
                       clock=lambda: clock[0])
    v = here.version(code)
    watch.follow("stuck", code, seen=v)
    watch.follow("closed", code, seen=v)
    there.move(code, secret, step=1)
    assert watch.check() == ["stuck", "closed"]
    assert watch.following() == {"stuck": code}  # the closed tab's session is forgotten
    clock[0] = 2.9
    assert watch.check() == []
    clock[0] = 3.0
    assert watch.check() == ["stuck"]  # its page never said it shows the move: asked again
    clock[0] = 10.0
    assert watch.check() == []  # at most ``tries`` times for one version


def test_followers_whose_sessions_closed_are_forgotten_every_prune_period(two_rooms):
    """A class that never moves again never asks its followers to rerun: a closed tab is found by
    asking whether its session is alive, once a period."""
    here, _there, code, _secret = two_rooms
    clock, open_now = [0.0], {"a", "b"}
    watch = ClassWatch(here, rerun=Asked(), start=False, alive=lambda s: s in open_now, prune_every=60.0,
                       clock=lambda: clock[0])
    for s in ("a", "b"):
        watch.follow(s, code, seen=here.version(code))
    open_now.discard("b")  # b's tab closed
    clock[0] = 59.0
    watch.check()
    assert watch.following() == {"a": code, "b": code}  # not yet a period
    clock[0] = 60.0
    watch.check()
    assert watch.following() == {"a": code}


def test_an_ended_class_is_told_once(two_rooms):
    here, there, code, secret = two_rooms
    watch = ClassWatch(here, rerun=Asked(), start=False, period=0.0, again_after=0.0)
    watch.follow("a", code, seen=here.version(code))
    there.end(code, secret)
    assert watch.check() == ["a"]  # its page reruns and says the class ended
    assert watch.check() == [] and watch.check() == []


def test_the_watchers_thread_hears_a_move_through_its_own_room_at_once(two_rooms):
    """No period to wait: a move through this server's room wakes the watcher (the copies' listener)."""
    here = two_rooms[0]
    code, secret = here.start(lesson="l", title="mine")  # the teacher is on this server
    told = threading.Event()
    watch = ClassWatch(here, rerun=lambda s: told.set() or True, period=3600.0)  # it would never look on its own
    try:
        watch.follow("a", code, seen=here.version(code))
        here.move(code, secret, step=1)
        assert told.wait(timeout=30)
    finally:
        watch.close()
    assert watch._heard not in here.copies.listeners


def test_a_followers_state_is_never_older_than_the_version_it_was_told_of(two_rooms):
    """The followers of one server share one read of the state; a copy older than the newest
    version this room knows is read again, whatever its age."""
    here, there, code, secret = two_rooms
    first = here.state(code, max_age=60)
    assert here.state(code, max_age=60) is first  # shared
    there.move(code, secret, step=4)
    assert here.state(code, max_age=60) is first  # nothing here knows of the move yet
    assert here.version(code) == first.version + 1  # the watcher's look
    moved = here.state(code, max_age=60)
    assert (moved.version, moved.step) == (first.version + 1, 4)
    assert here.state(code).students == 0  # max_age 0: always the store
    there.end(code, secret)
    with pytest.raises(ClassError):
        here.state(code)
