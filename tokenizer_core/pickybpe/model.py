"""The PickyBPE model: the final vocabulary and the training events, encoding in training order.

A PickyBPE tokenizer cannot be a plain BPE merge list. A removed token is gone from the vocabulary,
yet later merges were learned on a corpus where it had been split back, and some merges take it as
an input (they came before its removal). ``tokenizers``' BPE model would refuse such a list (a merge
input missing from the vocabulary) or, given the removed tokens back, keep them. So the model keeps
the events, ``("merge", left, right)`` and ``("remove", token, split)``, and encodes a piece by
applying them in order (:func:`~tokenizer_core.pickybpe.replay.replay`), as the paper's tokenizer
does: every training word is encoded as training left it.

``ignore_merges`` (off by default) is the authors' tokenizer's shortcut, also ``tokenizers``' option
of that name: a piece that is itself a token is that one token, whatever the events would make of it.

>>> events = [("merge", "a", "b"), ("merge", "ab", "c"), ("remove", "ab", ("a", "b"))]
>>> m = PickyBPE({"a": 0, "b": 1, "c": 2, "abc": 3}, events)
>>> [t.text for t in m.tokenize("abcab")], [t.offsets for t in m.tokenize("abcab")]
(['abc', 'a', 'b'], [(0, 3), (3, 4), (4, 5)])
>>> m.removed_tokens(), m.segment("abcab", upto=2)
(['ab'], ['abc', 'ab'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.pickybpe.replay import Piece, replay
from tokenizer_core.registry import register
from tokenizer_core.removals.checks import check_symbols, events_json, loading
from tokenizer_core.removals.model import EventModel
from tokenizer_core.types import Token


@register("model", "PickyBPE")
class PickyBPE(EventModel):
    """A vocabulary and the ordered merge and removal events that made it."""

    type_name = "PickyBPE"

    def __init__(self, vocab: Mapping[str, int], events: Sequence[Sequence[Any]] = (), *,
                 ignore_merges: bool = False) -> None:
        self._set_vocab(vocab)
        self._set_events(events)
        self.ignore_merges = bool(ignore_merges)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merge events' pairs, in order (removed tokens' merges included)."""
        return [(e[1], e[2]) for e in self.events if e[0] == "merge"]

    # ------------------------------------------------------------------ encoding
    def _symbols(self, piece: str) -> list[str]:
        check_symbols(piece, self._vocab, model="PickyBPE", pre_tokenizer="ByteLevel")
        return list(piece)

    def _replay(self, piece: str, upto: int) -> list[Piece]:
        return replay(self._symbols(piece), self._index, upto=upto)

    def _encode(self, piece: str) -> list[Token]:
        vocab = self._vocab
        if self.ignore_merges and piece in vocab:
            return [Token(vocab[piece], piece, (0, len(piece)))]
        return super()._encode(piece)

    # -------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, the events in order, and the option."""
        return {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "events": events_json(self.events),
            "ignore_merges": self.ignore_merges,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PickyBPE":
        with loading(data, model="PickyBPE"):
            return cls(data["vocab"], data.get("events", []), ignore_merges=bool(data.get("ignore_merges", False)))

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a ``tokenizers`` file: only for a model that removed nothing,
        which is a plain BPE model (a threshold of 1 trains one)."""
        if any(e[0] == "remove" for e in self.events):
            raise TokenizerError(
                "this PickyBPE model removed tokens during training, which tokenizers' BPE model cannot "
                "express (its merges need every token they use); save it in this program's own format "
                "(Tokenizer.save), which encodes by the training events")
        from tokenizer_core.bpe.model import BPE, BpeModelOptions

        return BPE(self._vocab, self.merges, options=BpeModelOptions(ignore_merges=self.ignore_merges)).to_hf()

    def __repr__(self) -> str:
        return (f"PickyBPE(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
                f"removed={len(self.removed_tokens())})")

