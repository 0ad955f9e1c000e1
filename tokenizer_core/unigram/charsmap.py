r"""SentencePiece's precompiled normalization table (``precompiled_charsmap``).

A ``.model`` file carries its normalization rule (``nmt_nfkc``, ``nfkc``, a custom rule
table) compiled into one blob: a little-endian 32-bit size, a double-array trie of that
many bytes (the darts-clone layout: 32-bit units holding a label byte, an offset to the
children and a leaf flag) whose keys are UTF-8 strings, then the replacement strings, each
ended by a NUL byte, which the trie's leaf values point into. Normalizing looks up the
longest key at each position and writes its replacement; text no key matches stays as it is.

Lookups walk the trie one character at a time and remember each step, so a text costs a
few dictionary look-ups per character once its characters have been seen.

>>> table = PrecompiledCharsmap.from_rules({"\ufb01": "fi", "A\u030a": "\u00c5", "A": "a"})
>>> table.longest_match("\ufb01x", 0), table.longest_match("A\u030ab", 0), table.longest_match("Ab", 0)
(('fi', 1), ('Å', 2), ('a', 1))
>>> table.longest_match("xyz", 0) is None
True
"""

from __future__ import annotations

import functools
import sys
from array import array
from collections.abc import Mapping
from typing import Optional, Union

from tokenizer_core.errors import FormatError

_LEAF_BIT = 1 << 8
_VALUE_MASK = (1 << 31) - 1
_LABEL_MASK = (1 << 31) | 0xFF

Step = Optional[tuple[int, Optional[str]]]  # (trie position after a character, replacement ending there)


def _offset(unit: int) -> int:
    # Offsets are stored in 21 bits, shifted left by 8 more when bit 9 is set (for large tries).
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


class PrecompiledCharsmap:
    """Longest-match string replacement read from a ``precompiled_charsmap`` blob."""

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
        self._units = units
        self._strings = blob[4 + size:]
        self._root = _offset(units[0])
        self._steps: dict[int, dict[str, Step]] = {}
        self._replacements: dict[int, str] = {}
        self._rules: dict[str, tuple[Optional[str], frozenset[int]]] = {}

    @classmethod
    def from_rules(cls, rules: Mapping[str, str]) -> "PrecompiledCharsmap":
        """Compile a small table (for tests and examples; real tables come from ``.model`` files)."""
        from tokenizer_core.unigram.charsmap_builder import compile_charsmap

        return cls(compile_charsmap(rules))

    def _replacement(self, value: int) -> str:
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

    def _walk(self, pos: int, ch: str) -> Step:
        units = self._units
        unit = 0
        for b in ch.encode("utf-8"):
            pos ^= b
            if pos >= len(units):
                return None
            unit = units[pos]
            if unit & _LABEL_MASK != b:
                return None
            pos ^= _offset(unit)
        if unit & _LEAF_BIT and pos < len(units):
            return pos, self._replacement(units[pos] & _VALUE_MASK)
        return pos, None

    def step(self, pos: int, ch: str) -> Step:
        """Follow one character from trie position ``pos`` (``None``: no key continues with it)."""
        row = self._steps.get(pos)
        if row is None:
            row = self._steps[pos] = {}
        try:
            return row[ch]
        except KeyError:
            hit = row[ch] = self._walk(pos, ch)
            return hit

    def longest_match(self, text: str, start: int) -> Optional[tuple[str, int]]:
        """``(replacement, end)`` of the longest key at ``text[start:]`` (``None`` if none starts there)."""
        pos = self._root
        best = None
        for k in range(start, len(text)):
            hit = self.step(pos, text[k])
            if hit is None:
                break
            pos, rep = hit
            if rep is not None:
                best = (rep, k + 1)
        return best

    def starts_key(self, ch: str) -> bool:
        """Whether some key begins with ``ch``."""
        return self.step(self._root, ch) is not None

    def char_rule(self, ch: str) -> tuple[Optional[str], frozenset[int]]:
        """What the table does with ``ch`` alone, and with what may follow it.

        ``(replacement, bytes)``: the replacement of the one-character key ``ch`` (``None``
        if there is none), and the first UTF-8 bytes of the characters that continue some
        longer key starting with ``ch``. A text in which no character follows one whose
        bytes include its first byte needs no look-ahead: each character maps on its own.
        """
        hit = self._rules.get(ch)
        if hit is None:
            step = self.step(self._root, ch)
            if step is None:
                hit = (None, frozenset())
            else:
                pos, units = step[0], self._units
                # The children of a node all sit in the 256-unit block its position falls in.
                follow = frozenset(b for b in range(1, 256) if (pos ^ b) < len(units)
                                   and units[pos ^ b] & _LABEL_MASK == b)
                hit = (step[1], follow)
            self._rules[ch] = hit
        return hit

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PrecompiledCharsmap) and other.blob == self.blob

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PrecompiledCharsmap({len(self.blob):,} bytes)"


def charsmap_from(value: Union[bytes, "PrecompiledCharsmap", None]) -> Optional[PrecompiledCharsmap]:
    """A table from a blob (``None`` or empty: no table, as for the ``identity`` rule).

    Models with the same rule (every ``nmt_nfkc`` model) share one table and what it has
    learnt about the characters seen so far."""
    if value is None or isinstance(value, PrecompiledCharsmap):
        return value
    return _shared(bytes(value)) if value else None


@functools.lru_cache(maxsize=8)
def _shared(blob: bytes) -> PrecompiledCharsmap:
    return PrecompiledCharsmap(blob)
