"""WordPiece pair bookkeeping: symbols, words as symbol ids and each adjacent pair's record, kept per merge.

>>> stats = PairStats({"hug": 10, "hugs": 5}, prefix="##", limit_alphabet=None, min_frequency=0,
...                   max_word_length=None)
>>> stats.sym_str, stats.corpus_tokens
(['h', '##u', '##g', '##s'], 50)
>>> stats.scored((2, 3)).score == 5 / (15 * 5)   # count(##g ##s) / (count(##g) * count(##s))
True
>>> changed, new = stats.merge((2, 3), "##gs")
>>> stats.sym_str[new], stats.words, stats.corpus_tokens
('##gs', [[0, 1, 2], [0, 1, 4]], 45)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.wordpiece.trace import ScoredPair

Pair = tuple[int, int]

# Fields of a pair's record in PairStats.info (a list, so one dict lookup reaches all of them).
# The two stamps belong to PairRanking: they name the pair's current heap entries.
COUNT, SCORE_STAMP, COUNT_STAMP, FIRST_WORD, FIRST_OFFSET, _WHERE = range(6)
_NOWHERE = 1 << 62  # "first word" of a pair that is being created


class PairStats:
    """Symbols, the words as symbol ids, and the statistics of every adjacent pair.

    ``info[pair]`` holds the pair's count, the stamps of its current heap entries
    (see :class:`~tokenizer_core.wordpiece.ranking.PairRanking`), its first
    occurrence (word index, character offset) and the set of words containing it.
    The character offset of a symbol never moves when other symbols of its word
    merge, so cached first occurrences stay comparable. ``min_frequency`` (at
    least 1) is kept for the ranking: rarer pairs are never merged.
    """

    def __init__(self, word_counts: Mapping[str, int], *, prefix: str, limit_alphabet: Optional[int],
                 min_frequency: int, max_word_length: Optional[int]) -> None:
        self.prefix = prefix
        self.min_frequency = max(1, min_frequency)
        self.sym_id: dict[str, int] = {}
        self.sym_str: list[str] = []
        self.sym_len: list[int] = []  # characters covered, without the prefix
        self.sym_count: list[int] = []
        self.words: list[list[int]] = []
        self.freqs: list[int] = []
        self.info: dict[Pair, list] = {}
        self.pairs_of: list[set[Pair]] = []
        self.scored_cache: dict[Pair, ScoredPair] = {}
        self.corpus_tokens = 0
        self.skipped_long_words = 0
        items = self._accepted(word_counts, max_word_length)
        self._add_words(items, _kept_alphabet(items, limit_alphabet))
        self._count_pairs()

    @property
    def has_pairs(self) -> bool:
        return bool(self.info)

    # -- setup ---------------------------------------------------------------------------------
    def _symbol(self, text: str, length: int) -> int:
        sid = self.sym_id.get(text)
        if sid is None:
            sid = len(self.sym_str)
            self.sym_id[text] = sid
            self.sym_str.append(text)
            self.sym_len.append(length)
            self.sym_count.append(0)
            self.pairs_of.append(set())
        return sid

    def _accepted(self, word_counts: Mapping[str, int], max_word_length: Optional[int]) -> list[tuple[str, int]]:
        """The non-empty words with a positive count, in the mapping's order; counts over-long ones skipped."""
        items = []
        for word, count in word_counts.items():
            if not isinstance(word, str):
                raise TokenizerError(f"word counts must map strings to counts, got key {word!r:.40}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise TokenizerError(f"word counts must be whole numbers >= 0, got {count!r} for {word!r:.40}")
            if max_word_length is not None and len(word) > max_word_length:
                self.skipped_long_words += 1
            elif word and count:
                items.append((word, count))
        return items

    def _add_words(self, items: list[tuple[str, int]], keep: Optional[set[str]]) -> None:
        prefix = self.prefix
        for word, count in items:
            # Characters outside a limited alphabet are dropped; the word splits there
            # into fragments, and a fragment after the first starts with a continuation.
            fragments: list[list[int]] = [[]]
            for pos, ch in enumerate(word):
                if keep is not None and ch not in keep:
                    if fragments[-1]:
                        fragments.append([])
                    continue
                text = ch if pos == 0 else prefix + ch
                fragments[-1].append(self._symbol(text, 1))
            for symbols in fragments:
                if symbols:
                    self.words.append(symbols)
                    self.freqs.append(count)

    def _count_pairs(self) -> None:
        info = self.info
        for w, (symbols, count) in enumerate(zip(self.words, self.freqs)):
            self.corpus_tokens += len(symbols) * count
            offset = 0
            for i, sym in enumerate(symbols):
                self.sym_count[sym] += count
                if i + 1 < len(symbols):
                    pair = (sym, symbols[i + 1])
                    rec = info.get(pair)
                    if rec is not None:
                        rec[COUNT] += count
                        rec[_WHERE].add(w)
                    else:
                        # words are read in order, so this is the first occurrence
                        info[pair] = [count, 0, 0, w, offset, {w}]
                        self.pairs_of[sym].add(pair)
                        self.pairs_of[pair[1]].add(pair)
                offset += self.sym_len[sym]

    # -- scores --------------------------------------------------------------------------------
    def score(self, pair: Pair) -> float:
        # Same expression as ScoredPair.score, so trace scores equal the compared ones bit for bit.
        return self.info[pair][COUNT] / (self.sym_count[pair[0]] * self.sym_count[pair[1]])

    def scored(self, pair: Pair) -> ScoredPair:
        """The trace view of a pair (cached until the next merge, when counts change)."""
        rec = self.scored_cache.get(pair)
        if rec is None:
            rec = ScoredPair(self.sym_str[pair[0]], self.sym_str[pair[1]], self.info[pair][COUNT],
                             self.sym_count[pair[0]], self.sym_count[pair[1]])
            self.scored_cache[pair] = rec
        return rec

    # -- merging -------------------------------------------------------------------------------
    def merge(self, pair: Pair, new_text: str) -> tuple[set[Pair], int]:
        """Merge every occurrence of ``pair`` into the symbol ``new_text`` and update all statistics
        touched by it. Returns the pairs whose count or first occurrence moved (some may have
        vanished from ``info``) and the new symbol's id; the ranking must hear of both.
        """
        self.scored_cache.clear()
        a, b = pair
        c = self._symbol(new_text, self.sym_len[a] + self.sym_len[b])
        changed: set[Pair] = set()  # count or first occurrence may have moved
        first_dirty: dict[Pair, int] = {}  # pair -> smallest modified word now containing it (or -1)
        for w in sorted(self.info[pair][_WHERE]):
            self._merge_in_word(w, a, b, c, changed, first_dirty)
        self._settle_first_occurrences(first_dirty, changed)
        return changed, c

    def _merge_in_word(self, w: int, a: int, b: int, c: int, changed: set[Pair],
                       first_dirty: dict[Pair, int]) -> None:
        """Rewrite word ``w`` with ``a b`` -> ``c`` and move the counts of the pairs it holds."""
        words, sym_count, info, pairs_of = self.words, self.sym_count, self.info, self.pairs_of
        old = words[w]
        f = self.freqs[w]
        new: list[int] = []
        i, n, k = 0, len(old), 0
        while i < n:
            if i + 1 < n and old[i] == a and old[i + 1] == b:
                new.append(c)
                i += 2
                k += 1
            else:
                new.append(old[i])
                i += 1
        words[w] = new
        sym_count[a] -= k * f
        sym_count[b] -= k * f
        sym_count[c] += k * f
        self.corpus_tokens -= k * f
        old_pairs = Counter(zip(old, old[1:]))
        new_pairs = Counter(zip(new, new[1:]))
        for p, n_old in old_pairs.items():
            rec = info[p]
            n_new = new_pairs.get(p, 0)
            if n_new != n_old:
                rec[COUNT] += (n_new - n_old) * f
                changed.add(p)
            if n_new == 0:
                rec[_WHERE].discard(w)
            if w <= rec[FIRST_WORD] and p not in first_dirty:
                first_dirty[p] = -1
        for p, n_new in new_pairs.items():
            if p in old_pairs:
                if w <= info[p][FIRST_WORD]:
                    prev = first_dirty.get(p, -1)
                    first_dirty[p] = w if prev < 0 else min(prev, w)
                continue
            changed.add(p)
            rec = info.get(p)
            if rec is None:
                info[p] = [n_new * f, 0, 0, _NOWHERE, 0, {w}]
                pairs_of[p[0]].add(p)
                pairs_of[p[1]].add(p)
            else:  # possibly emptied earlier in this merge and not yet dropped
                rec[COUNT] += n_new * f
                rec[_WHERE].add(w)
            prev = first_dirty.get(p, -1)
            first_dirty[p] = w if prev < 0 else min(prev, w)

    def _settle_first_occurrences(self, first_dirty: dict[Pair, int], changed: set[Pair]) -> None:
        """Recompute the first occurrence of each pair a merge touched, dropping pairs that vanished."""
        info, words = self.info, self.words
        for p, seen_in in first_dirty.items():
            rec = info[p]
            where = rec[_WHERE]
            if not where:
                self._drop(p)
                continue
            fw = rec[FIRST_WORD]
            if fw in where:
                fw = fw if seen_in < 0 else min(fw, seen_in)
            else:
                fw = min(where)
            rec[FIRST_WORD] = fw
            rec[FIRST_OFFSET] = self._offset_in(words[fw], p)
            changed.add(p)

    def _drop(self, p: Pair) -> None:
        del self.info[p]  # its heap entries are skipped from now on: no record holds their stamps
        self.pairs_of[p[0]].discard(p)
        self.pairs_of[p[1]].discard(p)

    def _offset_in(self, symbols: list[int], p: Pair) -> int:
        offset = 0
        sym_len = self.sym_len
        for i in range(len(symbols) - 1):
            if symbols[i] == p[0] and symbols[i + 1] == p[1]:
                return offset
            offset += sym_len[symbols[i]]
        raise TokenizerError(f"internal: pair {p} not found in word")


def _kept_alphabet(items: list[tuple[str, int]], limit_alphabet: Optional[int]) -> Optional[set[str]]:
    """The ``limit_alphabet`` most frequent characters (ties by code point), or ``None`` for all."""
    if limit_alphabet is None:
        return None
    chars: Counter[str] = Counter()
    for word, count in items:
        for ch in word:
            chars[ch] += count
    ranked = sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))
    return {ch for ch, _ in ranked[:limit_alphabet]}
