r"""The trie of a ``precompiled_charsmap``: the one reader of the blob both normalizers that use it share.

A SentencePiece model carries its normalization rule (``nmt_nfkc``, ``nfkc``, a custom table)
compiled into one blob, which ``tokenizers`` keeps as its ``Precompiled`` normalizer: a
little-endian 32-bit size, a double-array trie of that many bytes (darts-clone's layout: 32-bit
units holding a label byte, a leaf flag and an offset to the children) whose keys are UTF-8
strings, then NUL-ended replacement strings that the trie's leaves point into.

Two rules read it: ``tokenizers``' (:mod:`tokenizer_core.text.precompiled`: the shortest key that
starts a grapheme) and SentencePiece's (:mod:`tokenizer_core.unigram.charsmap`: the longest key at
each position). Both walk it here, a character at a time.

>>> from tokenizer_core.text.precompiled import charsmap_blob
>>> trie = CharsmapTrie(charsmap_blob({"ab": "x", "a": "y"}))
>>> pos, rep = trie.walk(trie.root, "a"); rep, trie.walk(pos, "b")[1], trie.walk(pos, "c")
('y', 'x', None)
"""

from __future__ import annotations

import sys
from array import array
from typing import Optional

from tokenizer_core.errors import FormatError

__all__ = ["CharsmapTrie", "Step"]

LEAF_BIT = 1 << 8
VALUE_MASK = (1 << 31) - 1
LABEL_MASK = (1 << 31) | 0xFF
#: (trie position after a character, the replacement of the key ending there or None); None: no key goes on.
Step = Optional[tuple[int, Optional[str]]]


def _offset(unit: int) -> int:
    # 21 bits of offset, shifted 8 further when bit 9 is set (darts-clone's large tries).
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


class CharsmapTrie:
    """The units and replacement strings of a ``precompiled_charsmap`` blob (FormatError if malformed)."""

    def __init__(self, blob: bytes) -> None:
        if len(blob) < 4:
            raise FormatError("the normalization table (precompiled_charsmap) is shorter than its 4-byte header")
        size = int.from_bytes(blob[:4], "little")
        if size == 0 or size % 4 or 4 + size > len(blob):
            raise FormatError(f"the normalization table's trie size {size} does not fit its {len(blob)} bytes")
        units = array("I")
        if units.itemsize != 4:  # pragma: no cover - every platform we run on has 32-bit unsigned ints
            units = array("L")
        units.frombytes(blob[4:4 + size])
        if sys.byteorder == "big":  # pragma: no cover - the blob is little-endian
            units.byteswap()
        self.blob = bytes(blob)
        self.units = units
        self._strings = blob[4 + size:]
        #: The position every key starts from.
        self.root = _offset(units[0])
        self._replacements: dict[int, str] = {}

    def replacement(self, value: int) -> str:
        """The NUL-ended replacement string at byte ``value`` of the strings."""
        hit = self._replacements.get(value)
        if hit is None:
            end = self._strings.find(b"\0", value)
            if value >= len(self._strings) or end < 0:
                raise FormatError(f"the normalization table points at byte {value}, outside its strings")
            try:
                hit = self._strings[value:end].decode("utf-8")
            except UnicodeDecodeError:
                raise FormatError(f"the normalization table's string at byte {value} is not UTF-8") from None
            self._replacements[value] = hit
        return hit

    def walk(self, pos: int, ch: str) -> Step:
        """Follow the UTF-8 bytes of ``ch`` from position ``pos``."""
        units = self.units
        unit = 0
        for b in ch.encode("utf-8"):
            pos ^= b
            if pos >= len(units):
                return None
            unit = units[pos]
            if unit & LABEL_MASK != b:  # the label must be this byte
                return None
            pos ^= _offset(unit)
        if unit & LEAF_BIT and pos < len(units):  # a key ends here: its leaf holds the string's offset
            return pos, self.replacement(units[pos] & VALUE_MASK)
        return pos, None

    def next_bytes(self, pos: int) -> frozenset[int]:
        """The first bytes of the characters some key continues with after position ``pos``."""
        units = self.units
        # The children of a node all sit in the 256-unit block its position falls in.
        return frozenset(b for b in range(1, 256) if (pos ^ b) < len(units) and units[pos ^ b] & LABEL_MASK == b)
