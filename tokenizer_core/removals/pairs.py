"""Exact pair counts with a lazily corrected queue, for trainers whose pair counts move both ways.

PickyBPE's state and BoundlessBPE's two states (the pretokens' own pairs, and the pairs of whole
pretokens side by side) change their counts in both directions: a merge takes pairs away and makes
new ones, a removal (or, across pretokens, a pretoken that stops being one token) brings pairs back. So every count here is exact,
and the queue is corrected lazily: an entry is pushed whenever a pair's count grows, and an entry
whose count has dropped since is pushed back under its current count when it reaches the top. The
top entry whose count is current is therefore the best pair.

A pair ``(a, b)`` of token ids is the int ``a << 32 | b``: a smaller key is a smaller ``(a, b)``,
which is the tie-break (the smallest ids, as ``tokenizers`` and our BPE). ``where`` remembers, for
each pair, the sequences (words or runs) that may hold it: a superset, each entry checked when used.

>>> q = PairQueue()
>>> q.apply({key(1, 2): 3, key(0, 5): 3, key(4, 4): 1}, holder=0)
>>> q.best(), pair(q.best()[0])
((5, 3), (0, 5))
>>> q.apply({key(0, 5): -3}, holder=0)
>>> pair(q.best()[0]), q.take_holders(key(1, 2))
((1, 2), [0])
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from typing import Optional

#: Bits of a pair key's right id: ids stay far below 2**32.
SHIFT = 32
_MASK = (1 << SHIFT) - 1


def key(a: int, b: int) -> int:
    """The key of the pair ``(a, b)``."""
    return a << SHIFT | b


def pair(k: int) -> tuple[int, int]:
    """The ids ``(a, b)`` of a pair key."""
    return k >> SHIFT, k & _MASK


class PairQueue:
    """Pair counts (``counts``: key -> count, no zero entries), the best pair, and who holds each pair."""

    __slots__ = ("counts", "_heap", "_where")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self._heap: list[tuple[int, int]] = []
        self._where: dict[int, list[int]] = {}

    def best(self) -> Optional[tuple[int, int]]:
        """``(key, count)`` of the pair of highest count (then smallest ids), or None when none is left."""
        heap, counts = self._heap, self.counts
        while heap:
            negc, k = heap[0]
            cur = counts.get(k, 0)
            if cur == -negc:
                return k, cur
            if cur > 0:  # its count dropped since it was queued: requeue it under its count now
                heapq.heapreplace(heap, (-cur, k))
            else:
                heapq.heappop(heap)
        return None

    def apply(self, delta: Mapping[int, int], *, holder: Optional[int] = None) -> None:
        """Add ``delta`` (key -> change) to the counts; pairs that grew are noted as held by ``holder``."""
        counts, heap = self.counts, self._heap
        for k, d in delta.items():
            if not d:
                continue
            cur = counts.get(k, 0) + d
            if cur:
                counts[k] = cur
            else:
                del counts[k]
            if d > 0:
                heapq.heappush(heap, (-cur, k))
                if holder is not None:
                    self.note(k, holder)

    def load(self, counts: dict[int, int], where: dict[int, list[int]]) -> None:
        """Start from whole counts (no zero entries) and holder lists, made in one pass by the caller."""
        self.counts, self._where = counts, where
        self._heap = [(-c, k) for k, c in counts.items()]
        heapq.heapify(self._heap)

    def note(self, k: int, holder: int) -> None:
        """Remember that sequence ``holder`` may hold the pair ``k``."""
        lst = self._where.get(k)
        if lst is None:
            self._where[k] = [holder]
        elif lst[-1] != holder:
            lst.append(holder)

    def take_holders(self, k: int) -> list[int]:
        """The sequences that may hold pair ``k``, each once, forgotten here (a merge rewrites them)."""
        return sorted(set(self._where.pop(k, ())))


def add_pairs(delta: dict[int, int], ids: Sequence[int], places: Iterable[int], c: int) -> None:
    """Add ``c`` to ``delta`` for the pair starting at each of ``places`` in ``ids`` (no -1 entries:
    those are units that take no part in pairs)."""
    for j in places:
        a, b = ids[j], ids[j + 1]
        if a >= 0 and b >= 0:
            k = a << SHIFT | b
            delta[k] = delta.get(k, 0) + c


def around(places: Sequence[int], offsets: Iterable[int], n_pairs: int) -> list[int]:
    """The pair positions (0 to ``n_pairs - 1``) at ``offsets`` from each place, each once, in order.

    >>> around([0, 3], (-1, 0, 1), 4)
    [0, 1, 2, 3]
    """
    if len(places) == 1:  # the common case: one change in a word
        p = places[0]
        return [p + o for o in offsets if 0 <= p + o < n_pairs]
    offsets = tuple(offsets)
    return sorted({p + o for p in places for o in offsets if 0 <= p + o < n_pairs})
