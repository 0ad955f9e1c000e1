"""An encoding put together from the cached encodings of its chunks, without a Python loop per token.

The chunked fast paths (:mod:`tokenizer_core.fast_paths`, :mod:`tokenizer_core.sentencepiece_fast`)
remember each distinct chunk's tokens with offsets relative to the chunk. A text is then the
concatenation of its chunks' lists, each offset moved by where its chunk starts: ``map``, ``chain``,
``repeat`` and ``zip`` do that work in C, so the cost is a few operations per chunk, not per token.

>>> assemble([0, 4], [([1, 2], ["a", "b"], [0, 1], [1, 2], [0, 0], 1), ([3], ["c"], [1], [2], [0], 1)])
([1, 2, 3], ['a', 'b', 'c'], [(0, 1), (1, 2), (5, 6)], [0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate, chain, repeat
from operator import add, itemgetter
from typing import Optional

from tokenizer_core.types import Offsets

__all__ = ["ChunkEntry", "assemble", "match_spans"]

#: A chunk's ids, tokens, token starts and ends (relative to the chunk), word ids (relative to its
#: first piece) and number of pieces.
ChunkEntry = tuple[list[int], list[str], list[int], list[int], list[int], int]

_IDS, _TOKENS, _STARTS, _ENDS, _WORDS, _PIECES = (itemgetter(k) for k in range(6))
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
