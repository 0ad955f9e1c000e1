"""The packed columns: the one layout in which the kernel hands a text's tokens to Python.

For ``n`` tokens one bytes object holds ``n`` int32 ids, then ``n`` int64 character starts, ``n``
int64 ends and ``n`` int64 word ids, in native byte order (``result_packed`` in kernels/src/encode.c
writes them; the chunk table's rows are the same). This module alone knows the layout: the offsets
below are named, and :class:`~tokenizer_core.fast.packed.PackedEncoding`, the chunk table and the
byte-level path read and write columns through it.

>>> cols = pack([5, 6], [0, 2], [2, 3], [0, 1])
>>> rows(cols), column(cols, IDS).tolist(), column(cols, ENDS).tolist()
(2, [5, 6], [2, 3])
>>> column(join([cols, pack([7], [0], [1], [0])]), STARTS).tolist()
[0, 2, 0]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from itertools import chain
from struct import Struct
from typing import Optional

__all__ = ["ENDS", "ID_MAX", "IDS", "ROW_BYTES", "STARTS", "WORDS", "ColumnBuilder", "column", "join", "pack",
           "ONE_ROW", "concat_shifted", "rows", "with_ids", "with_positions"]

#: The columns, in their order in the bytes.
IDS, STARTS, ENDS, WORDS = range(4)
ID_BYTES = 4  # int32, array("i")
POS_BYTES = 8  # int64, array("q")
#: Bytes per token: an id and three positions.
ROW_BYTES = ID_BYTES + 3 * POS_BYTES  # PACKED_ROW_BYTES in kernels/src/kernel.h (tests/kernel/test_packed_encoding.py holds them equal)
#: The largest id an int32 column holds.
ID_MAX = 2**31 - 1
_TYPECODE = ("i", "q", "q", "q")


def rows(packed: bytes) -> int:
    """How many tokens ``packed`` holds."""
    return len(packed) // ROW_BYTES


def _bounds(n: int, k: int) -> tuple[int, int]:
    """Where column ``k`` of ``n`` tokens lies in the bytes."""
    if k == IDS:
        return 0, ID_BYTES * n
    start = ID_BYTES * n + POS_BYTES * n * (k - 1)
    return start, start + POS_BYTES * n


def column(packed: bytes, k: int) -> array:
    """Column ``k`` (:data:`IDS`, :data:`STARTS`, :data:`ENDS` or :data:`WORDS`) as an array."""
    a, b = _bounds(rows(packed), k)
    out = array(_TYPECODE[k])
    out.frombytes(memoryview(packed)[a:b])
    return out


def pack(ids: Iterable[int], starts: Iterable[int], ends: Iterable[int], words: Iterable[int]) -> bytes:
    """The columns of these tokens (ids must fit an int32: :data:`ID_MAX`)."""
    return b"".join(array(code, values).tobytes() for code, values in zip(_TYPECODE, (ids, starts, ends, words)))


def join(parts: Sequence[bytes]) -> bytes:
    """The columns of several runs of tokens, one run after the other."""
    if len(parts) == 1:
        return parts[0]
    cols = [array(code) for code in _TYPECODE]
    for part in parts:
        n, view = rows(part), memoryview(part)
        for k, col in enumerate(cols):
            a, b = _bounds(n, k)
            col.frombytes(view[a:b])
    return b"".join(c.tobytes() for c in cols)


def with_positions(packed: bytes, starts: bytes, ends: bytes) -> bytes:
    """``packed`` with its start and end columns replaced (as many int64, native order).

    >>> column(with_positions(pack([5], [0], [1], [0]), pack([], [7], [], [])[0:8], pack([], [9], [], [])[0:8]), ENDS)
    array('q', [9])
    """
    n = rows(packed)
    if len(starts) != POS_BYTES * n or len(ends) != POS_BYTES * n:
        raise ValueError(f"{n} tokens need {POS_BYTES * n} bytes of starts and of ends")
    return packed[:ID_BYTES * n] + starts + ends + packed[_bounds(n, WORDS)[0]:]


#: One token's packed row: the layout above for n = 1 (``=``: native order, no padding).
ONE_ROW = Struct("=iqqq")


def concat_shifted(parts: Sequence[bytes], bases: Sequence[int], words: Sequence[int]) -> bytes:
    """The packed rows ``parts`` one after the other, each one's positions moved by its base and its
    word ids by its word: in the kernel in one pass when it is there.

    >>> joined = concat_shifted([pack([5], [0], [2], [0]), ONE_ROW.pack(9, 0, 1, 0)], [3, 5], [0, 1])
    >>> [column(joined, k).tolist() for k in (IDS, STARTS, ENDS, WORDS)]
    [[5, 9], [3, 5], [5, 6], [0, 1]]
    """
    from tokenizer_core.kernel import native  # (the layout itself needs no kernel)

    parts = list(parts)
    concat = getattr(native.kernel(), "concat_shifted", None) if native.available() else None
    if concat is not None:
        return concat(parts, array("q", bases).tobytes(), array("q", words).tobytes())
    builder = ColumnBuilder()
    for part, base, word in zip(parts, bases, words):
        builder.add_shifted(part, base, word)
    return builder.joined() if builder.count else b""


def with_ids(packed: bytes, ids: array) -> bytes:
    """``packed`` with its id column replaced by ``ids`` (as many, an ``array("i")``)."""
    return ids.tobytes() + packed[_bounds(rows(packed), IDS)[1]:]


class ColumnBuilder:
    """The columns of one encoding, gathered part by part (kernel results and single rows, such as
    added tokens) and joined once.

    >>> b = ColumnBuilder()
    >>> b.add(pack([5], [0], [2], [0])); b.row(9, 2, 5, 1)
    True
    >>> column(b.joined(), IDS).tolist(), b.count
    ([5, 9], 2)
    """

    _ID, _POS = Struct("=i"), Struct("=q")  # native order, standard sizes: array("i") and array("q")
    #: The largest id a row takes (:data:`ID_MAX`; tests lower it to send every added id past it).
    id_max = ID_MAX

    def __init__(self) -> None:
        #: Tokens gathered so far: the position of the next one.
        self.count = 0
        self._parts: list[list[object]] = [[], [], [], []]
        self._only: Optional[bytes] = None  # the one kernel result, while it is the only part

    def add(self, packed: bytes) -> None:
        """Append a kernel result (its four columns, each one slice of ``packed``)."""
        n = rows(packed)
        if n == 0:
            return
        self._only = None if self._parts[IDS] else packed
        view = memoryview(packed)
        for k in range(4):
            a, b = _bounds(n, k)
            self._parts[k].append(view[a:b])
        self.count += n

    def add_shifted(self, packed: bytes, base: int, first_word: int) -> None:
        """Append a kernel result for a part of a text: its positions moved by ``base`` and its word
        ids by ``first_word`` (in bulk: numpy, not a Python step per token)."""
        n = rows(packed)
        if n == 0:
            return
        if base == 0 and first_word == 0:
            self.add(packed)
            return
        import numpy as np  # here: the core imports numpy only where it does bulk work

        self._only = None
        a, b = _bounds(n, IDS)
        self._parts[IDS].append(memoryview(packed)[a:b])
        for k, shift in ((STARTS, base), (ENDS, base), (WORDS, first_word)):
            a, b = _bounds(n, k)
            self._parts[k].append((np.frombuffer(packed, dtype=np.int64, count=n, offset=a) + shift).tobytes())
        self.count += n

    def row(self, token_id: int, start: int, end: int, word: int) -> bool:
        """Append one token; False (nothing appended) when its id does not fit an int32 column."""
        if not 0 <= token_id <= self.id_max:
            return False
        self._only = None
        pos = self._POS.pack
        for k, value in enumerate((self._ID.pack(token_id), pos(start), pos(end), pos(word))):
            self._parts[k].append(value)
        self.count += 1
        return True

    def joined(self) -> bytes:
        """All the columns, in the layout above."""
        if self._only is not None:
            return self._only  # one kernel call and nothing else (the common case): no copy
        return b"".join(chain.from_iterable(self._parts))  # type: ignore[arg-type]
