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

from collections.abc import Iterable
from dataclasses import dataclass

from .types import Offsets


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

    def transform(self, units: Iterable[tuple[str, int, int]]) -> "NormalizedString":
        """Apply a change given as ``(output, i, j)`` units covering ``self.text[i:j]`` in order.

        Each output character inherits the original span of the input characters of its unit,
        so the alignment composes across any number of normalizers.
        """
        out: list[str] = []
        align: list[Offsets] = []
        old = self.align
        for piece, i, j in units:
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
