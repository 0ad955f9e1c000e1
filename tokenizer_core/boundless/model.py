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
from typing import Any, Optional

from tokenizer_core.boundless.replay import NEVER, EventIndex, Piece, Single, replay_run, replay_word
from tokenizer_core.boundless.runs import checked_pattern, split_run
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import VocabLookup, checked_vocab
from tokenizer_core.registry import register
from tokenizer_core.text.byte_level import GPT2_PATTERN
from tokenizer_core.types import CACHE_LIMIT, Token

KINDS = ("merge", "supermerge", "remove")


@register("model", "BoundlessBPE")
class BoundlessBPE(VocabLookup):
    """A vocabulary, the ordered events that made it, and the pattern its runs split back with."""

    type_name = "BoundlessBPE"

    def __init__(self, vocab: Mapping[str, int], events: Sequence[Sequence[Any]] = (), *,
                 pattern: str = GPT2_PATTERN) -> None:
        self._vocab = checked_vocab(vocab, model="BoundlessBPE")
        self._inv = {i: t for t, i in self._vocab.items()}
        self.pattern = checked_pattern(pattern)
        self.events: list[tuple] = checked_events(events, self._vocab)
        self._index = EventIndex(self.events)
        self._words: dict[str, tuple[list[Piece], list[Single]]] = {}
        self._cache: dict[str, tuple[Token, ...]] = {}
        #: The training trace when this model was just trained (not saved with the model).
        self.training_trace: Any = None

    @property
    def merges(self) -> list[tuple[str, str]]:
        """Every merge's pair in order, inside pretokens and across them (removed tokens' included)."""
        return [(e[1], e[2]) for e in self.events if e[0] != "remove"]

    @property
    def supermerges(self) -> list[tuple[str, str]]:
        """The superword merges' pairs (across pretokens), in order."""
        return [(e[1], e[2]) for e in self.events if e[0] == "supermerge"]

    def removed_tokens(self) -> list[str]:
        """Tokens some merge made that are not in the vocabulary now, in the order they went."""
        return list({e[1]: None for e in self.events if e[0] == "remove" and e[1] not in self._vocab})

    # ------------------------------------------------------------------ encoding
    def _check(self, piece: str) -> None:
        vocab = self._vocab
        for ch in piece:
            if ch not in vocab:
                raise TokenizerError(
                    f"the character {ch!r} is not in this BoundlessBPE vocabulary; its tokenizer maps text to "
                    "byte symbols first (a BoundlessRuns pre-tokenizer), which every vocabulary holds")

    def _history(self, pretoken: str) -> tuple[list[Piece], list[Single]]:
        hit = self._words.get(pretoken)
        if hit is None:
            if len(self._words) >= CACHE_LIMIT:
                self._words.clear()
            hit = self._words[pretoken] = replay_word(pretoken, self._index)
        return hit

    def _replayed(self, piece: str, upto: int) -> list[Piece]:
        self._check(piece)
        return replay_run(split_run(piece, pattern=self.pattern), self._index, upto=upto, history=self._history)

    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one piece (a run of pretokens); offsets are character positions in the piece."""
        hit = self._cache.get(piece)
        if hit is not None:
            return list(hit)
        vocab = self._vocab
        toks = [Token(vocab[t], t, (s, e)) for t, s, e in self._replayed(piece, NEVER)]
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[piece] = tuple(toks)
        return toks

    def segment(self, piece: str, *, upto: Optional[int] = None) -> list[str]:
        """Token strings of ``piece`` after the first ``upto`` events (all when None): how training
        had segmented it then. Tokens removed by a later event may appear.

        >>> BoundlessBPE({"a": 0, "b": 1, "ab": 2}, [("merge", "a", "b")]).segment("abab", upto=0)
        ['a', 'b', 'a', 'b']
        """
        if upto is None:
            return [t.text for t in self.tokenize(piece)]
        if isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= len(self.events):
            raise TokenizerError(f"upto must be a whole number from 0 to {len(self.events)}, got {upto!r}")
        return [t for t, _, _ in self._replayed(piece, upto)]

    # -------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, the events in order, and the split pattern (when not GPT-2's)."""
        d: dict[str, Any] = {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "events": [[e[0], e[1], list(e[2]) if e[0] == "remove" else e[2]] for e in self.events],
        }
        if self.pattern != GPT2_PATTERN:
            d["pattern"] = self.pattern
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BoundlessBPE":
        if not isinstance(data.get("vocab"), dict) or not isinstance(data.get("events", []), list):
            raise FormatError("a BoundlessBPE model needs a \"vocab\" object and an \"events\" list")
        try:
            return cls(data["vocab"], data.get("events", []), pattern=data.get("pattern", GPT2_PATTERN))
        except TokenizerError as err:
            raise FormatError(f"invalid BoundlessBPE model: {err}") from err

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


def checked_events(events: Sequence[Sequence[Any]], vocab: Mapping[str, int]) -> list[tuple]:
    """``events`` as tuples, after checking they could have come from training over ``vocab``.

    Replaying which tokens exist: a merge's two inputs must be single characters or tokens that
    exist then, a removal's token must exist (and not be a character) and split into ones that
    exist and spell it, and every token existing at the end must be in the vocabulary, so encoding
    never makes a token the vocabulary lacks.

    >>> checked_events([["supermerge", "of", "Ġa"]], {"o": 0})
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: supermerge 0 ('of', 'Ġa') uses a token that does not exist then
    """
    out: list[tuple] = []
    made: dict[str, int] = {}  # token -> the event that made it, while it exists

    def exists(t: Any) -> bool:
        return isinstance(t, str) and (len(t) == 1 or t in made)

    for i, e in enumerate(events):
        if not isinstance(e, (list, tuple)) or len(e) != 3 or e[0] not in KINDS:
            raise TokenizerError(f"event {i} must be [\"merge\" or \"supermerge\", left, right] or "
                                 f"[\"remove\", token, split], got {e!r:.80}")
        kind, a, b = e
        if kind != "remove":
            if not (exists(a) and exists(b)):
                raise TokenizerError(f"{kind} {i} ({a!r:.40}, {b!r:.40}) uses a token that does not exist then")
            made.setdefault(a + b, i)
            out.append((kind, a, b))
            continue
        split = tuple(b) if isinstance(b, (list, tuple)) else ()
        if not (isinstance(a, str) and a in made) or len(split) < 2 or not all(map(exists, split)) \
                or "".join(split) != a:
            raise TokenizerError(f"removal {i} of {a!r:.40} needs an existing token split into two or more "
                                 f"existing tokens that spell it, got {b!r:.80}")
        del made[a]
        out.append(("remove", a, split))
    for t, i in made.items():
        if t not in vocab:
            raise TokenizerError(f"the token {t!r:.40} made by event {i} is not in the vocabulary")
    return out
