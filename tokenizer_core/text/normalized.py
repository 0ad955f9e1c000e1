"""A string that remembers where each of its characters came from.

Normalizers (lowercasing, Unicode normalisation, accent stripping) change the
text, sometimes its length too ("ﬁ" becomes "fi" under NFKC). To show tokens
over the user's *original* text, every normalized character keeps the span of
original characters it was produced from.

>>> ns = NormalizedString.from_str("Ab")
>>> ns.text, ns.align
('Ab', [(0, 1), (1, 2)])
>>> ns.original_span(0, 2)
(0, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.types import Offsets


@dataclass(frozen=True, slots=True)
class NormalizedString:
    """Normalized text plus, for each of its characters, the original span it came from."""

    text: str
    align: list[Offsets]
    original_length: int

    @classmethod
    def from_str(cls, text: str) -> "NormalizedString":
        """The identity normalisation of ``text``."""
        return cls(text, [(i, i + 1) for i in range(len(text))], len(text))

    def transform(self, units: Iterable[tuple[Optional[str], int, int]]) -> "NormalizedString":
        """Apply a change given as ``(output, i, j)`` units covering ``self.text[i:j]`` in order.

        Each output character inherits the original span of the input characters of its unit,
        so the alignment composes across any number of normalizers. An output of None keeps
        ``self.text[i:j]`` as it is, each character with its own span (a run the change leaves
        alone, copied in one go).

        >>> NormalizedString.from_str("abc").transform([(None, 0, 2), ("x", 2, 3)]).align
        [(0, 1), (1, 2), (2, 3)]
        """
        out: list[str] = []
        align: list[Offsets] = []
        old = self.align
        for piece, i, j in units:
            if piece is None:
                out.append(self.text[i:j])
                align.extend(old[i:j])
                continue
            if not piece:
                continue
            if j > i:
                span = (old[i][0], old[j - 1][1])
            else:  # inserted text (e.g. spaces around CJK) points at an empty span where it stands
                pos = old[i][0] if i < len(old) else self.original_length
                span = (pos, pos)
            out.append(piece)
            align.extend([span] * len(piece))
        return NormalizedString("".join(out), align, self.original_length)

    def remap(self, items: Iterable[tuple[str, int]]) -> "NormalizedString":
        """A new text given as ``(piece, source)`` items: every character of ``piece`` takes the
        original span of this text's character ``source`` (``-1``: the empty span at the start).

        This is how ``tokenizers`` aligns an edit: each output character inherits the span of
        exactly one input character (never a union), so a replaced run points at its last
        character and an inserted one at its neighbour.

        >>> NormalizedString.from_str("ab").remap([("x", 0), ("yz", 1), ("!", -1)]).align
        [(0, 1), (1, 2), (1, 2), (0, 0)]
        """
        out: list[str] = []
        align: list[Offsets] = []
        old = self.align
        for piece, src in items:
            if not piece:
                continue
            out.append(piece)
            align.extend([old[src] if src >= 0 else (0, 0)] * len(piece))
        return NormalizedString("".join(out), align, self.original_length)

    def original_span(self, start: int, end: int) -> Offsets:
        """Original span covered by normalized characters ``start:end`` (empty if start == end)."""
        if start >= end:
            pos = self.align[start][0] if start < len(self.align) else self.original_length
            return (pos, pos)
        # Every normalizer keeps the alignment monotone (characters never move past each other:
        # reordered combining marks share their chunk's span), so the last end is the largest.
        return (self.align[start][0], self.align[end - 1][1])

    def __len__(self) -> int:
        return len(self.text)


def sources_of_changes(changes: Iterable[tuple[str, int]], *, skip: int = 0) -> Iterator[tuple[str, int]]:
    """``(char, source)`` items (see :meth:`NormalizedString.remap`) for an edit written as
    ``tokenizers`` writes them: ``(char, change)`` with change 0 for a character that takes the
    place of the next input character, ``-k`` for one that also swallows the ``k`` after it,
    ``1`` for an inserted character (it points at the input character before it); ``skip``
    input characters are dropped first.

    >>> list(sources_of_changes([("f", 0), ("i", 1), ("x", -1), ("y", 0)]))
    [('f', 0), ('i', 0), ('x', 1), ('y', 3)]
    """
    pos = skip
    for ch, change in changes:
        if change > 0:
            yield ch, pos - 1
        else:
            yield ch, pos
            pos += 1 - change


def unit_alignment(text: str, units: Iterable[tuple[Optional[str], int, int]]) -> tuple[str, Any, Any]:
    """What ``NormalizedString.from_str(text).transform(units)`` gives, its alignment as two int64
    numpy arrays (each output character's original start and end) instead of a tuple a character:
    for a whole text of a million characters a few numpy calls instead of a million tuples.

    >>> out, starts, ends = unit_alignment("abc", [(None, 0, 2), ("xy", 2, 3), ("!", 3, 3)])
    >>> out, starts.tolist(), ends.tolist()
    ('abxy!', [0, 1, 2, 2, 3], [1, 2, 3, 3, 3])
    """
    import numpy as np

    out: list[str] = []
    lens: list[int] = []
    lo: list[int] = []
    hi: list[int] = []
    same: list[int] = []
    for piece, i, j in units:
        if piece is None:  # kept: each character its own span
            out.append(text[i:j])
            lens.append(j - i)
            lo.append(i)
            hi.append(j)
            same.append(1)
        elif piece:  # every output character takes the unit's span (an insertion: empty, where it stands)
            out.append(piece)
            lens.append(len(piece))
            lo.append(i)
            hi.append(j)
            same.append(0)
    n = np.array(lens, dtype=np.int64)
    total = int(n.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    kept = np.repeat(np.array(same, dtype=np.int64), n)
    starts = np.repeat(np.array(lo, dtype=np.int64), n) + within * kept
    ends = np.where(kept == 1, starts + 1, np.repeat(np.array(hi, dtype=np.int64), n))
    return "".join(out), starts, ends


def original_spans(starts: Any, ends: Any, length: int, token_starts: Any, token_ends: Any) -> tuple[Any, Any]:
    """:meth:`NormalizedString.original_span` of many spans at once, over an alignment as
    :func:`unit_alignment` gives it (``length``: the original text's); numpy arrays in and out.

    >>> import numpy as np
    >>> _, s, e = unit_alignment("abc", [(None, 0, 2), ("xy", 2, 3)])
    >>> [a.tolist() for a in original_spans(s, e, 3, np.array([0, 2, 4]), np.array([2, 4, 4]))]
    [[0, 2, 3], [2, 3, 3]]
    """
    import numpy as np

    n = len(starts)
    token_starts = np.asarray(token_starts, dtype=np.int64)
    token_ends = np.asarray(token_ends, dtype=np.int64)
    if n == 0:
        at = np.full(len(token_starts), length, dtype=np.int64)
        return at, at.copy()
    first = np.where(token_starts < n, starts[np.minimum(token_starts, n - 1)], length)
    last = ends[np.clip(token_ends - 1, 0, n - 1)]
    return first, np.where(token_starts >= token_ends, first, last)
