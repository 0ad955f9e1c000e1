"""The base of PickyBPE's and BoundlessBPE's models: a vocabulary and the training events, checked,
indexed for replay, with a cache of encoded pieces.

A subclass says how a piece replays (``_replay(piece, upto)``: the tokens with their spans after the
first ``upto`` events, all of them when ``upto`` is ``NEVER``); encoding, segmenting after some events
and the removed tokens are then the same for both.

>>> from tokenizer_core.pickybpe.model import PickyBPE
>>> m = PickyBPE({"a": 0, "b": 1, "ab": 2}, [("merge", "a", "b")])
>>> [t.text for t in m.tokenize("abab")], m.segment("abab", upto=0), m.removed_tokens()
(['ab', 'ab'], ['a', 'b', 'a', 'b'], [])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from tokenizer_core.model_base import VocabLookup, checked_vocab
from tokenizer_core.removals.checks import check_upto, checked_events, removed_tokens
from tokenizer_core.removals.replay import NEVER, EventIndex, Piece
from tokenizer_core.types import CACHE_LIMIT, Token


class EventModel(VocabLookup):
    """A vocabulary and the ordered events that made it (``merge_kinds``: the kinds of merge event)."""

    type_name = "EventModel"
    merge_kinds: tuple[str, ...] = ("merge",)

    def _set_vocab(self, vocab: Mapping[str, int]) -> None:
        self._vocab = checked_vocab(vocab, model=self.type_name)
        self._inv = {i: t for t, i in self._vocab.items()}

    def _set_events(self, events: Sequence[Sequence[Any]]) -> None:
        self.events: list[tuple] = checked_events(events, self._vocab, merge_kinds=self.merge_kinds)
        self._index = EventIndex(self.events)
        self._cache: dict[str, tuple[Token, ...]] = {}
        #: The training trace when this model was just trained (not saved with the model).
        self.training_trace: Any = None

    def removed_tokens(self) -> list[str]:
        """Tokens some merge made that are not in the vocabulary now, in the order they went."""
        return removed_tokens(self.events, self._vocab)

    def _replay(self, piece: str, upto: int) -> list[Piece]:
        raise NotImplementedError

    def _encode(self, piece: str) -> list[Token]:
        vocab = self._vocab
        return [Token(vocab[t], t, (s, e)) for t, s, e in self._replay(piece, NEVER)]

    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one piece; offsets are character positions in the piece."""
        hit = self._cache.get(piece)
        if hit is not None:
            return list(hit)
        toks = self._encode(piece)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[piece] = tuple(toks)
        return toks

    def segment(self, piece: str, *, upto: Optional[int] = None) -> list[str]:
        """Token strings of ``piece`` after the first ``upto`` events (all when None): how training
        had segmented it then. Tokens removed by a later event may appear."""
        if upto is None:
            return [t.text for t in self.tokenize(piece)]
        check_upto(upto, len(self.events))
        return [t for t, _, _ in self._replay(piece, upto)]
