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
from typing import Any, Optional

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.model_base import VocabLookup, checked_vocab
from tokenizer_core.pickybpe.replay import EventIndex, replay
from tokenizer_core.registry import register
from tokenizer_core.types import CACHE_LIMIT, Token


@register("model", "PickyBPE")
class PickyBPE(VocabLookup):
    """A vocabulary and the ordered merge and removal events that made it."""

    type_name = "PickyBPE"

    def __init__(self, vocab: Mapping[str, int], events: Sequence[Sequence[Any]] = (), *,
                 ignore_merges: bool = False) -> None:
        self._vocab = checked_vocab(vocab, model="PickyBPE")
        self._inv = {i: t for t, i in self._vocab.items()}
        self.events: list[tuple] = checked_events(events, self._vocab)
        self.ignore_merges = bool(ignore_merges)
        self._index = EventIndex(self.events)
        self._cache: dict[str, tuple[Token, ...]] = {}
        #: The training trace when this model was just trained (not saved with the model).
        self.training_trace: Any = None

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merge events' pairs, in order (removed tokens' merges included)."""
        return [(e[1], e[2]) for e in self.events if e[0] == "merge"]

    def removed_tokens(self) -> list[str]:
        """Tokens some merge made that are not in the vocabulary now, in the order they went."""
        gone = {e[1]: None for e in self.events if e[0] == "remove" and e[1] not in self._vocab}
        return list(gone)

    # ------------------------------------------------------------------ encoding
    def _symbols(self, piece: str) -> list[str]:
        vocab = self._vocab
        for ch in piece:
            if ch not in vocab:
                raise TokenizerError(
                    f"the character {ch!r} is not in this PickyBPE vocabulary; its tokenizer maps text to "
                    "byte symbols first (a ByteLevel pre-tokenizer), which every vocabulary holds")
        return list(piece)

    def _encode(self, piece: str, upto: Optional[int] = None) -> list[Token]:
        vocab = self._vocab
        if self.ignore_merges and upto is None and piece in vocab:
            return [Token(vocab[piece], piece, (0, len(piece)))]
        return [Token(vocab[t], t, (s, e)) for t, s, e in replay(self._symbols(piece), self._index, upto=upto)]

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
        had segmented the word then. Tokens removed by a later event may appear.

        >>> PickyBPE({"a": 0, "b": 1, "ab": 2}, [("merge", "a", "b")]).segment("abab", upto=0)
        ['a', 'b', 'a', 'b']
        """
        if upto is None:
            return [t.text for t in self.tokenize(piece)]
        if isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= len(self.events):
            raise TokenizerError(f"upto must be a whole number from 0 to {len(self.events)}, got {upto!r}")
        return [t for t, _, _ in replay(self._symbols(piece), self._index, upto=upto)]

    # -------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """Own format: vocabulary, the events in order, and the option."""
        return {
            "type": self.type_name,
            "vocab": dict(self._vocab),
            "events": [[e[0], e[1], e[2]] if e[0] == "merge" else [e[0], e[1], list(e[2])] for e in self.events],
            "ignore_merges": self.ignore_merges,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PickyBPE":
        if not isinstance(data.get("vocab"), dict) or not isinstance(data.get("events", []), list):
            raise FormatError("a PickyBPE model needs a \"vocab\" object and an \"events\" list")
        try:
            return cls(data["vocab"], data.get("events", []), ignore_merges=bool(data.get("ignore_merges", False)))
        except TokenizerError as err:
            raise FormatError(f"invalid PickyBPE model: {err}") from err

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


def checked_events(events: Sequence[Sequence[Any]], vocab: Mapping[str, int]) -> list[tuple]:
    """``events`` as tuples, after checking they could have come from training over ``vocab``.

    Replaying which tokens exist: a merge's two inputs must be single characters or tokens that
    exist then, a removal's token must exist (and not be a character) and split into ones that
    exist, and every token existing at the end must be in the vocabulary, so encoding never makes a
    token the vocabulary lacks.

    >>> checked_events([["merge", "a", "b"], ["merge", "ab", "ab"]], {"a": 0, "b": 1, "abab": 2})
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: the token 'ab' made by event 0 is not in the vocabulary
    """
    out: list[tuple] = []
    made: dict[str, int] = {}  # token -> the event that made it, while it exists

    def exists(t: Any) -> bool:
        return isinstance(t, str) and (len(t) == 1 or t in made)

    for i, e in enumerate(events):
        if not isinstance(e, (list, tuple)) or len(e) != 3 or e[0] not in ("merge", "remove"):
            raise TokenizerError(f"event {i} must be [\"merge\", left, right] or [\"remove\", token, split], "
                                 f"got {e!r:.80}")
        kind, a, b = e
        if kind == "merge":
            if not (exists(a) and exists(b)):
                raise TokenizerError(f"merge {i} ({a!r:.40}, {b!r:.40}) uses a token that does not exist then")
            made.setdefault(a + b, i)
            out.append(("merge", a, b))
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
