"""The prefix tree of vocabulary pieces that Unigram lattices are built from.

>>> PieceTrie([("▁", 0, -2.0), ("▁a", 1, -1.0)]).min_log_prob
-2.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

from tokenizer_core.errors import TokenizerError

_TERMINAL = ""  # trie key holding (id, log_prob); never a character, so never a child key


class PieceTrie:
    """Prefix tree over vocabulary pieces: finds every piece starting at a position
    in at most ``max_piece_length`` steps, so building a lattice is linear in
    ``len(text) * max_piece_length``.

    >>> t = PieceTrie([("a", 0, -1.0), ("ab", 1, -2.0)])
    >>> list(t.matches("abc", 0))
    [(1, 0, -1.0), (2, 1, -2.0)]
    >>> t.max_piece_length, len(t)
    (2, 2)
    """

    def __init__(self, pieces: Iterable[tuple[str, int, float]]) -> None:
        self._root: dict[str, Any] = {}
        self._size = 0
        self.max_piece_length = 0
        self.min_log_prob = 0.0
        for piece, pid, log_prob in pieces:
            if not piece:
                raise TokenizerError("a vocabulary piece cannot be empty")
            if not math.isfinite(log_prob):
                raise TokenizerError(f"piece {piece!r} has log-probability {log_prob}; scores must be finite")
            node = self._root
            for ch in piece:
                node = node.setdefault(ch, {})
            if _TERMINAL not in node:
                self._size += 1
            node[_TERMINAL] = (pid, float(log_prob))
            self.max_piece_length = max(self.max_piece_length, len(piece))
            self.min_log_prob = min(self.min_log_prob, float(log_prob))

    def __len__(self) -> int:
        return self._size

    def matches(self, text: str, start: int) -> Iterator[tuple[int, int, float]]:
        """``(end, id, log_prob)`` of every piece equal to ``text[start:end]``, shortest first."""
        node = self._root
        for end in range(start, len(text)):
            node = node.get(text[end])
            if node is None:
                return
            hit = node.get(_TERMINAL)
            if hit is not None:
                yield end + 1, hit[0], hit[1]
