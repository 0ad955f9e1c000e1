"""PickyBPE's trace: every event of training in order, merges and removals.

A merge event says which pair was merged, how often the pair occurred, and whether the token it
spells was new, came back after a removal, or was there already (two pairs can spell one token). A
removal event names the token, its Intersection over Self (IoS), the merge that triggered it and
what it split back into. :meth:`PickyTrace.events` gives the bare ``(kind, ...)`` tuples the model
encodes with (:mod:`tokenizer_core.pickybpe.replay`).

>>> t = PickyTrace([MergeEvent(0, 1, "a", "b", "ab", 11, 11, "new", 257, 10),
...                 MergeEvent(1, 2, "ab", "c", "abc", 10, 10, "new", 258, 0),
...                 RemovalEvent(2, 2, "ab", 10 / 11, 10, 1, ("a", "b"), ("ab", "c"), 257, 1)],
...                stop_reason="reached vocab_size 258")
>>> [(e.kind, e.token) for e in t], t.removals()[0].trigger, round(t.removals()[0].ios, 3)
([('merge', 'ab'), ('merge', 'abc'), ('remove', 'ab')], ('ab', 'c'), 0.909)
>>> t.events()[2]
('remove', 'ab', ('a', 'b'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from tokenizer_core.removals.events import TOKEN_STATUS, EventTrace  # noqa: F401 (TOKEN_STATUS: its old home)


@dataclass(frozen=True, slots=True)
class MergeEvent:
    """One merge. ``index`` is the event's place among all events (from 0), ``step`` the merge's
    number (from 1); ``count`` the pair's count when chosen (overlapping pairs counted, as BPE
    counts them), ``merged`` the pairs merged (``a a a`` counts 2, merges 1): the IoS's pair
    frequency. ``vocab_size`` and ``tokens_after`` are the vocabulary and corpus sizes after it."""

    index: int
    step: int
    left: str
    right: str
    token: str
    count: int
    merged: int
    status: str
    vocab_size: int
    tokens_after: int

    kind = "merge"


@dataclass(frozen=True, slots=True)
class RemovalEvent:
    """One removal, right after the merge ``trigger`` (step ``step``) that used ``token``.

    ``ios = merged / (merged + remaining)``: ``merged`` pairs went into the merge and ``remaining``
    occurrences of the token were left, which went back to ``split`` (present tokens)."""

    index: int
    step: int
    token: str
    ios: float
    merged: int
    remaining: int
    split: tuple[str, ...]
    trigger: tuple[str, str]
    vocab_size: int
    tokens_after: int

    kind = "remove"


Event = Union[MergeEvent, RemovalEvent]


class PickyTrace(EventTrace[MergeEvent, RemovalEvent]):
    """The events of one training run, in order, and why it stopped (merges: ``("merge", left, right)``)."""

    def __repr__(self) -> str:
        return (f"PickyTrace({len(self.merges())} merges, {len(self.removals())} removals, "
                f"stop_reason={self.stop_reason!r})")
