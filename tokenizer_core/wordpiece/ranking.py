"""WordPiece pair ranking: the best pairs by score (and by count, for the trace) from lazy heaps.

>>> from tokenizer_core.wordpiece.pair_stats import PairStats
>>> stats = PairStats({"hug": 10, "hugs": 5}, prefix="##", limit_alphabet=None, min_frequency=0,
...                   max_word_length=None)
>>> ranking = PairRanking(stats)
>>> [[stats.sym_str[s] for s in p] for p in ranking.top_by_score(3)]   # equal scores: first occurrence
[['h', '##u'], ['##u', '##g'], ['##g', '##s']]
>>> [stats.sym_str[s] for s in ranking.top_by_count()]
['h', '##u']
"""

from __future__ import annotations

import heapq
import itertools
from typing import Optional

from tokenizer_core.wordpiece.pair_stats import (
    COUNT,
    COUNT_STAMP,
    FIRST_OFFSET,
    FIRST_WORD,
    SCORE_STAMP,
    Pair,
    PairStats,
)


class PairRanking:
    """Two heaps over the pairs of ``stats``: by score (WordPiece) and by count (BPE's choice, for the trace).

    Score-heap entries are ``(-score, first_word, first_offset, stamp, pair,
    epoch_left, epoch_right)``; count-heap entries ``(-count, first_word,
    first_offset, stamp, pair)``. Stamps are unique, so an entry is current only
    while the pair's record holds its stamp and (score heap) both symbols are
    still at the recorded epochs; stale entries are skipped when they surface.

    A merge changes the counts of its two parts, which changes the score of every
    pair containing them: for a common symbol such as ``##e`` that is thousands
    of pairs, most of which will never come near the top. So instead of
    re-scoring them, the symbol's epoch is bumped (voiding all their entries at
    once) and one *marker* is pushed whose key, ``1 / count(symbol)``, bounds the
    score of every pair containing it (``count(ab) <= count(b)``). Only when a
    marker reaches the top are that symbol's pairs re-scored. Markers sort before
    pairs of equal score, so ties are still decided among exact scores.
    """

    def __init__(self, stats: PairStats) -> None:
        # The same objects as in ``stats`` (updated in place by its merges), bound here for speed.
        self.info = stats.info
        self.sym_count = stats.sym_count
        self.pairs_of = stats.pairs_of
        self.min_frequency = stats.min_frequency
        self.score_heap: list[tuple] = []
        self.count_heap: list[tuple] = []
        self._stamps = itertools.count(1)
        self.epoch: list[int] = [0] * len(self.sym_count)
        self.marker_stamp: dict[int, int] = {}
        for pair in self.info:
            self._push(pair)

    def merged(self, pair: Pair, new_symbol: int, changed: set[Pair]) -> None:
        """Catch up with ``stats.merge(pair, ...)``, which created ``new_symbol`` and returned ``changed``."""
        a, b = pair
        self.epoch.extend([0] * (len(self.sym_count) - len(self.epoch)))
        # Scores of every pair sharing a symbol whose count moved have changed too.
        for sym in {a, b, new_symbol}:
            self._symbol_changed(sym)
        info = self.info
        for p in changed:
            if p in info:
                self._push(p)
        self._compact()

    # -- pushing -------------------------------------------------------------------------------
    def _push(self, pair: Pair) -> None:
        """Push fresh entries on both heaps (older entries of the pair die with their stamps)."""
        rec = self.info[pair]
        stamp = next(self._stamps)
        rec[SCORE_STAMP] = rec[COUNT_STAMP] = stamp
        count = rec[COUNT]
        if count >= self.min_frequency:
            a, b = pair
            fw, fo = rec[FIRST_WORD], rec[FIRST_OFFSET]
            score = count / (self.sym_count[a] * self.sym_count[b])
            heapq.heappush(self.score_heap, (-score, fw, fo, stamp, pair, self.epoch[a], self.epoch[b]))
            heapq.heappush(self.count_heap, (-count, fw, fo, stamp, pair))

    def _symbol_changed(self, sym: int) -> None:
        """Void the score entries of every pair containing ``sym`` and push one marker bounding them."""
        self.epoch[sym] += 1
        count = self.sym_count[sym]
        if count > 0 and self.pairs_of[sym]:
            stamp = self.marker_stamp[sym] = next(self._stamps)
            # first_word -1: a marker comes out before any pair of equal score
            heapq.heappush(self.score_heap, (-(1 / count), -1, 0, stamp, (sym, -1), 0, 0))
        else:
            self.marker_stamp.pop(sym, None)

    def _rescore(self, sym: int, want: int, taken: set[Pair]) -> None:
        """A marker reached the top: score the pairs of ``sym`` (except those in ``taken``) for real.

        Only the ``want`` best get heap entries; a new marker placed just before
        the best of the others (same score, same first occurrence, half an offset
        earlier) covers the rest exactly. Late in training the best pairs are
        often ``(stem, ##e)``, right at the bound ``1 / count(##e)``, so this
        saves thousands of pushes per merge.
        """
        info, sym_count, epoch, heap, stamps = self.info, self.sym_count, self.epoch, self.score_heap, self._stamps
        minf, push = self.min_frequency, heapq.heappush
        cands = []
        for pair in self.pairs_of[sym]:
            rec = info[pair]
            count = rec[COUNT]
            if count >= minf and pair not in taken:
                cands.append((-(count / (sym_count[pair[0]] * sym_count[pair[1]])), rec[FIRST_WORD],
                              rec[FIRST_OFFSET], pair))
        if len(cands) > want:
            cands = heapq.nsmallest(want + 1, cands)
            rest = cands.pop()
            stamp = self.marker_stamp[sym] = next(stamps)
            push(heap, (rest[0], rest[1], rest[2] - 0.5, stamp, (sym, -1), 0, 0))
        for key, fw, fo, pair in cands:
            a, b = pair
            stamp = info[pair][SCORE_STAMP] = next(stamps)
            push(heap, (key, fw, fo, stamp, pair, epoch[a], epoch[b]))

    # -- reading -------------------------------------------------------------------------------
    def _current(self, entry: tuple) -> bool:
        a, b = entry[4]
        rec = self.info.get(entry[4])
        return (rec is not None and rec[SCORE_STAMP] == entry[3]
                and self.epoch[a] == entry[5] and self.epoch[b] == entry[6])

    def top_by_score(self, k: int) -> list[Pair]:
        """The ``k`` best pairs by score, best first (the heap is left as it was)."""
        heap = self.score_heap
        taken: list[tuple] = []
        seen: set[Pair] = set()
        while heap and len(taken) < k:
            entry = heapq.heappop(heap)
            pair = entry[4]
            if pair[1] < 0:  # a marker
                if self.marker_stamp.get(pair[0]) == entry[3]:
                    del self.marker_stamp[pair[0]]
                    self._rescore(pair[0], k, seen)
            elif pair not in seen and self._current(entry):
                # (a pair taken here may be pushed again by a later marker: hence `seen`)
                taken.append(entry)
                seen.add(pair)
        for entry in taken:
            heapq.heappush(heap, entry)
        return [e[4] for e in taken]

    def top_by_count(self) -> Optional[Pair]:
        """The most frequent pair (ties: first occurrence), or ``None`` when no pair is frequent enough."""
        heap, info = self.count_heap, self.info
        while heap:
            entry = heap[0]
            rec = info.get(entry[4])
            if rec is not None and rec[COUNT_STAMP] == entry[3]:
                return entry[4]
            heapq.heappop(heap)
        return None

    def _compact(self) -> None:
        # Stale entries pile up because scores of pairs sharing a symbol change on every
        # merge of that symbol; rebuilding keeps memory proportional to the live pairs.
        info = self.info
        limit = 4 * len(info) + 200_000
        if len(self.score_heap) > limit:
            markers, epoch = self.marker_stamp, self.epoch
            keep = []
            for e in self.score_heap:
                a, b = e[4]
                if b < 0:
                    if markers.get(a) == e[3]:
                        keep.append(e)
                elif (r := info.get(e[4])) is not None and r[SCORE_STAMP] == e[3] \
                        and epoch[a] == e[5] and epoch[b] == e[6]:
                    keep.append(e)
            heapq.heapify(keep)
            self.score_heap = keep
        if len(self.count_heap) > limit:
            self.count_heap = [e for e in self.count_heap
                               if (r := info.get(e[4])) is not None and r[COUNT_STAMP] == e[3]]
            heapq.heapify(self.count_heap)
