"""PickyBPE's training state: the words as token ids, exact pair counts, token counts, and the two
operations that change them, merging a pair and splitting a removed token back.

Plain BPE never sees a pair again once it is merged, so its bookkeeping may leave a merged pair's
count stale (:mod:`tokenizer_core.bpe.pair_stats` does, as ``tokenizers`` does). PickyBPE does see
them again: a removed ``ab`` splits back into ``a b``. Every count here is therefore exact after
each operation: each word an operation touches gives back the pairs around the places it changed
and takes the new ones (the pairs elsewhere in the word are the same before and after).

A pair ``(a, b)`` of ids is the int ``a << 32 | b``: smaller keys are smaller ``(a, b)``, which is
the tie-break (as ``tokenizers``' and our BPE's). The queue is corrected lazily: an entry is pushed
whenever a pair's count grows, and one whose count has dropped is pushed back with its count when
it reaches the top, so the top entry whose count is current is always the best pair.

>>> s = TrainingState([[0, 1, 0, 1], [0, 1]], [2, 1], n_tokens=2)
>>> s.best(), s.freq
((1, 5), [5, 5])
>>> s.add_token((0, 1)), s.merge(0, 1, 2), s.words, s.freq
(2, 5, [[2, 2], [2]], [0, 0, 5])
>>> s.remove(2, [0, 1]), s.words, s.best()
(5, [[0, 1, 0, 1], [0, 1]], (1, 5))
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import Optional

#: Bits of a pair key's right id: ids stay below 2**32 (far beyond any vocabulary).
SHIFT = 32
_MASK = (1 << SHIFT) - 1


class TrainingState:
    """The corpus during PickyBPE training (``words[i]`` occurs ``counts[i]`` times).

    ``freq[t]`` is how often token ``t`` occurs now; ``made_from[t]`` the pair a merged token was
    first made from (None for the first ``n_tokens`` ids: special tokens and the alphabet);
    ``tokens`` the corpus length in tokens. ``words`` is used up (edited in place).
    """

    def __init__(self, words: list[list[int]], counts: list[int], *, n_tokens: int) -> None:
        self.words = words
        self.counts = counts
        self.freq = [0] * n_tokens
        self.made_from: list[Optional[tuple[int, int]]] = [None] * n_tokens
        self.pair_counts: dict[int, int] = {}
        # Words that may hold a pair (or a merged token): a superset, checked when visited.
        self._where: dict[int, list[int]] = {}
        self._holders: dict[int, list[int]] = {}
        freq, pc, where = self.freq, self.pair_counts, self._where
        for wi, w in enumerate(words):
            c = counts[wi]
            for t in w:
                freq[t] += c
            for j in range(len(w) - 1):
                key = w[j] << SHIFT | w[j + 1]
                pc[key] = pc.get(key, 0) + c
                lst = where.get(key)
                if lst is None:
                    where[key] = [wi]
                elif lst[-1] != wi:
                    lst.append(wi)
        self.tokens = sum(len(w) * c for w, c in zip(words, counts))
        self._heap = [(-c, k) for k, c in pc.items()]
        heapq.heapify(self._heap)

    # ------------------------------------------------------------------ the queue
    def best(self) -> Optional[tuple[int, int]]:
        """The pair to merge now, as ``(key, count)``: the highest count, then the smallest ids;
        None when no pair is left."""
        heap, pc = self._heap, self.pair_counts
        while heap:
            negc, key = heap[0]
            cur = pc.get(key, 0)
            if cur == -negc and cur > 0:
                return key, cur
            if cur > 0:  # its count changed since it was queued: requeue it under its count now
                heapq.heapreplace(heap, (-cur, key))
            else:
                heapq.heappop(heap)
        return None

    @staticmethod
    def pair(key: int) -> tuple[int, int]:
        """The ids ``(a, b)`` of a pair key."""
        return key >> SHIFT, key & _MASK

    # ------------------------------------------------------------------ tokens
    def add_token(self, made_from: tuple[int, int]) -> int:
        """Room for a new merged token (the next id), made from the pair ``made_from``."""
        self.freq.append(0)
        self.made_from.append(made_from)
        return len(self.freq) - 1

    def expand(self, token: int, present: Sequence[bool]) -> list[int]:
        """``token`` split into present tokens: the pair it was made from, each part split again while
        it is not present itself (the authors' ``walk``)."""
        out: list[int] = []
        stack = [token]  # a stack, not recursion: a chain of removed parts may be thousands long
        while stack:
            t = stack.pop()
            made = self.made_from[t]
            if made is None or present[t]:
                out.append(t)
            else:
                stack.append(made[1])
                stack.append(made[0])
        return out

    # ------------------------------------------------------------------ the two operations
    def merge(self, a: int, b: int, new: int) -> int:
        """Merge every ``a b`` (left to right, without overlap: ``a a a`` gives ``aa a``) into ``new``;
        returns how many were merged (the pair frequency of the IoS)."""
        words, counts = self.words, self.counts
        delta: dict[int, int] = {}
        merged = 0
        touched = []
        for wi in set(self._where.pop(a << SHIFT | b, ())):
            w = words[wi]
            out, starts, sites = _merge_in(w, a, b, new)
            if not sites:
                continue
            c = counts[wi]
            merged += len(sites) * c
            _give_back(delta, w, _around(starts, (-1, 0, 1), len(w) - 1), c)
            self._take(delta, out, _around(sites, (-1, 0), len(out) - 1), c, wi)
            words[wi] = out
            touched.append(wi)
        self._holders.setdefault(new, []).extend(touched)
        freq = self.freq
        freq[new] += merged
        freq[a] -= merged
        freq[b] -= merged  # twice from one token when a == b: each occurrence of the pair used two
        self.tokens -= merged
        self._apply(delta)
        return merged

    def remove(self, token: int, split: Sequence[int]) -> int:
        """Replace every occurrence of ``token`` by the tokens ``split``; returns how many there were."""
        words, counts, made_from = self.words, self.counts, self.made_from
        delta: dict[int, int] = {}
        k = len(split)
        found = 0
        for wi in set(self._holders.pop(token, ())):
            w = words[wi]
            places = [j for j, t in enumerate(w) if t == token]
            if not places:
                continue
            c = counts[wi]
            found += len(places) * c
            out: list[int] = []
            firsts = []
            prev = 0
            for j in places:
                out.extend(w[prev:j])
                firsts.append(len(out))
                out.extend(split)
                prev = j + 1
            out.extend(w[prev:])
            _give_back(delta, w, _around(places, (-1, 0), len(w) - 1), c)
            self._take(delta, out, _around(firsts, range(-1, k), len(out) - 1), c, wi)
            words[wi] = out
            for t in split:
                if made_from[t] is not None:  # merged tokens only: the alphabet is never removed
                    self._holders.setdefault(t, []).append(wi)
        freq = self.freq
        for t in split:
            freq[t] += found
        freq[token] = 0
        self.tokens += found * (k - 1)
        self._apply(delta)
        return found

    # ------------------------------------------------------------------ pair bookkeeping
    def _take(self, delta: dict[int, int], w: list[int], idx: Iterable[int], c: int, wi: int) -> None:
        where = self._where
        for j in idx:
            key = w[j] << SHIFT | w[j + 1]
            delta[key] = delta.get(key, 0) + c
            lst = where.get(key)
            if lst is None:
                where[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)

    def _apply(self, delta: dict[int, int]) -> None:
        pc, heap = self.pair_counts, self._heap
        for key, d in delta.items():
            if not d:
                continue
            cur = pc.get(key, 0) + d
            if cur:
                pc[key] = cur
            else:
                del pc[key]
            if d > 0:
                heapq.heappush(heap, (-cur, key))


def _merge_in(w: list[int], a: int, b: int, new: int) -> tuple[list[int], list[int], list[int]]:
    """``w`` with every ``a b`` merged (left to right), where each merge started in ``w``, and where
    each ``new`` stands in the result."""
    out: list[int] = []
    starts: list[int] = []
    sites: list[int] = []
    last = len(w) - 1
    i = j = 0
    while True:
        try:
            i = w.index(a, i)
        except ValueError:
            break
        if i < last and w[i + 1] == b:
            out.extend(w[j:i])
            starts.append(i)
            sites.append(len(out))
            out.append(new)
            i += 2
            j = i
        else:
            i += 1
    if sites:
        out.extend(w[j:])
    return out, starts, sites


def _around(places: Sequence[int], offsets: Iterable[int], n_pairs: int) -> Iterable[int]:
    """The pair positions (0 to ``n_pairs - 1``) at the given offsets from each place, each once."""
    offsets = tuple(offsets)
    if len(places) == 1:
        p = places[0]
        return [p + o for o in offsets if 0 <= p + o < n_pairs]
    return sorted({p + o for p in places for o in offsets if 0 <= p + o < n_pairs})


def _give_back(delta: dict[int, int], w: list[int], idx: Iterable[int], c: int) -> None:
    for j in idx:
        key = w[j] << SHIFT | w[j + 1]
        delta[key] = delta.get(key, 0) - c
