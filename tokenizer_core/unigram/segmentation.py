"""Paths through a Unigram lattice: its edges (one piece each) and whole segmentations.

>>> LatticeEdge(0, 2, "ab", 7, -1.5).to_dict()["piece"]
'ab'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LatticeEdge:
    """One piece covering ``text[start:end]``; ``unknown`` marks the fallback for an uncovered character."""

    start: int
    end: int
    piece: str
    id: int
    log_prob: float
    unknown: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "piece": self.piece, "id": self.id,
                "log_prob": self.log_prob, "unknown": self.unknown}


@dataclass(frozen=True, slots=True)
class Segmentation:
    """A path through the lattice; ``log_prob`` is the sum of its edges' log-probabilities.

    >>> s = Segmentation((LatticeEdge(0, 1, "a", 3, -1.0), LatticeEdge(1, 2, "b", 4, -2.0)), -3.0)
    >>> s.pieces, s.ids, s.boundaries
    (['a', 'b'], [3, 4], [0, 1, 2])
    """

    edges: tuple[LatticeEdge, ...]
    log_prob: float

    @property
    def pieces(self) -> list[str]:
        return [e.piece for e in self.edges]

    @property
    def ids(self) -> list[int]:
        return [e.id for e in self.edges]

    @property
    def boundaries(self) -> list[int]:
        """The nodes the path visits, ``0`` to ``len(text)``."""
        return [self.edges[0].start] + [e.end for e in self.edges] if self.edges else [0]

    def to_dict(self) -> dict[str, Any]:
        return {"pieces": self.pieces, "ids": self.ids, "boundaries": self.boundaries, "log_prob": self.log_prob}


def backtrack(back_start: Sequence[int], back_id: Sequence[int], end: int) -> list[tuple[int, int, int]]:
    """The ``(start, end, id)`` spans of a Viterbi path, read back from ``end`` through the
    back-pointers (``back_start[e]``/``back_id[e]``: the best edge ending at ``e``).

    >>> backtrack([0, 0, 0, 1], [0, 7, 8, 9], 3)
    [(0, 1, 7), (1, 3, 9)]
    """
    out = []
    pos = end
    while pos > 0:
        s = back_start[pos]
        out.append((s, pos, back_id[pos]))
        pos = s
    out.reverse()
    return out

