"""The engines that find and apply BPE training's merges, one per way of running the loop.

:func:`~tokenizer_core.bpe.merge_loop.run_merges` asks one engine, picked once by
:func:`choose_engine`, for the best pair's count, the pair to merge (with its runner-ups), and to
merge it everywhere; the loop itself only applies the size limits and records the steps.

* :class:`KernelEngine`: the compiled kernel's ``MergeState`` on its own copy of the words; ties
  by ids, runner-ups as the queue's (tests/kernel/test_kernel.py compares whole runs with the Python engines).
* :class:`QueueEngine`: the Python reference; a lazily corrected queue of pairs (ties by ids).
* :class:`FirstSeenEngine`: the queue, but among tied pairs the one seen first in the corpus wins.

KernelEngine's MergeState is kernels/src/merges.c (best, with QueueEngine's stash rule for runner-
ups; merge) and kernels/src/merges_init.c.

>>> engine = choose_engine([[0, 1, 0, 1]], [1], shift=16, tie_break="first", top_k=0)
>>> type(engine).__name__, engine.best_count(), engine.take()
('FirstSeenEngine', 2, (1, []))
>>> engine.merge(0, 1, 2)
2
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from bisect import insort
from typing import Any

from tokenizer_core.bpe.pair_stats import QueueEntry, merge_everywhere, pair_queue
from tokenizer_core.kernel.native import available, kernel

#: A pair key with how often it occurs.
Scored = tuple[int, int]


class MergeEngine(ABC):
    """Pair statistics of the words being trained, and the merges applied to them.

    A step is ``best_count()`` (0 when no pair is left), then ``take()`` and ``merge(a, b, new_id)``
    for the pair taken; ``merge`` returns the tokens it saved in the corpus.
    """

    @abstractmethod
    def best_count(self) -> int:
        """How often the best pair occurs now (0 when every word is a single token)."""

    @abstractmethod
    def take(self) -> tuple[int, list[Scored]]:
        """The pair to merge now (its key) and up to ``top_k`` runner-ups, best first."""

    @abstractmethod
    def merge(self, a: int, b: int, new_id: int) -> int:
        """Merge the pair taken (ids ``a``, ``b``) into ``new_id`` everywhere; the tokens saved."""

    @abstractmethod
    def words(self) -> list[list[int]]:
        """Every word's symbol ids now, in the order the words were given."""


def choose_engine(words: list[list[int]], counts: list[int], *, shift: int, tie_break: str,
                  top_k: int) -> MergeEngine:
    """The engine for this run.

    The kernel runs the same steps as the Python queue several times faster, runner-ups included,
    but knows only ties by ids and keeps ids and counts in C ints; when more is asked for or
    exceeded, the Python engines run. The Python engines edit ``words`` in place.
    """
    if tie_break == "ids" and top_k <= 1000 and available() and shift <= 31 and sum(counts) < 1 << 62:
        return KernelEngine(words, counts, shift=shift, top_k=top_k)
    if tie_break == "first":
        return FirstSeenEngine(words, counts, shift=shift, top_k=top_k)
    return QueueEngine(words, counts, shift=shift, top_k=top_k)


class KernelEngine(MergeEngine):
    """The compiled kernel's ``MergeState`` (ties by ids), with ``top_k`` runner-ups taken as the
    Python queue's stash takes them."""

    def __init__(self, words: list[list[int]], counts: list[int], *, shift: int, top_k: int = 0) -> None:
        self._state = kernel().MergeState(words, counts, shift)
        # The state holds its own copy: the Python lists (tens of MB on a big corpus) go now, before the
        # merge loop's own peak. (The Python engines edit them in place instead.)
        words.clear()
        self._top_k = top_k
        self._best: Any = None

    def best_count(self) -> int:
        self._best = self._state.best(self._top_k) if self._top_k else self._state.best()
        return 0 if self._best is None else max(self._best[1], 0)

    def take(self) -> tuple[int, list[Scored]]:
        return self._best[0], (self._best[2] if self._top_k else [])

    def merge(self, a: int, b: int, new_id: int) -> int:
        return self._state.merge(a, b, new_id)

    def words(self) -> list[list[int]]:
        return self._state.words()


class QueueEngine(MergeEngine):
    """The Python reference: pair counts, a lazily corrected queue, and a few best entries aside.

    The best ``top_k + 1`` valid entries are kept out of the heap, sorted, in ``stash``: the next
    step's choice and its runner-ups come from it, so a step costs a few heap operations (the
    entries its merge created or made stale), not ``2 * top_k``.
    """

    def __init__(self, words: list[list[int]], counts: list[int], *, shift: int, top_k: int) -> None:
        self._words, self.counts, self.shift, self.top_k = words, counts, shift, top_k
        self.mask = (1 << shift) - 1
        self.pair_counts, self.heap, self.seq = pair_queue(words, counts, shift=shift)
        self.stash: list[QueueEntry] = []
        self._positions: list[int] = []

    def best_count(self) -> int:
        self.stash = _refill_stash(self.stash, self.heap, self.pair_counts, self.top_k + 1)
        return max(-self.stash[0][0], 0) if self.stash else 0

    def take(self) -> tuple[int, list[Scored]]:
        top = self.stash.pop(0)
        self._positions = top[3]
        return top[1], (_stash_runner_ups(self.stash, top[1]) if self.top_k else [])

    def merge(self, a: int, b: int, new_id: int) -> int:
        return merge_everywhere(self._words, self.counts, self._positions, a, b, new_id, self.shift,
                                self.pair_counts, self.heap, self.seq)

    def words(self) -> list[list[int]]:
        return [list(w) for w in self._words]


class FirstSeenEngine(QueueEngine):
    """The queue, with ties going to the pair whose first occurrence comes first in the corpus
    (words in the order given, left to right), as in Sennrich et al.'s Algorithm 1."""

    def take(self) -> tuple[int, list[Scored]]:
        top = self.stash.pop(0)
        for e in self.stash:  # the tied pairs are searched in the queue itself
            heapq.heappush(self.heap, e)
        self.stash = []
        key, self._positions, runner_ups = _first_seen_choice(
            self.heap, self.pair_counts, top, self._words, self.shift, self.mask, self.top_k)
        return key, runner_ups


def _refill_stash(stash: list[QueueEntry], heap: list, pair_counts: dict[int, int], need: int) -> list[QueueEntry]:
    """The ``need`` best current entries, sorted; stale ones go back to the queue with their new count."""
    heappop, heappush = heapq.heappop, heapq.heappush
    if stash:  # counts of stashed pairs may have dropped with the last merge
        keep = []
        for e in stash:
            cur = pair_counts[e[1]]
            if cur == -e[0]:
                keep.append(e)
            else:
                heappush(heap, (-cur, e[1], e[2], e[3]))
        stash = keep
    while heap:
        if len(stash) >= need and heap[0] >= stash[need - 1]:
            break
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if cur != -e[0]:  # stale entry: back in the queue with its current count
            heappush(heap, (-cur, e[1], e[2], e[3]))
            continue
        insort(stash, e)
    while len(stash) > need:
        heappush(heap, stash.pop())
    return stash


def _stash_runner_ups(stash: list[QueueEntry], key: int) -> list[Scored]:
    """The runner-up pairs (key, count) after ``key``: the rest of the stash, each pair once."""
    runner_ups: list[Scored] = []
    seen = {key}
    for e in stash:
        if e[1] not in seen and e[0] < 0:
            seen.add(e[1])
            runner_ups.append((e[1], -e[0]))
    return runner_ups


def _first_seen_choice(
    heap: list, pair_counts: dict[int, int], top: QueueEntry, words: list[list[int]], shift: int, mask: int,
    top_k: int,
) -> tuple[int, list[int], list[Scored]]:
    """``tie_break="first"``: the chosen pair's key, the words holding it, and ``top_k`` runner-ups."""
    key, positions, runner_ups = _first_seen(heap, pair_counts, top, words, shift, mask)
    runner_ups = runner_ups[:top_k]
    if top_k > len(runner_ups):
        exclude = {key, *(k for k, _ in runner_ups)}
        runner_ups += _peek_runner_ups(heap, pair_counts, exclude, top_k - len(runner_ups))
    return key, positions, runner_ups


def _peek_runner_ups(heap: list, pair_counts: dict[int, int], exclude: set[int], k: int) -> list[Scored]:
    """The ``k`` best pairs (key, count) not in ``exclude``; the queue keeps its entries
    (stale ones met on the way are corrected, as the main loop would do)."""
    popped = []
    out: list[Scored] = []
    seen = set(exclude)
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap and len(out) < k:
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if -e[0] != cur:
            heappush(heap, (-cur, e[1], e[2], e[3]))
            continue
        popped.append(e)
        if cur < 1:
            break
        if e[1] not in seen:
            seen.add(e[1])
            out.append((e[1], cur))
    for e in popped:
        heappush(heap, e)
    return out


def _first_seen(
    heap: list, pair_counts: dict[int, int], top: QueueEntry, words: list[list[int]], shift: int, mask: int
) -> tuple[int, list[int], list[Scored]]:
    """Among the pairs tied with ``top``, the one whose first occurrence comes first in the corpus.

    Returns its key, every word holding it, and the other tied pairs (key, count) in order.
    """
    cnt = -top[0]
    entries = _tied_entries(heap, pair_counts, top)

    def first(key: int) -> tuple[int, int]:
        a, b = key >> shift, key & mask
        for wi in sorted({wi for e in entries[key] for wi in e[3]}):
            w = words[wi]
            for i in range(len(w) - 1):
                if w[i] == a and w[i + 1] == b:
                    return (wi, i)
        return (len(words), 0)

    order = sorted(entries, key=first)
    chosen = order[0]
    for key in order[1:]:
        for e in entries[key]:
            heapq.heappush(heap, e)
    positions = sorted({wi for e in entries[chosen] for wi in e[3]})
    return chosen, positions, [(k, cnt) for k in order[1:]]


def _tied_entries(heap: list, pair_counts: dict[int, int], top: QueueEntry) -> dict[int, list[QueueEntry]]:
    """``top`` and every valid queue entry tied with it, popped from the queue, by pair key
    (stale entries met on the way go back with their current count)."""
    cnt = -top[0]
    entries: dict[int, list[QueueEntry]] = {top[1]: [top]}
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap and -heap[0][0] == cnt:
        e = heappop(heap)
        cur = pair_counts[e[1]]
        if cur != cnt:
            heappush(heap, (-cur, e[1], e[2], e[3]))
        else:
            entries.setdefault(e[1], []).append(e)
    return entries
