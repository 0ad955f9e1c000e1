"""An :class:`~tokenizer_core.types.Encoding` whose lists are made when they are first read.

The compiled kernel encodes a text into four columns (ids, character starts and ends, piece
numbers), each the bytes of a native array. Turning them into an Encoding's Python lists (an int
per id, a tuple per offset pair, ...) costs more than the encoding itself, and a batch's objects
are made one at a time under the GIL, so threads cannot share that work. A ``PackedEncoding``
keeps the columns and makes each list on first use, as ``tokenizers`` keeps its encodings in
Rust until a field is read. Once made, a list is an ordinary attribute: code that reads, sets or
mutates an Encoding's lists sees no difference, and equality, ``repr``, pickling and
``dataclasses.replace`` give what a plain Encoding gives.

>>> from array import array
>>> packed = (array("i", [5, 6]).tobytes(), array("q", [0, 2]).tobytes(), array("q", [2, 3]).tobytes(),
...           array("q", [0, 1]).tobytes(), 0, ["x"] * 5 + ["hi", "!"])
>>> enc = PackedEncoding.from_packed(packed)
>>> len(enc), enc.ids, enc.tokens, enc.offsets, enc.word_ids
(2, [5, 6], ['hi', '!'], [(0, 2), (2, 3)], [0, 1])
>>> from tokenizer_core.types import Encoding, Token
>>> enc == Encoding.from_tokens([Token(5, "hi", (0, 2)), Token(6, "!", (2, 3))], word_ids=[0, 1])
True
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any, Optional

from tokenizer_core.types import Encoding

__all__ = ["PackedEncoding"]

#: (ids, starts, ends, word_ids, sequence_id, token strings by id): the kernel's packed row.
Packed = tuple[bytes, bytes, bytes, bytes, int, list]

_FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids",
           "sequence_ids", "overflowing")


def _column(data: bytes, code: str) -> array:
    out = array(code)
    out.frombytes(data)
    return out


def _tokens(enc: PackedEncoding, packed: Packed) -> list[Optional[str]]:
    strs = packed[5]
    return list(map(strs.__getitem__, enc.ids))


def _count(packed: Packed) -> int:
    return len(packed[0]) // 4


_MAKERS: dict[str, Callable[[PackedEncoding, Packed], Any]] = {
    "ids": lambda enc, p: _column(p[0], "i").tolist(),
    "tokens": _tokens,
    "offsets": lambda enc, p: list(zip(_column(p[1], "q"), _column(p[2], "q"))),
    "type_ids": lambda enc, p: [p[4]] * _count(p),
    "attention_mask": lambda enc, p: [1] * _count(p),
    "special_tokens_mask": lambda enc, p: [0] * _count(p),
    "word_ids": lambda enc, p: _column(p[3], "q").tolist(),
    "sequence_ids": lambda enc, p: [p[4]] * _count(p),
    "overflowing": lambda enc, p: [],
}


class PackedEncoding(Encoding):
    """An Encoding made from the kernel's packed columns; each list appears when first read.

    Objects come from :meth:`from_packed` or from the kernel itself (``encode_batch(packed=True,
    encoding=PackedEncoding)``), with only ``_packed`` set. Built the usual way (``PackedEncoding(ids=...)``,
    as ``dataclasses.replace`` and unpickling do) it is a plain Encoding with every list set.
    """

    __slots__ = ("_packed",)

    @classmethod
    def from_packed(cls, packed: Packed) -> PackedEncoding:
        """The encoding of a packed row: ``(ids, starts, ends, word_ids, sequence_id, token_strs)``."""
        obj = cls.__new__(cls)
        obj._packed = packed
        return obj

    def __getattr__(self, name: str) -> Any:
        # Called only for a slot not set yet: make that list from the columns, once.
        maker = _MAKERS.get(name)
        if maker is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        try:
            packed = PackedEncoding._packed.__get__(self)  # type: ignore[attr-defined]
        except AttributeError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None
        value = maker(self, packed)
        object.__setattr__(self, name, value)
        return value

    def __len__(self) -> int:
        try:
            return len(Encoding.ids.__get__(self))  # type: ignore[attr-defined]
        except AttributeError:
            return _count(PackedEncoding._packed.__get__(self))  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  (as a plain Encoding: mutable, unhashable)
