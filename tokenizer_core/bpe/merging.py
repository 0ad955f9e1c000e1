"""Rank-ordered merging of one word's symbols: a scan for short words, a heap for long ones.

Both apply the adjacent pair with the lowest rank first, the leftmost on equal ranks, and
edit the symbol list and its character spans together. The heap version also does
BPE-dropout and can record every merge as a :class:`MergeStep`.

The compiled kernel merges a piece's bytes the same way in kernels/src/bpe.c.

>>> rank = {("a", "b"): (0, "ab"), ("ab", "c"): (1, "abc")}.get
>>> syms, starts, ends = ["a", "b", "c", "d"], [0, 1, 2, 3], [1, 2, 3, 4]
>>> merge_scan(syms, starts, ends, rank)
>>> syms, starts, ends
(['abc', 'd'], [0, 3], [3, 4])
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Callable, Optional

from tokenizer_core.types import Token

#: ``rank((left, right)) -> (rank, merged token)``, or None when the pair never merges.
Ranker = Callable[[tuple[str, str]], Optional[tuple[int, str]]]

_INF = float("inf")


@dataclass(frozen=True, slots=True)
class MergeStep:
    """One merge applied while encoding a word: the pair at symbol ``position`` became ``token``."""

    order: int
    rank: int
    position: int
    left: str
    right: str
    token: str
    symbols_after: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WordTrace:
    """How one word was encoded: its initial symbols, every merge in order, the final tokens."""

    word: str
    initial: tuple[str, ...]
    steps: tuple[MergeStep, ...]
    tokens: tuple[Token, ...]


def merge_scan(syms: list[str], starts: list[int], ends: list[int], rank: Ranker) -> None:
    """Merge in place by repeated minimum search (fast for short pieces)."""
    ranks: list[float] = []
    news: list[Optional[str]] = []
    for i in range(len(syms) - 1):
        m = rank((syms[i], syms[i + 1]))
        if m is None:
            ranks.append(_INF)
            news.append(None)
        else:
            ranks.append(m[0])
            news.append(m[1])
    while ranks:
        best = min(ranks)
        if best == _INF:
            break
        i = ranks.index(best)  # leftmost among equal ranks
        new = news[i]
        syms[i] = new  # type: ignore[assignment]
        del syms[i + 1]
        ends[i] = ends[i + 1]
        del starts[i + 1], ends[i + 1], ranks[i], news[i]
        if i > 0:
            m = rank((syms[i - 1], new))  # type: ignore[arg-type]
            ranks[i - 1], news[i - 1] = (_INF, None) if m is None else m
        if i < len(ranks):
            m = rank((new, syms[i + 1]))  # type: ignore[arg-type]
            ranks[i], news[i] = (_INF, None) if m is None else m


def merge_heap(
    syms: list[str],
    starts: list[int],
    ends: list[int],
    rank: Ranker,
    *,
    dropout: float = 0.0,
    rng: Optional[random.Random] = None,
    steps: Optional[list[MergeStep]] = None,
) -> tuple[list[str], list[int], list[int]]:
    """Merge with a heap over a linked list: O(n log n) for any piece; supports dropout and tracing.

    BPE-dropout skips each candidate merge with probability ``dropout``; skipped merges
    come back after the next merge that happens, so ``dropout=0`` is the deterministic result.
    """
    n = len(syms)
    if n < 2:
        return syms, starts, ends
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        m = rank((syms[i], syms[i + 1]))
        if m is not None:
            heap.append((m[0], i, syms[i], syms[i + 1], m[1]))
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush
    skipped: list[tuple] = []
    draw = rng.random if rng is not None else random.random
    while heap:
        e = heappop(heap)
        if dropout and draw() < dropout:
            skipped.append(e)
            continue
        if skipped:  # dropped merges become candidates again after a merge is tried
            for s in skipped:
                heappush(heap, s)
            skipped.clear()
        r, i, left, right, new = e
        # A symbol only ever grows, so equal strings mean the entry is still current.
        if syms[i] != left:
            continue
        j = nxt[i]
        if j < 0 or syms[j] != right:
            continue
        syms[i] = new
        syms[j] = None  # type: ignore[call-overload]
        ends[i] = ends[j]
        k = nxt[j]
        nxt[i] = k
        if k >= 0:
            prv[k] = i
        p = prv[i]
        if p >= 0:
            m = rank((syms[p], new))
            if m is not None:
                heappush(heap, (m[0], p, syms[p], new, m[1]))
        if k >= 0:
            m = rank((new, syms[k]))
            if m is not None:
                heappush(heap, (m[0], i, new, syms[k], m[1]))
        if steps is not None:
            live = tuple(s for s in syms if s is not None)
            position = sum(1 for s in syms[:i] if s is not None)
            steps.append(MergeStep(len(steps) + 1, r, position, left, right, new, live))
    keep = [i for i, s in enumerate(syms) if s is not None]
    return [syms[i] for i in keep], [starts[i] for i in keep], [ends[i] for i in keep]
