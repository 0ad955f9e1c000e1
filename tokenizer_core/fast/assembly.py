"""An encoding put together from the cached encodings of its chunks, without a Python loop per token.

The chunked fast paths of :mod:`tokenizer_core.fast` remember each distinct chunk's tokens with
offsets relative to the chunk. A text is then the concatenation of its chunks' lists, each offset
moved by where its chunk starts: ``map``, ``chain``, ``repeat`` and ``zip`` do that work in C, so the
cost is a few operations per chunk, not per token.

>>> assemble([0, 4], [([1, 2], ["a", "b"], [0, 1], [1, 2], [0, 0], 1), ([3], ["c"], [1], [2], [0], 1)])
([1, 2, 3], ['a', 'b', 'c'], [(0, 1), (1, 2), (5, 6)], [0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate, chain, repeat
from operator import add, itemgetter
from typing import Any, NamedTuple, Optional

from tokenizer_core.types import Encoding, Offsets

__all__ = ["ChunkEntry", "ChunkSteps", "assemble", "assembled_encoding", "match_spans"]

class ChunkEntry(NamedTuple):
    """One chunk's tokens as every chunked fast path remembers them and the kernel's chunk table
    stores them: positions relative to the chunk, word ids relative to its first piece."""

    ids: list[int]
    tokens: list[str]
    starts: list[int]
    ends: list[int]
    words: list[int]
    pieces: int  # how many pieces (words) the chunk holds: the next chunk's word ids start after them

    @classmethod
    def of_tokens(cls, tokens: Sequence[Any], *, pieces: int) -> ChunkEntry:
        """The entry of a chunk that is one piece's model tokens (word ids all 0), from a model's
        ``tokenize``; ``pieces`` is 1 where chunks count as words, 0 where every token is word 0.

        >>> from tokenizer_core.types import Token
        >>> ChunkEntry.of_tokens([Token(4, "ab", (0, 2))], pieces=1)
        ChunkEntry(ids=[4], tokens=['ab'], starts=[0], ends=[2], words=[0], pieces=1)
        """
        return cls([t.id for t in tokens], [t.text for t in tokens], [t.offsets[0] for t in tokens],
                   [t.offsets[1] for t in tokens], [0] * len(tokens), pieces)


_IDS, _TOKENS, _STARTS, _ENDS, _WORDS, _PIECES = (itemgetter(k) for k in range(6))  # ChunkEntry's fields, in C
_flat = chain.from_iterable


def assemble(starts: Sequence[int], entries: Sequence[ChunkEntry], *, words: bool = True
             ) -> tuple[list[int], list[str], list[Offsets], Optional[list[int]]]:
    """``(ids, tokens, offsets, word_ids)`` of chunks found at ``starts`` with these ``entries``; word ids
    count on from one chunk to the next (``words=False``: None, the caller numbers them)."""
    counts = list(map(len, map(_IDS, entries)))
    bases = list(_flat(map(repeat, starts, counts)))
    ids = list(_flat(map(_IDS, entries)))
    tokens = list(_flat(map(_TOKENS, entries)))
    offsets = list(zip(map(add, bases, _flat(map(_STARTS, entries))), map(add, bases, _flat(map(_ENDS, entries)))))
    if not words:
        return ids, tokens, offsets, None
    first_words = accumulate(map(_PIECES, entries), initial=0)
    word_ids = list(map(add, _flat(map(repeat, first_words, counts)), _flat(map(_WORDS, entries))))
    return ids, tokens, offsets, word_ids


def assembled_encoding(starts: Sequence[int], entries: Sequence[ChunkEntry], sequence_id: int) -> Encoding:
    """The :class:`~tokenizer_core.types.Encoding` of chunks found at ``starts`` (see :func:`assemble`)."""
    ids, tokens, offsets, word_ids = assemble(starts, entries)
    return Encoding.from_columns(ids, tokens, offsets, word_ids=word_ids, sequence_id=sequence_id)


def match_spans(matches: Sequence[object]) -> tuple[list[int], list[str]]:
    """The starts and texts of ``regex`` matches (a list of them), read in C.

    >>> import regex
    >>> match_spans(list(regex.finditer(r"\\S+", "ab  c")))
    ([0, 4], ['ab', 'c'])
    """
    if not matches:
        return [], []
    kind = type(matches[0])
    return list(map(kind.start, matches)), list(map(kind.group, matches))  # type: ignore[attr-defined]


class ChunkSteps:
    """The general path's steps on one chunk alone (normalize, split, model), as
    :meth:`tokenizer_core.pipeline.Tokenizer._trace_text` takes them, offsets kept relative to the
    chunk: what every chunked fast path remembers. Each distinct piece's model tokens are
    remembered here (up to ``limit`` pieces).

    >>> from tokenizer_core.text.pre_tokenizers import WhitespaceSplit
    >>> from tokenizer_core.wordpiece.model import WordPiece
    >>> steps = ChunkSteps(None, WhitespaceSplit(), WordPiece({"[UNK]": 0, "hug": 1, "##s": 2}), limit=10)
    >>> steps.entry("hugs", at_start=True)
    ChunkEntry(ids=[1, 2], tokens=['hug', '##s'], starts=[0, 3], ends=[3, 4], words=[0, 0], pieces=1)
    """

    def __init__(self, normalizer: Any, pre_tokenizer: Any, model: Any, *, limit: int) -> None:
        self._normalizer, self._pre_tokenizer, self._model, self._limit = normalizer, pre_tokenizer, model, limit
        self._pieces: dict[str, list[tuple[int, str, int, int]]] = {}  # piece text -> its model tokens

    def _tokens(self, piece: str) -> list[tuple[int, str, int, int]]:
        found = self._pieces.get(piece)
        if found is None:
            found = [(t.id, t.text, *t.offsets) for t in self._model.tokenize(piece)]
            if len(self._pieces) < self._limit:
                self._pieces[piece] = found
        return found

    def entry(self, chunk: str, *, at_start: bool) -> ChunkEntry:
        """The chunk's :data:`ChunkEntry`; ``at_start``: the chunk begins its text."""
        if self._normalizer is None:
            text, to_original = chunk, None
        else:
            ns = self._normalizer.normalize(chunk)
            text, to_original = ns.text, ns.original_span
        ids: list[int] = []
        tokens: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        words: list[int] = []
        pieces = self._pre_tokenizer.split_at(text, at_start=at_start)
        for word, piece in enumerate(pieces):
            span = piece.token_span
            for tid, token, s, e in self._tokens(piece.text):
                a, b = span(s, e)
                if to_original is not None:
                    a, b = to_original(a, b)
                ids.append(tid)
                tokens.append(token)
                starts.append(a)
                ends.append(b)
                words.append(word)
        return ChunkEntry(ids, tokens, starts, ends, words, len(pieces))
