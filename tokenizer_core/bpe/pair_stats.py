"""Pair statistics for BPE training: the initial pair counts and queue, and their update when a pair merges.

A pair ``(a, b)`` of symbol ids is the int ``a << shift | b``, so the queue's order on
keys is the order on ``(a, b)``. Queue entries are ``(-count, key, sequence number,
words holding the pair)``; entries go stale as counts change and are corrected lazily.

The compiled kernel's MergeState mirrors this module step for step: count_pairs and pair_queue in
kernels/src/merges_init.c, merge_everywhere in kernels/src/merges.c.

>>> words, counts = [[0, 1, 0, 1]], [2]
>>> pair_counts, heap, seq = pair_queue(words, counts, shift=16)
>>> sorted((k >> 16, k & 0xFFFF, c) for k, c in pair_counts.items())
[(0, 1, 4), (1, 0, 2)]
>>> merge_everywhere(words, counts, [0], 0, 1, 2, 16, pair_counts, heap, seq), words
(4, [[2, 2]])
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import count as _count

#: A queue entry: (-count, pair key, tie-free sequence number, words to visit).
QueueEntry = tuple[int, int, int, list[int]]


def count_pairs(words: list[list[int]], counts: list[int], shift: int) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Pair counts and, per pair, the words holding it (each word once, in order)."""
    pair_counts: dict[int, int] = {}
    where: dict[int, list[int]] = {}
    get = pair_counts.get
    for wi, w in enumerate(words):
        if len(w) < 2:
            continue
        c = counts[wi]
        x = w[0]
        for y in w[1:]:
            key = (x << shift) | y
            x = y
            pair_counts[key] = get(key, 0) + c
            lst = where.get(key)
            if lst is None:
                where[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)
    return pair_counts, where


def pair_queue(words: list[list[int]], counts: list[int], *, shift: int) -> tuple[dict[int, int], list, Iterator[int]]:
    """Pair counts, the priority queue over them, and the sequence that numbers new entries."""
    pair_counts, where = count_pairs(words, counts, shift)
    seq = _count()
    heap = [(-pair_counts[key], key, next(seq), lst) for key, lst in where.items() if pair_counts[key] > 0]
    heapq.heapify(heap)
    # `where` itself (one dict entry per pair) is dropped here; the heap keeps its word lists.
    return pair_counts, heap, seq


def merge_everywhere(
    words: list[list[int]],
    counts: list[int],
    positions: list[int],
    a: int,
    b: int,
    new_id: int,
    shift: int,
    pair_counts: dict[int, int],
    heap: list,
    seq: Iterator[int],
) -> int:
    """Merge ``(a, b)`` in the listed words; update pair counts and queue; return tokens saved.

    Within a word occurrences are merged left to right. For each one the pairs with the
    neighbours change: (prev, a) and (b, next) lose a count, (prev, new) and (new, next)
    gain one, and the words where a pair gained are queued under that pair.
    """
    # Long on purpose: this is the innermost loop of training. The common case (one occurrence
    # of `a` in the word) and its two neighbour updates are written out inline, because a helper
    # would add a Python call to every pair update; words with several occurrences are rarer and
    # go to _merge_repeated. tests/core/bpe/test_pair_stats.py pins the result against a recount.
    gained: dict[int, list[int]] = {}
    gained_get = gained.get
    pc_get = pair_counts.get
    saved = 0
    b_left = b << shift
    new_left = new_id << shift
    for wi in positions:
        w = words[wi]
        na = w.count(a)
        if not na:
            continue
        if na > 1:
            saved += _merge_repeated(words, wi, counts[wi], a, b, new_id, shift, pair_counts, gained)
            continue
        i = w.index(a)
        n = len(w)
        if i + 1 == n or w[i + 1] != b:
            continue
        c = counts[wi]
        if i:
            p = w[i - 1]
            key = (p << shift) | a
            pair_counts[key] -= c
            key = (p << shift) | new_id
            pair_counts[key] = pc_get(key, 0) + c
            lst = gained_get(key)
            if lst is None:
                gained[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)
        if i + 2 < n:
            q = w[i + 2]
            pair_counts[b_left | q] -= c
            key = new_left | q
            pair_counts[key] = pc_get(key, 0) + c
            lst = gained_get(key)
            if lst is None:
                gained[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)
        w[i] = new_id
        del w[i + 1]
        saved += c
    _queue_gained(heap, pair_counts, gained, seq)
    return saved


def _merge_repeated(
    words: list[list[int]], wi: int, c: int, a: int, b: int, new_id: int, shift: int,
    pair_counts: dict[int, int], gained: dict[int, list[int]],
) -> int:
    """:func:`merge_everywhere` for a word holding ``a`` more than once: rebuilt left to right
    (``a a a`` with the pair ``a a`` gives ``aa a``); returns the tokens saved."""
    w = words[wi]
    n = len(w)
    saved = 0
    out: list[int] = []
    i = j = 0
    while i < n - 1:
        if w[i] == a and w[i + 1] == b:
            out.extend(w[j:i])
            if out:
                p = out[-1]
                pair_counts[(p << shift) | a] -= c
                _gain(pair_counts, gained, (p << shift) | new_id, c, wi)
            if i + 2 < n:
                q = w[i + 2]
                pair_counts[(b << shift) | q] -= c
                _gain(pair_counts, gained, (new_id << shift) | q, c, wi)
            out.append(new_id)
            saved += c
            i += 2
            j = i
        else:
            i += 1
    if j:
        out.extend(w[j:])
        words[wi] = out
    return saved


def _gain(pair_counts: dict[int, int], gained: dict[int, list[int]], key: int, c: int, wi: int) -> None:
    """Pair ``key`` gains ``c`` in word ``wi``: count it, and note the word to queue under it."""
    pair_counts[key] = pair_counts.get(key, 0) + c
    lst = gained.get(key)
    if lst is None:
        gained[key] = [wi]
    elif lst[-1] != wi:
        lst.append(wi)


def _queue_gained(heap: list, pair_counts: dict[int, int], gained: dict[int, list[int]], seq: Iterator[int]) -> None:
    """Queue each pair that gained, under its current count, with the words where it gained."""
    push = heapq.heappush
    for key, lst in gained.items():
        cnt = pair_counts[key]
        if cnt > 0:
            push(heap, (-cnt, key, next(seq), lst))
