"""The training corpus packed for numpy: distinct words end to end, their runs and substring hashes.

>>> w = WordTable(["▁ab", "▁b"], np.array([2.0, 1.0]))
>>> w.offsets.tolist(), w.first.tolist(), w.last.tolist(), w.num_nodes
([0, 3, 5], [0, 4], [3, 6], 7)
>>> w.runs(split_by_script=True, split_digits=False).tolist()   # a new run at each word and "▁"
[1, 1, 1, 2, 2]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Optional

import numpy as np

from tokenizer_core.unigram.edge_order import distinct

BOUNDARY = "▁"
_HASH_BASE = np.uint64(0x100000001B3)  # odd multiplier of the polynomial window hash (mod 2**64); UG_BASE in kernels/src/unigram.h


#: Characters of Han or kana script whose Unicode names do not say so (the names are our only
#: script table): SentencePiece counts the prolonged sound mark "ー" (Common in Unicode) as Han
#: too, so "サポート" is one run and not "サポ", "ー", "ト".
_HAN_BY_CODE = frozenset({0x30FC, 0x3005, 0x3007, 0x303B})


def _script_of(ch: str) -> str:
    """SentencePiece-like script class: letters by script, marks "inherited", the rest "common".

    >>> [_script_of(c) for c in "aサーび漢々1"]
    ['LATIN', 'HAN', 'HAN', 'HAN', 'HAN', 'HAN', 'COMMON']
    """
    if ord(ch) in _HAN_BY_CODE:
        return "HAN"
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        name = unicodedata.name(ch, "")
        first = name.split(" ", 1)[0] if name else "UNKNOWN"
        # SentencePiece merges Hiragana and Katakana into Han.
        return "HAN" if first in ("CJK", "HIRAGANA", "KATAKANA") else first
    if cat[0] == "M":
        return "INHERITED"
    return "COMMON"


class WordTable:
    """Distinct words packed end to end: code points, word offsets and per-position facts.

    Node ``i + word_of[i]`` is the position before character ``i`` (each word adds
    one extra node at its end), so word ``w`` has nodes ``first[w] .. last[w]``.
    """

    def __init__(self, words: list[str], counts: np.ndarray) -> None:
        self.words = words
        self.counts = counts
        self.text = "".join(words)
        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
        self.offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.offsets[1:])
        n = int(self.offsets[-1])
        # Per-character arrays in 32 bits where positions fit (they always do in practice): they are
        # the bulk of the corpus' memory. Code points fit in 21 bits.
        self.cps = np.frombuffer(self.text.encode("utf-32-le"), dtype=np.uint32).astype(np.int32)
        # The word and the characters left at each position are made when first asked for: the
        # kernel's passes (native_lattice.py) never need them.
        self._word_of: Optional[np.ndarray] = None
        self._rem: Optional[np.ndarray] = None
        self.first = self.offsets[:-1] + np.arange(len(words), dtype=np.int64)
        self.last = self.first + lengths
        self.num_nodes = n + len(words)
        self.max_length = int(lengths.max()) if len(words) else 0

    def _pos_type(self) -> type:
        return np.int32 if self.num_nodes < 2**31 else np.int64

    @property
    def word_of(self) -> np.ndarray:
        """The word of each character position."""
        if self._word_of is None:
            lengths = self.offsets[1:] - self.offsets[:-1]
            self._word_of = np.repeat(np.arange(len(lengths), dtype=self._pos_type()), lengths)
        return self._word_of

    @property
    def rem(self) -> np.ndarray:
        """The characters left in its word from each position, itself included."""
        if self._rem is None:
            pos_t = self._pos_type()
            rem = np.repeat(self.offsets[1:].astype(pos_t), self.offsets[1:] - self.offsets[:-1])
            rem -= np.arange(len(rem), dtype=pos_t)
            self._rem = rem
        return self._rem

    def drop_positions(self) -> None:
        """Free the word strings and the per-character arrays (text, code points, word and characters
        left at each position) once the lattice edges are found: EM needs only the counts and node
        numbers. Seeding, runs and edge finding cannot run on these words afterwards.
        """
        self.text = ""
        self.words = []  # the strings: ``counts`` still tells how many words there are
        self.cps = self._word_of = self._rem = np.zeros(0, dtype=np.int32)

    def runs(self, *, split_by_script: bool, split_digits: bool, split_by_number: bool = True) -> np.ndarray:
        """Run id per character: a valid piece lies inside one run (so ``run[i] == run[i+L-1]``).

        A run starts at each word start and each "▁", and (unless after a "▁") where the script
        changes; with ``split_digits`` every digit is a run of its own. Without ``split_by_number``
        digits take the script of the letters around them, as SentencePiece lets them join any script.

        >>> w = WordTable(["▁ab12cd"], np.ones(1))
        >>> w.runs(split_by_script=True, split_digits=False).tolist()
        [1, 1, 1, 2, 2, 3, 3]
        >>> w.runs(split_by_script=True, split_digits=False, split_by_number=False).tolist()
        [1, 1, 1, 1, 1, 1, 1]
        """
        n = len(self.cps)
        new = np.zeros(n, dtype=bool)
        new[self.offsets[:-1]] = True
        # Facts about each distinct character, looked up per position through a code-point table
        # (a few MB at most) rather than an int64 inverse index per position.
        uniq = distinct(self.cps)
        chars = [chr(int(c)) for c in uniq]
        table_size = int(uniq[-1]) + 1 if len(uniq) else 1
        is_ws = self.cps == ord(BOUNDARY)
        new |= is_ws
        prev_ws = np.zeros(n, dtype=bool)
        prev_ws[1:] = is_ws[:-1]
        del is_ws
        if split_by_script:
            names: dict[str, int] = {}
            table = np.zeros(table_size, dtype=np.int32)
            table[uniq] = [names.setdefault(_script_of(c), len(names)) for c in chars]
            script = table[self.cps]
            if not split_by_number:
                digit_table = np.zeros(table_size, dtype=bool)
                digit_table[uniq] = [unicodedata.category(c) == "Nd" or c == BOUNDARY for c in chars]
                script = self._fill_from_letters(script, digit_table[self.cps])
            change = np.zeros(n, dtype=bool)
            change[1:] = script[1:] != script[:-1]
            del script
            new |= change & ~prev_ws
        if split_digits:
            digit_table = np.zeros(table_size, dtype=bool)
            digit_table[uniq] = [unicodedata.category(c) == "Nd" for c in chars]
            is_digit = digit_table[self.cps]
            new |= is_digit
            new[1:] |= is_digit[:-1]
        return np.cumsum(new, dtype=np.int32 if n < 2**31 else np.int64)

    def _fill_from_letters(self, script: np.ndarray, wild: np.ndarray) -> np.ndarray:
        """``script`` with each ``wild`` position (digits, "▁") given the script of the nearest
        other character before it in its word, or else after it (a word of wild characters keeps its own).
        """
        n = len(script)
        pos = np.arange(n)
        start = self.offsets[:-1][self.word_of]
        end = self.offsets[1:][self.word_of]
        before = np.maximum.accumulate(np.where(wild, -1, pos))
        after = np.minimum.accumulate(np.where(wild, n, pos)[::-1])[::-1]
        src = np.where(before >= start, before, np.where(after < end, after, pos))
        return script[src]

    def window_hashes(self, max_len: int) -> Iterable[tuple[int, np.ndarray]]:
        """``(L, h)`` for ``L = 1..max_len``: ``h[i]`` hashes ``cps[i:i+L]`` wherever ``rem[i] >= L``."""
        n = len(self.cps)
        h = np.zeros(n, dtype=np.uint64)
        cu = self.cps.view(np.uint32) if self.cps.dtype == np.int32 else self.cps.astype(np.uint64)
        for length in range(1, max_len + 1):
            if length > n:
                return
            window = h[: n - length + 1]
            window *= _HASH_BASE  # in place, modulo 2**64 like the product it replaces
            window += cu[length - 1:]
            yield length, h


def hash_strings(pieces: list[str]) -> np.ndarray:
    """The window hash of each whole string (same function as :meth:`WordTable.window_hashes`)."""
    w = WordTable(pieces, np.ones(len(pieces)))
    lengths = w.offsets[1:] - w.offsets[:-1]
    out = np.zeros(len(pieces), dtype=np.uint64)
    for length, h in w.window_hashes(w.max_length):
        sel = lengths == length
        out[sel] = h[w.offsets[:-1][sel]]
    return out


class PieceIndex:
    """Find piece ids by (length, hash) with one binary search per window."""

    def __init__(self, hashes: np.ndarray, lengths: np.ndarray) -> None:
        self.max_len = int(lengths.max()) if len(lengths) else 0
        self._by_len: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for length in distinct(lengths):
            ids = np.flatnonzero(lengths == length)
            order = np.argsort(hashes[ids], kind="stable")
            self._by_len[int(length)] = (hashes[ids][order], ids[order])

    def find(self, length: int, hashes: np.ndarray) -> np.ndarray:
        table = self._by_len.get(length)
        if table is None or not len(hashes):
            return np.full(len(hashes), -1, dtype=np.int64)
        keys, ids = table
        pos = np.minimum(np.searchsorted(keys, hashes), len(keys) - 1)
        return np.where(keys[pos] == hashes, ids[pos], -1)
