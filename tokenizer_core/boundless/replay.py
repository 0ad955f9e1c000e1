"""BoundlessBPE encoding: a run's pretokens after the training events, applied in training order.

Training applied each event to the whole corpus in turn: a merge joins every ``left right`` inside
each pretoken (left to right, without overlap), a removal splits every occurrence of its token back
into its bytes, and a superword merge joins every two side-by-side pretokens (or superwords) that are
then complete tokens ``left`` and ``right``. Encoding a run does exactly that, so every training run
comes out as training left it.

It does so in two passes. :func:`replay_word` replays one pretoken's own events (merges and
removals), visiting only those that change something: each adjacent pair waits for the first merge
of its two tokens after the moment the pair was formed, each token for its first removal after it
was made, in one queue ordered by event, then by position (so one merge goes left to right). It also
notes when the pretoken was a single token, and which. :func:`replay_run` then replays the superword
merges over the run's pretokens the same way: two neighbours wait for the first superword merge of
their tokens while both are single tokens. Whatever an event makes waits only for later events.

>>> index = EventIndex([("merge", "o", "f"), ("merge", "Ġ", "a"), ("supermerge", "of", "Ġa"),
...                     ("merge", "Ġa", "t")])
>>> [t for t, _, _ in replay_run(["of", "Ġa", "Ġat"], index)]
['ofĠa', 'Ġat']
>>> [t for t, _, _ in replay_run(["of", "Ġa"], index, upto=2)]
['of', 'Ġa']
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Optional

#: A replayed token: its text and its span ``(start, end)`` in the characters replayed.
Piece = tuple[str, int, int]
#: A stretch of events during which a pretoken is one token: after event ``start``, before event ``end``.
Single = tuple[int, int, str]
#: Later than any event.
NEVER = 1 << 62


class EventIndex:
    """For each pair and token, where its merges, superword merges and removals stand in the event order.

    ``events`` are ``("merge", left, right)``, ``("supermerge", left, right)`` and
    ``("remove", token, split)`` tuples.
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

    @staticmethod
    def _next(at: Optional[list[int]], after: int) -> Optional[int]:
        if at is None:
            return None
        k = bisect_right(at, after)
        return at[k] if k < len(at) else None

    def next_merge(self, left: str, right: str, after: int) -> Optional[int]:
        """The first merge of ``(left, right)`` inside a pretoken after event ``after``, or None."""
        return self._next(self.merges.get((left, right)), after)

    def next_supermerge(self, left: str, right: str, after: int) -> Optional[int]:
        """The first superword merge of ``(left, right)`` after event ``after``, or None."""
        return self._next(self.supermerges.get((left, right)), after)

    def next_removal(self, token: str, after: int) -> Optional[int]:
        """The first removal of ``token`` after event ``after``, or None."""
        return self._next(self.removals.get(token), after)


def replay_word(symbols: Sequence[str], index: EventIndex, *, upto: int = NEVER) -> tuple[list[Piece], list[Single]]:
    """One pretoken's tokens after its events before ``upto`` (each with its span in ``symbols``),
    and the stretches of events during which it was a single token."""
    n = len(symbols)
    if n == 0:
        return [], []
    tok, start, end = list(symbols), list(range(n)), list(range(1, n + 1))
    nxt, prv = list(range(1, n)) + [-1], list(range(-1, n - 1))
    alive = [True] * n
    n_alive = n
    singles: list[list] = [[-1, NEVER, tok[0]]] if n == 1 else []
    queue: list[tuple[int, int, int, int]] = []  # (event, start, left node, right node or -1)

    def wait_pair(i: int, j: int, after: int) -> None:
        if i >= 0 and j >= 0:
            e = index.next_merge(tok[i], tok[j], after)
            if e is not None and e < upto:
                heapq.heappush(queue, (e, start[i], i, j))

    def wait_token(i: int, after: int) -> None:
        e = index.next_removal(tok[i], after)
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


History = Callable[[str], tuple[list[Piece], list[Single]]]


def replay_run(pretokens: Sequence[str], index: EventIndex, *, upto: int = NEVER,
               history: Optional[History] = None) -> list[Piece]:
    """The tokens of a run of pretokens after the events before ``upto``, each with its span in the
    run's characters. ``history`` (a pretoken's :func:`replay_word` over every event, e.g. cached)
    stands in for replaying each pretoken when ``upto`` is not given."""
    if history is None or upto != NEVER:
        words = [replay_word(p, index, upto=upto) for p in pretokens]
    else:
        words = [history(p) for p in pretokens]
    offsets = [0]
    for p in pretokens:
        offsets.append(offsets[-1] + len(p))
    n = len(pretokens)
    if n < 2 or not index.supermerges:
        return [(t, s + offsets[k], e + offsets[k]) for k, (toks, _) in enumerate(words) for t, s, e in toks]
    singles: list[list[Single]] = [w[1] for w in words]
    superword: list[Optional[str]] = [None] * n
    start, end = offsets[:-1], offsets[1:]
    nxt, prv = list(range(1, n)) + [-1], list(range(-1, n - 1))
    alive = [True] * n
    queue: list[tuple[int, int, int, int]] = []

    def wait(i: int, j: int) -> None:
        if i < 0 or j < 0:
            return
        best = None
        for s1, t1, a in singles[i]:
            for s2, t2, b in singles[j]:
                lo, hi = max(s1, s2), min(t1, t2, upto)
                e = index.next_supermerge(a, b, lo) if lo < hi else None
                if e is not None and e < hi and (best is None or e < best):
                    best = e
        if best is not None:
            heapq.heappush(queue, (best, start[i], i, j))

    for i in range(n - 1):
        wait(i, i + 1)
    head = 0
    while queue:
        e, _, i, j = heapq.heappop(queue)
        if not (alive[i] and alive[j] and nxt[i] == j):
            continue
        text = index.joined[e]
        k = len(alive)
        singles.append([(e, NEVER, text)])
        superword.append(text)
        start.append(start[i])
        end.append(end[j])
        alive.append(True)
        alive[i] = alive[j] = False
        p, q = prv[i], nxt[j]
        nxt.append(q)
        prv.append(p)
        if p >= 0:
            nxt[p] = k
        if q >= 0:
            prv[q] = k
        head = k if head == i else head
        wait(p, k)
        wait(k, q)
    out: list[Piece] = []
    i = head
    while i >= 0:
        word = superword[i]
        if word is not None:
            out.append((word, start[i], end[i]))
        else:
            out.extend((t, s + start[i], t_end + start[i]) for t, s, t_end in words[i][0])
        i = nxt[i]
    return out
