r"""SentencePiece's precompiled normalization table (``precompiled_charsmap``).

A ``.model`` file carries its normalization rule (``nmt_nfkc``, ``nfkc``, a custom rule
table) compiled into one blob (:mod:`tokenizer_core.text.charsmap_trie` reads it). Normalizing
looks up the longest key at each position and writes its replacement; text no key matches stays
as it is.

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
from collections.abc import Mapping
from typing import Optional, Union

from tokenizer_core.text.charsmap_trie import CharsmapTrie

Step = Optional[tuple[int, Optional[str]]]  # (trie position after a character, replacement ending there)


class PrecompiledCharsmap:
    """Longest-match string replacement read from a ``precompiled_charsmap`` blob."""

    def __init__(self, blob: bytes) -> None:
        self._trie = CharsmapTrie(blob)
        self.blob = self._trie.blob
        self._root = self._trie.root
        self._steps: dict[int, dict[str, Step]] = {}
        self._rules: dict[str, tuple[Optional[str], frozenset[int]]] = {}

    @classmethod
    def from_rules(cls, rules: Mapping[str, str]) -> "PrecompiledCharsmap":
        """Compile a small table (for tests and examples; real tables come from ``.model`` files)."""
        from tokenizer_core.unigram.charsmap_builder import compile_charsmap

        return cls(compile_charsmap(rules))

    def step(self, pos: int, ch: str) -> Step:
        """Follow one character from trie position ``pos`` (``None``: no key continues with it)."""
        row = self._steps.get(pos)
        if row is None:
            row = self._steps[pos] = {}
        try:
            return row[ch]
        except KeyError:
            hit = row[ch] = self._trie.walk(pos, ch)
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
                hit = (step[1], self._trie.next_bytes(step[0]))
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
