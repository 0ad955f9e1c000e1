"""PickyBPE encoding: a piece's symbols after the training events, applied in training order.

Training applied each event to the whole corpus in turn: a merge joins every ``left right`` of each
word (left to right, without overlap), a removal splits every occurrence of its token back into
present tokens. Encoding a piece does exactly that to the piece, so every training word comes out
as training left it. A plain merge list cannot say this (``tokenizers``' BPE model would keep a
removed token, and merge a pair whose input was removed); the events can.

Only the events that change something are visited, in one queue ordered by event (then by
position): :func:`~tokenizer_core.removals.replay.replay_word`, which BoundlessBPE replays each of its
pretokens with too.

>>> events = [("merge", "a", "b"), ("merge", "ab", "c"), ("remove", "ab", ("a", "b"))]
>>> index = EventIndex(events)
>>> [t for t, _, _ in replay("abcab", index)]
['abc', 'a', 'b']
>>> [t for t, _, _ in replay("abcab", index, upto=2)]
['abc', 'ab']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from tokenizer_core.removals.replay import NEVER, EventIndex, Piece, replay_word


def replay(symbols: Sequence[str], index: EventIndex, *, upto: Optional[int] = None) -> list[Piece]:
    """The tokens of ``symbols`` (a piece's initial symbols) after events ``0 .. upto - 1`` (all
    when None), each with its span in ``symbols``."""
    return replay_word(symbols, index, upto=NEVER if upto is None else upto)[0]
