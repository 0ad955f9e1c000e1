"""BoundlessBPE encoding: a run's pretokens after the training events, applied in training order.

Training applied each event to the whole corpus in turn: a merge joins every ``left right`` inside
each pretoken (left to right, without overlap), a removal splits every occurrence of its token back
into its bytes, and a superword merge joins every two side-by-side pretokens (or superwords) that are
then complete tokens ``left`` and ``right``. Encoding a run does exactly that, so every training run
comes out as training left it.

It does so in two passes. :func:`~tokenizer_core.removals.replay.replay_word` replays one
pretoken's own events (merges and removals) as PickyBPE replays a piece, and notes when the pretoken
was a single token, and which. :func:`replay_run` then replays the superword merges over the run's
pretokens the same way: two neighbours wait for the first superword merge of their tokens while both
are single tokens. Whatever an event makes waits only for later events.

>>> index = EventIndex([("merge", "o", "f"), ("merge", "Ġ", "a"), ("supermerge", "of", "Ġa"),
...                     ("merge", "Ġa", "t")])
>>> [t for t, _, _ in replay_run(["of", "Ġa", "Ġat"], index)]
['ofĠa', 'Ġat']
>>> [t for t, _, _ in replay_run(["of", "Ġa"], index, upto=2)]
['of', 'Ġa']
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Optional

from tokenizer_core.removals.replay import NEVER, EventIndex, Piece, Single, replay_word

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
