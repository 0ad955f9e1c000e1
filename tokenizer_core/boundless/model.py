"""The BoundlessBPE model: the final vocabulary and the training events, encoding in training order.

A BoundlessBPE tokenizer is not a plain BPE merge list. Its superword merges join two whole
pretokens, which a merge list applied inside each pretoken never does; and with removals on, some
merges take a token that a later event removed (as in PickyBPE). So the model keeps the events,
``("merge", left, right)`` inside a pretoken, ``("supermerge", left, right)`` across two complete
pretokens and ``("remove", token, split)``, and encodes a piece by applying them in training order
(:mod:`tokenizer_core.boundless.replay`), as the authors' tokenizer does. Its pieces are runs of
pretokens that may join (:class:`~tokenizer_core.boundless.runs.BoundlessRuns`), split back into
pretokens with the tokenizer's pattern, so every training run comes out as training left it.

>>> events = [("merge", "o", "f"), ("merge", "Ġ", "a"), ("supermerge", "of", "Ġa")]
>>> m = BoundlessBPE({**{c: i for i, c in enumerate("ofaĠ")}, "of": 4, "Ġa": 5, "ofĠa": 6}, events)
>>> [(t.text, t.offsets) for t in m.tokenize("ofĠaĠa")]
[('ofĠa', (0, 4)), ('Ġa', (4, 6))]
>>> m.supermerges, m.segment("ofĠa", upto=2)
([('of', 'Ġa')], ['of', 'Ġa'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tokenizer_core.boundless.replay import Piece, Single, replay_run, replay_word
from tokenizer_core.boundless.runs import checked_pattern, split_run
from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.removals.checks import check_symbols, events_json, loading
from tokenizer_core.removals.model import EventModel
from tokenizer_core.text.byte_level import GPT2_PATTERN
from tokenizer_core.types import CACHE_LIMIT

KINDS = ("merge", "supermerge", "remove")


@register("model", "BoundlessBPE")
class BoundlessBPE(EventModel):
    """A vocabulary, the ordered events that made it, and the pattern its runs split back with."""

    type_name = "BoundlessBPE"
    merge_kinds = KINDS[:2]

    def __init__(self, vocab: Mapping[str, int], events: Sequence[Sequence[Any]] = (), *,
                 pattern: str = GPT2_PATTERN) -> None:
        self._set_vocab(vocab)
        self.pattern = checked_pattern(pattern)
        self._set_events(events)
        self._words: dict[str, tuple[list[Piece], list[Single]]] = {}

    @property
    def merges(self) -> list[tuple[str, str]]:
        """Every merge's pair in order, inside pretokens and across them (removed tokens' included)."""
        return [(e[1], e[2]) for e in self.events if e[0] != "remove"]

    @property
    def supermerges(self) -> list[tuple[str, str]]:
        """The superword merges' pairs (across pretokens), in order."""
        return [(e[1], e[2]) for e in self.events if e[0] == "supermerge"]

    # ------------------------------------------------------------------ encoding
    def _check(self, piece: str) -> None:
        check_symbols(piece, self._vocab, model="BoundlessBPE", pre_tokenizer="BoundlessRuns")

    def _history(self, pretoken: str) -> tuple[list[Piece], list[Single]]:
        hit = self._words.get(pretoken)
        if hit is None:
            if len(self._words) >= CACHE_LIMIT:
                self._words.clear()
            hit = self._words[pretoken] = replay_word(pretoken, self._index)
        return hit

    def _replay(self, piece: str, upto: int) -> list[Piece]:
        self._check(piece)
        return replay_run(split_run(piece, pattern=self.pattern), self._index, upto=upto, history=self._history)

    # -------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, the events in order, and the split pattern (when not GPT-2's)."""
        d: dict[str, Any] = {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "events": events_json(self.events),
        }
        if self.pattern != GPT2_PATTERN:
            d["pattern"] = self.pattern
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BoundlessBPE":
        with loading(data, model="BoundlessBPE"):
            return cls(data["vocab"], data.get("events", []), pattern=data.get("pattern", GPT2_PATTERN))

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a ``tokenizers`` file: only for a model without superword merges
        or removals, which is a plain BPE model (training with both switched off gives one)."""
        kinds = {e[0] for e in self.events}
        if kinds - {"merge"}:
            what = " and ".join(w for k, w in (("supermerge", "merged whole pretokens into superwords"),
                                               ("remove", "removed tokens")) if k in kinds)
            raise TokenizerError(
                f"this BoundlessBPE model {what} during training, which tokenizers' BPE model cannot express "
                "(it merges inside pretokens only, and its merges need every token they use); save it in this "
                "program's own format (Tokenizer.save), which encodes by the training events")
        from tokenizer_core.bpe.model import BPE

        return BPE(self._vocab, self.merges).to_hf()

    def __repr__(self) -> str:
        return (f"BoundlessBPE(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
                f"superwords={len(self.supermerges)}, removed={len(self.removed_tokens())})")

