"""Encoding by replaying training events in order: a word's symbols after its merges and removals.

Training applied each event to the whole corpus in turn: a merge joins every ``left right`` of each
word (left to right, without overlap), a removal splits every occurrence of its token back into the
tokens of its split. Replaying does exactly that to one word, so every training word comes out as
training left it. PickyBPE encodes a piece so (:mod:`tokenizer_core.pickybpe.replay`); BoundlessBPE
replays each pretoken so, then its superword merges over the run (:mod:`tokenizer_core.boundless.replay`).

Replaying every event for every word would cost the whole event list per word, so only those that
change something are visited: each adjacent pair waits for the first merge of its two tokens after
the moment the pair was formed, each token for its first removal after it was made, in one queue
ordered by event, then by position (which keeps a merge left to right). Whatever an event makes
waits only for later events. So a word costs about ``n log n`` for ``n`` symbols and events it
meets, like the BPE encoder's heap (:mod:`tokenizer_core.bpe.merging`).

>>> index = EventIndex([("merge", "a", "b"), ("merge", "ab", "c"), ("remove", "ab", ("a", "b"))])
>>> tokens, singles = replay_word("abcab", index)
>>> [t for t, _, _ in tokens], [t for t, _, _ in replay_word("abcab", index, upto=2)[0]]
(['abc', 'a', 'b'], ['abc', 'ab'])
>>> replay_word("abc", index)[1]
[(1, 4611686018427387904, 'abc')]
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Sequence
from typing import Optional

#: A replayed token: its text and its span ``(start, end)`` in the symbols replayed.
Piece = tuple[str, int, int]
#: A stretch of events during which a word is one token: after event ``start``, before event ``end``.
Single = tuple[int, int, str]
#: Later than any event.
NEVER = 1 << 62


class EventIndex:
    """For each pair and token, where its merges, superword merges and removals stand in the event order.

    ``events`` are ``("merge", left, right)``, ``("supermerge", left, right)`` (BoundlessBPE's merges
    across pretokens) and ``("remove", token, split)`` tuples.
    """

    def __init__(self, events: Sequence[tuple]) -> None:
        self.merges: dict[tuple[str, str], list[int]] = {}
        self.supermerges: dict[tuple[str, str], list[int]] = {}
        self.removals: dict[str, list[int]] = {}
        self.splits: dict[int, tuple[str, ...]] = {}
        self.joined: dict[int, str] = {}
        for i, e in enumerate(events):
            if e[0] == "remove":
                self.removals.setdefault(e[1], []).append(i)
                self.splits[i] = tuple(e[2])
            else:
                into = self.merges if e[0] == "merge" else self.supermerges
                into.setdefault((e[1], e[2]), []).append(i)
                if e[0] == "supermerge":
                    self.joined[i] = e[1] + e[2]

    def next_merge(self, left: str, right: str, after: int) -> Optional[int]:
        """The first merge of ``(left, right)`` inside a word after event ``after``, or None."""
        at = self.merges.get((left, right))
        if at is None:
            return None
        k = bisect_right(at, after)
        return at[k] if k < len(at) else None

    def next_supermerge(self, left: str, right: str, after: int) -> Optional[int]:
        """The first superword merge of ``(left, right)`` after event ``after``, or None."""
        at = self.supermerges.get((left, right))
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


def replay_word(symbols: Sequence[str], index: EventIndex, *, upto: int = NEVER) -> tuple[list[Piece], list[Single]]:
    """One word's tokens after its events before ``upto`` (each with its span in ``symbols``), and
    the stretches of events during which it was a single token."""
    n = len(symbols)
    if n == 0:
        return [], []
    # Nodes of a linked list; a node is never edited, a merge or a split makes new ones.
    tok, start, end = list(symbols), list(range(n)), list(range(1, n + 1))
    nxt, prv = list(range(1, n)) + [-1], list(range(-1, n - 1))
    alive = [True] * n
    n_alive = n
    singles: list[list] = [[-1, NEVER, tok[0]]] if n == 1 else []
    queue: list[tuple[int, int, int, int]] = []  # (event, start, left node, right node or -1)
    next_merge, next_removal = index.next_merge, index.next_removal

    def wait_pair(i: int, j: int, after: int) -> None:
        if i >= 0 and j >= 0:
            e = next_merge(tok[i], tok[j], after)
            if e is not None and e < upto:
                heapq.heappush(queue, (e, start[i], i, j))

    def wait_token(i: int, after: int) -> None:
        e = next_removal(tok[i], after)
        if e is not None and e < upto:
            heapq.heappush(queue, (e, start[i], i, -1))

    def node(text: str, s: int, t: int) -> int:
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
        if j >= 0:  # a merge: still these two nodes, side by side?
            if not (alive[i] and alive[j] and nxt[i] == j):
                continue
            k = node(tok[i] + tok[j], start[i], end[j])
            p, q = prv[i], nxt[j]
            alive[i] = alive[j] = False
            link(p, k)
            link(k, q)
            head = k if head == i else head
            n_alive -= 1
            if n_alive == 1:
                singles.append([e, NEVER, tok[k]])
            wait_pair(p, k, e)
            wait_pair(k, q, e)
            wait_token(k, e)
        elif alive[i]:  # a removal: the token goes back to the tokens it was split into
            if n_alive == 1:
                singles[-1][1] = e
            p, q = prv[i], nxt[i]
            alive[i] = False
            at, made = start[i], []
            for part in index.splits[e]:
                made.append(node(part, at, at + len(part)))
                at += len(part)
            n_alive += len(made) - 1
            for a, b in zip([p, *made], [*made, q]):
                link(a, b)
            head = made[0] if head == i else head
            for a, b in zip([p, *made], [*made, q]):
                wait_pair(a, b, e)
            for k in made:
                wait_token(k, e)
    out: list[Piece] = []
    i = head
    while i >= 0:
        out.append((tok[i], start[i], end[i]))
        i = nxt[i]
    return out, [(s, t, x) for s, t, x in singles]
