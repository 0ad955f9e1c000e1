"""What every pre-tokenizer shares: :class:`Piece` records with offsets, the base class, and :class:`Sequence`.

>>> Piece("▁hi", 0, 2, ((0, 1), (0, 1), (1, 2))).token_span(1, 3)
(0, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import Component, build, register
from tokenizer_core.types import Offsets, Token


class Piece(NamedTuple):
    """A piece of text and where it came from.

    ``start``/``end`` are the input span; ``spans`` gives, per piece character, its
    input span (``None`` means the piece is the input slice itself, character for character).
    """

    text: str
    start: int
    end: int
    spans: Optional[tuple[Offsets, ...]] = None

    def char_span(self, k: int) -> Offsets:
        """Input span of piece character ``k``."""
        if self.spans is None:
            return (self.start + k, self.start + k + 1)
        return self.spans[k]

    def token_span(self, s: int, e: int) -> Offsets:
        """Input span of the piece characters ``s:e`` (a token inside the piece)."""
        if self.spans is None:
            return (self.start + s, self.start + e)
        if s >= e:
            return (self.spans[s][0], self.spans[s][0]) if s < len(self.spans) else (self.end, self.end)
        return (self.spans[s][0], max(sp[1] for sp in self.spans[s:e]))


@dataclass(frozen=True, slots=True)
class PieceTrace:
    """One pre-tokenized piece, where it came from (input offsets), and the model's tokens for it."""

    text: str
    offsets: Offsets
    tokens: list[Token]


class PreTokenizer(Component):
    """Base class. Subclasses implement ``split`` and may speed up ``words``; one whose pieces
    depend on where the text sits in the input (Metaspace) also overrides ``split_at``, which
    the pipeline and :class:`Sequence` call."""

    type_name = "PreTokenizer"

    def split(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def split_at(self, text: str, *, at_start: bool) -> list[Piece]:
        """``split``, told whether ``text`` begins the original input (it matters to Metaspace's
        ``prepend_scheme="first"``: text after an added token is not the start)."""
        return self.split(text)

    def pre_tokenize_str(self, text: str) -> list[tuple[str, Offsets]]:
        return [(p.text, (p.start, p.end)) for p in self.split(text)]

    def words(self, text: str) -> list[str]:
        return [p.text for p in self.split(text)]


@register("pre_tokenizer", "Sequence")
class Sequence(PreTokenizer):
    """Apply pre-tokenizers in turn, each one splitting the pieces of the previous one."""

    type_name = "Sequence"

    def __init__(self, pre_tokenizers: list[PreTokenizer]) -> None:
        if not pre_tokenizers:
            raise TokenizerError("a Sequence pre-tokenizer needs at least one pre-tokenizer")
        self.pre_tokenizers = list(pre_tokenizers)

    def words(self, text: str) -> list[str]:
        pieces = [text]
        for pt in self.pre_tokenizers:
            pieces = [w for p in pieces for w in pt.words(p)]
        return pieces

    def split(self, text: str) -> list[Piece]:
        return self.split_at(text, at_start=True)

    def split_at(self, text: str, *, at_start: bool) -> list[Piece]:
        pieces = [Piece(text, 0, len(text))]
        for pt in self.pre_tokenizers:
            nxt: list[Piece] = []
            for outer in pieces:
                inner_pieces = pt.split_at(outer.text, at_start=at_start and outer.start == 0)
                for inner in inner_pieces:
                    n = len(inner.text)
                    spans = tuple(outer.token_span(*_inner_range(inner, k)) for k in range(n))
                    start, end = outer.token_span(inner.start, inner.end)
                    identity = all(spans[k] == (start + k, start + k + 1) for k in range(n))
                    nxt.append(Piece(inner.text, start, end, None if identity else spans))
            pieces = nxt
        return pieces

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "pre_tokenizers": [p.to_dict() for p in self.pre_tokenizers]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Sequence":
        return cls([build("pre_tokenizer", d) for d in data["pre_tokenizers"]])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [p.to_hf() for p in self.pre_tokenizers]}

    def __repr__(self) -> str:
        return f"Sequence({self.pre_tokenizers!r})"


def _inner_range(inner: Piece, k: int) -> tuple[int, int]:
    """Outer-piece character range that character ``k`` of an inner piece came from."""
    s, e = inner.char_span(k)
    return s, max(e, s)
