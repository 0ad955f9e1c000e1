"""Which ready partials to add next so that a tree of sums keeps the corpus order.

Counts keep their pieces in order of first appearance (BPE's "first seen" ties depend on it), so
two partials may be added only when they cover neighbouring runs of partitions, the earlier on
the left. Partials become ready in any order (tasks finish when they finish): each is paired with
a ready neighbour as soon as there is one, else it waits.

>>> sums = NeighbourSums()
>>> sums.ready("p2", 2, 2), sums.ready("p0", 0, 0)
(None, None)
>>> sums.ready("p1", 1, 1)   # the earlier neighbour goes left
Pairing(left='p0', right='p1', first=0, last=1)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

__all__ = ["NeighbourSums", "Pairing"]


class Pairing(NamedTuple):
    """Two partials to add (``left`` covers the earlier partitions) and the run their sum covers."""

    left: Any
    right: Any
    first: int
    last: int


class NeighbourSums:
    """Ready partials by the first and the last partition they cover."""

    def __init__(self) -> None:
        self._by_first: dict[int, tuple[Any, int]] = {}  # first -> (partial, last)
        self._by_last: dict[int, tuple[Any, int]] = {}  # last -> (partial, first)

    def ready(self, partial: Any, first: int, last: int) -> Optional[Pairing]:
        """``partial`` (covering partitions ``first..last``) is ready: the pair to add now, or None
        when no neighbour is ready (it waits; the sum, once ready, comes back here)."""
        left = self._by_last.pop(first - 1, None)
        if left is not None:
            left_partial, left_first = left
            del self._by_first[left_first]
            return Pairing(left_partial, partial, left_first, last)
        right = self._by_first.pop(last + 1, None)
        if right is not None:
            right_partial, right_last = right
            del self._by_last[right_last]
            return Pairing(partial, right_partial, first, right_last)
        self._by_first[first] = (partial, last)
        self._by_last[last] = (partial, first)
        return None

    def whole(self) -> Any:
        """The one partial left, covering every partition from 0 (KeyError before it is there)."""
        return self._by_first[0][0]
