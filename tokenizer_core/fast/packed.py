"""An :class:`~tokenizer_core.types.Encoding` whose lists are made when they are first read.

The compiled kernel encodes a text into four columns (ids, character starts and ends, piece
numbers) held in one bytes object. Turning them into an Encoding's Python lists (an int
per id, a tuple per offset pair, ...) costs more than the encoding itself, and a batch's objects
are made one at a time under the GIL, so threads cannot share that work. A ``PackedEncoding``
keeps the columns and makes each list on first use, as ``tokenizers`` keeps its encodings in
Rust until a field is read. Once made, a list is an ordinary attribute: code that reads, sets or
mutates an Encoding's lists sees no difference, and equality, ``repr``, pickling and
``dataclasses.replace`` give what a plain Encoding gives.

The kernel's own rows come from kernels/src/batch.c and kernels/src/encoder_batch.c (the slots), and
packed_ids from kernels/src/columns.c.

>>> from array import array
>>> columns = b"".join([array("i", [5, 6]).tobytes(), array("q", [0, 2, 2, 3, 0, 1]).tobytes()])
>>> enc = PackedEncoding.from_packed(columns, 0, ["x"] * 5 + ["hi", "!"])
>>> len(enc), enc.ids, enc.tokens, enc.offsets, enc.word_ids
(2, [5, 6], ['hi', '!'], [(0, 2), (2, 3)], [0, 1])
>>> from tokenizer_core.types import Encoding, Token
>>> enc == Encoding.from_tokens([Token(5, "hi", (0, 2)), Token(6, "!", (2, 3))], word_ids=[0, 1])
True

A token whose string is not the one its id has in that list (an added token beyond it, or matched
with the white space it strips) is given with its position:

>>> PackedEncoding.from_packed(columns, 0, ["x"] * 7, fixes=((0, "hi"),)).tokens
['hi', 'x']
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any, Optional

from tokenizer_core.fast import columns
from tokenizer_core.kernel import native
from tokenizer_core.types import Encoding

__all__ = ["PackedEncoding"]

_FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids",
           "sequence_ids", "overflowing")


def _count(enc: PackedEncoding) -> int:
    return columns.rows(enc._packed)


def _column(enc: PackedEncoding, k: int) -> array:
    return columns.column(enc._packed, k)


def _tokens(enc: PackedEncoding) -> list[str]:
    """Each id's string in ``_strs``, but at the positions in ``_fix`` the string given there."""
    strs = enc._strs.__getitem__
    try:
        fixes = PackedEncoding._fix.__get__(enc)  # type: ignore[attr-defined]
    except AttributeError:  # unset: the kernel's own objects, every token in the list
        return list(map(strs, enc.ids))
    # The positions are the columns': the ids are read there, not from a list the caller may have
    # changed. A fixed position's id may lie past the list: the ids between two fixes go in one go.
    ids = _column(enc, columns.IDS)
    out: list[str] = []
    prev = 0
    for at, text in fixes:
        out += map(strs, ids[prev:at])
        out.append(text)
        prev = at + 1
    out += map(strs, ids[prev:])
    return out


_MAKERS: dict[str, Callable[[PackedEncoding], Any]] = {
    "ids": lambda enc: _column(enc, columns.IDS).tolist(),
    "tokens": _tokens,
    "offsets": lambda enc: list(zip(_column(enc, columns.STARTS), _column(enc, columns.ENDS))),
    "type_ids": lambda enc: [enc._seq] * _count(enc),
    "attention_mask": lambda enc: [1] * _count(enc),
    "special_tokens_mask": lambda enc: [0] * _count(enc),
    "word_ids": lambda enc: _column(enc, columns.WORDS).tolist(),
    "sequence_ids": lambda enc: [enc._seq] * _count(enc),
    "overflowing": lambda enc: [],
}


def _unread_ids(enc: Encoding) -> Optional[bytes]:
    """The packed row of a PackedEncoding whose ids list was not made yet (None otherwise: its list,
    which its owner may have changed, is what it holds)."""
    if type(enc) is not PackedEncoding:
        return None
    try:
        Encoding.ids.__get__(enc)  # type: ignore[attr-defined]
        return None
    except AttributeError:
        pass
    try:
        return PackedEncoding._packed.__get__(enc)  # type: ignore[attr-defined]
    except AttributeError:
        return None


def _packed_ids() -> Optional[Callable[[list[Encoding], type], list[Optional[list[int]]]]]:
    """The kernel's ``packed_ids`` (every row's ids in one call), or None without it."""
    if not native.available():
        return None
    return getattr(native.kernel(), "packed_ids", None)


class PackedEncoding(Encoding):
    """An Encoding made from the kernel's packed columns; each list appears when first read.

    Objects come from :meth:`from_packed` or from the kernel itself (``encode_batch(packed=True,
    encoding=PackedEncoding)``), with only ``_packed``, ``_seq`` and ``_strs`` set (and ``_fix``, from
    :meth:`from_packed` only). Built the usual way (``PackedEncoding(ids=...)``,
    as ``dataclasses.replace`` and unpickling do) it is a plain Encoding with every list set.
    """

    __slots__ = ("_packed", "_seq", "_strs", "_fix")

    @classmethod
    def from_packed(cls, packed: bytes, sequence_id: int, token_strs: list,
                    fixes: tuple[tuple[int, str], ...] = ()) -> PackedEncoding:
        """The encoding of a text from the kernel's columns (:mod:`tokenizer_core.fast.columns`), its
        sequence id and the token strings by id; ``fixes``: ``(position, string)`` pairs,
        by position, for the tokens whose string is not ``token_strs[id]`` (added tokens)."""
        obj = cls.__new__(cls)
        obj._packed, obj._seq, obj._strs = packed, sequence_id, token_strs
        if fixes:
            obj._fix = fixes
        return obj

    @classmethod
    def id_lists(cls, encodings: Sequence[Encoding]) -> list[list[int]]:
        """Each encoding's ids as a new list: the PackedEncodings whose ids were not read yet straight
        from their columns, all in one kernel call (``packed_ids``), the others from their lists.

        >>> row = columns.pack([5, 6], [0, 1], [1, 2], [0, 1])
        >>> PackedEncoding.id_lists([PackedEncoding.from_packed(row, 0, []), Encoding(ids=[7])])
        [[5, 6], [7]]
        """
        read = _packed_ids()
        encodings = list(encodings)
        out: list[Any] = [None] * len(encodings) if read is None else read(encodings, PackedEncoding)
        if None in out:
            for k, enc in enumerate(encodings):
                if out[k] is None:
                    packed = _unread_ids(enc)
                    out[k] = list(enc.ids) if packed is None else columns.column(packed, columns.IDS).tolist()
        return out

    def columns(self) -> bytes:
        """The kernel's columns this encoding was made from (:mod:`tokenizer_core.fast.columns`)."""
        return self._packed

    def token_strs(self) -> list:
        """The token strings by id that its tokens are read from."""
        return self._strs

    def _has_columns(self) -> bool:
        """Whether this encoding still holds the kernel's columns (not one built the usual way)."""
        try:
            PackedEncoding._packed.__get__(self)  # type: ignore[attr-defined]
        except AttributeError:
            return False
        return True

    def _fixes(self) -> tuple[tuple[int, str], ...]:
        """The ``(position, string)`` fixes of :meth:`from_packed` (none for the kernel's own objects)."""
        try:
            return PackedEncoding._fix.__get__(self)  # type: ignore[attr-defined]
        except AttributeError:
            return ()

    def __getattr__(self, name: str) -> Any:
        # Called only for a slot not set yet: make that list from the columns, once.
        maker = _MAKERS.get(name)
        if maker is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        try:
            PackedEncoding._packed.__get__(self)  # type: ignore[attr-defined]
        except AttributeError:  # built the usual way, a list deleted: as a plain Encoding says
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None
        value = maker(self)
        object.__setattr__(self, name, value)
        return value

    def __len__(self) -> int:
        try:
            return len(Encoding.ids.__get__(self))  # type: ignore[attr-defined]
        except AttributeError:
            return _count(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  (as a plain Encoding: mutable, unhashable)
