"""The trace of a training run with removals: every event in order, merges and removals.

PickyBPE's and BoundlessBPE's traces (:class:`~tokenizer_core.pickybpe.events.PickyTrace`,
:class:`~tokenizer_core.boundless.events.BoundlessTrace`) are this list of events with their own
merge records; a removal's record has ``kind = "remove"``, a merge's any other kind, and each has
``left`` and ``right`` (a merge) or ``token`` and ``split`` (a removal).

>>> from collections import namedtuple
>>> M, R = namedtuple("M", "kind left right"), namedtuple("R", "kind token split")
>>> t = EventTrace([M("merge", "a", "b"), R("remove", "ab", ("a", "b"))], stop_reason="done")
>>> len(t), t.merges()[0].left, t.removals()[0].token, t.events()
(2, 'a', 'ab', [('merge', 'a', 'b'), ('remove', 'ab', ('a', 'b'))])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from typing import Any, Generic, TypeVar, Union

#: How a merged token stood before its merge: a new string, back after a removal, or present already.
TOKEN_STATUS = ("new", "restored", "present")

M = TypeVar("M")
R = TypeVar("R")


class EventTrace(Generic[M, R]):
    """The events of one training run, in order, and why it stopped."""

    def __init__(self, events: list[Union[M, R]], *, stop_reason: str) -> None:
        self._events: list[Any] = events
        self.stop_reason = stop_reason

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Union[M, R]]:
        return iter(self._events)

    def __getitem__(self, index: int) -> Union[M, R]:
        return self._events[index]

    def merges(self) -> list[M]:
        """The merge events (of every kind), in order."""
        return [e for e in self._events if e.kind != "remove"]

    def removals(self) -> list[R]:
        """The removal events, in order."""
        return [e for e in self._events if e.kind == "remove"]

    def merge_name(self, event: Any) -> str:
        """The kind of a merge event as the model's events name it (``"merge"`` here)."""
        return "merge"

    def events(self) -> list[tuple]:
        """What encoding needs: ``(merge name, left, right)`` and ``("remove", token, split)``, in order."""
        return [("remove", e.token, e.split) if e.kind == "remove" else (self.merge_name(e), e.left, e.right)
                for e in self._events]

    def table(self) -> list[dict[str, Any]]:
        """Every event as a plain dict with its ``kind`` first (for the CLI and tables)."""
        return [{"kind": e.kind, **asdict(e)} for e in self._events]


class EventsResult:
    """What a training result with a ``trace`` (its events) and a ``model`` (of those events) says of both."""

    trace: Any
    model: Any

    @property
    def stop_reason(self) -> str:
        return self.trace.stop_reason

    @property
    def removed(self) -> list[str]:
        """Tokens removed and not made again, in the order they went."""
        return self.model.removed_tokens()
