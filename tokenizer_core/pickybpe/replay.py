"""PickyBPE encoding: a piece's symbols after the training events, applied in training order.

Training applied each event to the whole corpus in turn: a merge joins every ``left right`` of each
word (left to right, without overlap), a removal splits every occurrence of its token back into
present tokens. Encoding a piece does exactly that to the piece, so every training word comes out
as training left it. A plain merge list cannot say this (``tokenizers``' BPE model would keep a
removed token, and merge a pair whose input was removed); the events can.

Replaying every event for every piece would cost the whole event list per piece, so only those
that change something are visited: each adjacent pair waits for the first merge of its two tokens
after the moment the pair was formed, each token for its first removal after it was made, in one
queue ordered by event (then by position, which keeps a merge left to right). Whatever an event
makes waits only for later events. So a piece costs about ``n log n`` for ``n`` symbols and events
it meets, like the BPE encoder's heap (:mod:`tokenizer_core.bpe.merging`).

>>> events = [("merge", "a", "b"), ("merge", "ab", "c"), ("remove", "ab", ("a", "b"))]
>>> index = EventIndex(events)
>>> [t for t, _, _ in replay("abcab", index)]
['abc', 'a', 'b']
>>> [t for t, _, _ in replay("abcab", index, upto=2)]
['abc', 'ab']
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Sequence
from typing import Optional

#: A replayed token: its text and its span ``(start, end)`` in the piece's symbols.
Piece = tuple[str, int, int]


class EventIndex:
    """For each pair and each token, where its merges (or removals) stand in the event order.

    ``events`` are ``("merge", left, right)`` and ``("remove", token, split)`` tuples.
    """

    def __init__(self, events: Sequence[tuple]) -> None:
        self.merges: dict[tuple[str, str], list[int]] = {}
        self.removals: dict[str, list[int]] = {}
        self.splits: dict[int, tuple[str, ...]] = {}
        for i, e in enumerate(events):
            if e[0] == "merge":
                self.merges.setdefault((e[1], e[2]), []).append(i)
            else:
                self.removals.setdefault(e[1], []).append(i)
                self.splits[i] = tuple(e[2])

    def next_merge(self, left: str, right: str, after: int) -> Optional[int]:
        """The first merge of ``(left, right)`` after event ``after``, or None."""
        at = self.merges.get((left, right))
        if at is None:
            return None
        k = bisect_right(at, after)
        return at[k] if k < len(at) else None

    def next_removal(self, token: str, after: int) -> Optional[int]:
        """The first removal of ``token`` after event ``after``, or None."""
        at = self.removals.get(token)
        if at is None:
            return None
        k = bisect_right(at, after)
        return at[k] if k < len(at) else None


def replay(symbols: Sequence[str], index: EventIndex, *, upto: Optional[int] = None) -> list[Piece]:
    """The tokens of ``symbols`` (a piece's initial symbols) after events ``0 .. upto - 1`` (all
    when None), each with its span in ``symbols``."""
    n = len(symbols)
    if n == 0:
        return []
    # Nodes of a linked list; a node is never edited, a merge or a split makes new ones.
    tok = list(symbols)
    start = list(range(n))
    end = list(range(1, n + 1))
    nxt = list(range(1, n)) + [-1]
    prv = list(range(-1, n - 1))
    alive = [True] * n
    limit = upto if upto is not None else 1 << 62
    queue: list[tuple[int, int, int, int]] = []  # (event, start, left node, right node or -1)
    next_merge, next_removal = index.next_merge, index.next_removal

    def wait_pair(i: int, j: int, after: int) -> None:
        if i >= 0 and j >= 0:
            e = next_merge(tok[i], tok[j], after)
            if e is not None and e < limit:
                heapq.heappush(queue, (e, start[i], i, j))

    def wait_token(i: int, after: int) -> None:
        e = next_removal(tok[i], after)
        if e is not None and e < limit:
            heapq.heappush(queue, (e, start[i], i, -1))

    def new_node(text: str, s: int, t: int) -> int:
        tok.append(text)
        start.append(s)
        end.append(t)
        nxt.append(-1)
        prv.append(-1)
        alive.append(True)
        return len(tok) - 1

    def link(i: int, j: int) -> None:
        if i >= 0:
            nxt[i] = j
        if j >= 0:
            prv[j] = i

    for i in range(n - 1):
        wait_pair(i, i + 1, -1)
    if index.removals:
        for i in range(n):
            wait_token(i, -1)
    head = 0
    while queue:
        e, _, i, j = heapq.heappop(queue)
        if j >= 0:  # a merge: still these two nodes, still side by side?
            if not (alive[i] and alive[j] and nxt[i] == j):
                continue
            k = new_node(tok[i] + tok[j], start[i], end[j])
            p, q = prv[i], nxt[j]
            alive[i] = alive[j] = False
            link(p, k)
            link(k, q)
            if head == i:
                head = k
            wait_pair(p, k, e)
            wait_pair(k, q, e)
            wait_token(k, e)
        else:  # a removal: the token goes back to the tokens it was split into
            if not alive[i]:
                continue
            p, q = prv[i], nxt[i]
            alive[i] = False
            at = start[i]
            made = []
            for part in index.splits[e]:
                made.append(new_node(part, at, at + len(part)))
                at += len(part)
            for a, b in zip([p, *made], [*made, q]):
                link(a, b)
            if head == i:
                head = made[0]
            for a, b in zip([p, *made], [*made, q]):
                wait_pair(a, b, e)
            for k in made:
                wait_token(k, e)
    out: list[Piece] = []
    i = head
    while i >= 0:
        out.append((tok[i], start[i], end[i]))
        i = nxt[i]
    return out
