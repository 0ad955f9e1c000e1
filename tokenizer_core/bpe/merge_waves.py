"""Rank-ordered merging of one long word in ``O(n log n)``, one rank at a time ("waves").

The result is exactly that of :func:`~tokenizer_core.bpe.merging.merge_scan`: the adjacent
pair with the lowest rank merges first, the leftmost on equal ranks (the rule of GPT-2,
``tokenizers``' heap of merges and ``tiktoken``'s large-piece heap). Instead of one heap
entry per candidate pair, candidates wait in a bucket per rank; a heap holds only the
distinct ranks. The bucket of the lowest rank is sorted once and swept left to right:

* a merge at position ``i`` changes only the pairs starting at ``i`` and at the symbol
  before it, both at or left of the sweep, so a new candidate of the *same* rank goes to a
  small side heap that is served before the rest of the sweep;
* a new candidate of a *higher* rank is appended to its bucket (positions arrive nearly in
  order, so the later sort is almost linear);
* a new candidate of a *lower* rank (possible with hand-written merge lists) ends the wave:
  what is left of it goes back to its bucket, and the lower rank is served first.

Candidates are checked when served: ``cur[i]`` holds the rank of the pair starting at
``i`` now, so an entry whose pair has since changed is skipped. For ``"x" * 1_000_000``
this is about 4x faster than a heap of all candidates, with no per-pair heap traffic.

>>> rank = {("a", "a"): (0, "aa"), ("aa", "aa"): (1, "aaaa")}.get
>>> syms, starts, ends = merge_waves(list("aaaaa"), [0, 1, 2, 3, 4], [1, 2, 3, 4, 5], rank)
>>> syms, starts, ends
(['aaaa', 'a'], [0, 4], [4, 5])
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Optional

from tokenizer_core.bpe.merging import Ranker


def merge_waves(
    syms: list[str], starts: list[int], ends: list[int], rank: Ranker
) -> tuple[list[str], list[int], list[int]]:
    """Merge ``syms`` (with their character spans) by rank, the leftmost first on ties.

    The input lists are used as scratch space; the merged lists are returned.
    """
    n = len(syms)
    if n < 2:
        return syms, starts, ends
    nxt = list(range(1, n + 1))  # linked list over positions; -1 ends it
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    cur, new, buckets = _candidates(syms, rank)
    ranks = list(buckets)
    heapq.heapify(ranks)
    offer = _offerer(rank, cur, new, buckets, ranks)
    while ranks:
        r = heapq.heappop(ranks)
        rest = _sweep(r, sorted(buckets.pop(r)), syms, ends, nxt, prv, cur, new, offer)
        if rest:  # a lower rank came up: it goes first, the rest of this wave waits in its bucket
            buckets[r] = rest
            heapq.heappush(ranks, r)
    keep = [i for i, s in enumerate(syms) if s is not None]
    return [syms[i] for i in keep], [starts[i] for i in keep], [ends[i] for i in keep]


def _candidates(syms: list[str], rank: Ranker) -> tuple[list[int], list[Optional[str]], dict[int, list[int]]]:
    """The rank of the pair starting at each position (-1 for none), what it merges into, and the
    positions waiting in each rank's bucket, in order."""
    n = len(syms)
    cur = [-1] * n
    new: list[Optional[str]] = [None] * n
    buckets: dict[int, list[int]] = {}
    for i, m in enumerate(map(rank, zip(syms, syms[1:]))):
        if m is not None:
            r = cur[i] = m[0]
            new[i] = m[1]
            bucket = buckets.get(r)
            if bucket is None:
                buckets[r] = [i]
            else:
                bucket.append(i)
    return cur, new, buckets


#: ``offer(q, pair, r, side)``: record the pair now starting at ``q``; True when it outranks wave ``r``.
Offer = Callable[[int, tuple[str, str], int, list[int]], bool]


def _offerer(rank: Ranker, cur: list[int], new: list[Optional[str]], buckets: dict[int, list[int]],
             ranks: list[int]) -> Offer:
    """The function that files a pair made by a merge: in the wave's side heap (same rank), in its
    bucket (a higher rank), or in a new bucket (a rank not waiting yet, maybe lower)."""
    heappush = heapq.heappush

    def offer(q: int, pair: tuple[str, str], r: int, side: list[int]) -> bool:
        m = rank(pair)
        if m is None:
            cur[q] = -1
            return False
        rr = cur[q] = m[0]
        new[q] = m[1]
        if rr == r:
            heappush(side, q)
            return False
        bucket = buckets.get(rr)
        if bucket is not None:  # every open bucket holds a rank above the current one
            bucket.append(q)
            return False
        buckets[rr] = [q]
        heappush(ranks, rr)
        return rr < r

    return offer


def _sweep(r: int, todo: list[int], syms: list[str], ends: list[int], nxt: list[int], prv: list[int],
           cur: list[int], new: list[Optional[str]], offer: Offer) -> list[int]:
    """One wave: merge the pairs of rank ``r`` left to right, from ``todo`` (sorted) and the side heap
    of same-rank pairs its merges make. Returns what is left when a lower rank came up, else []."""
    # The loop body is the per-merge hot path for long pieces: kept in one piece, on local names.
    heappop = heapq.heappop
    side: list[int] = []  # same-rank candidates made during this wave (left of the sweep)
    c, nt = 0, len(todo)
    while True:
        if side:
            i = heappop(side)
        elif c < nt:
            i = todo[c]
            c += 1
        else:
            return []
        if cur[i] != r:  # stale: the pair at i changed since it was queued
            continue
        j = nxt[i]
        t = new[i]
        syms[i] = t  # type: ignore[assignment]
        syms[j] = None  # type: ignore[call-overload]
        ends[i] = ends[j]
        cur[j] = -1
        k = nxt[j]
        nxt[i] = k
        lower = False
        if k >= 0:
            prv[k] = i
            lower = offer(i, (t, syms[k]), r, side)  # type: ignore[arg-type]
        else:
            cur[i] = -1
        p = prv[i]
        if p >= 0:
            lower = offer(p, (syms[p], t), r, side) or lower  # type: ignore[arg-type]
        if lower:
            return side + todo[c:]
