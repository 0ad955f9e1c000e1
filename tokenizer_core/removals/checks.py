"""What a model of training events checks when it is made or loaded, how it saves its events, and
what its trainers check of their arguments.

PickyBPE's and BoundlessBPE's models keep their training events, ``(merge kind, left, right)`` and
``("remove", token, split)``, and encode by replaying them; these checks make sure such a list could
have come from training over the model's vocabulary, so encoding never makes a token it lacks.

>>> checked_events([["merge", "a", "b"]], {"a": 0, "b": 1, "ab": 2})
[('merge', 'a', 'b')]
>>> events_json([("merge", "a", "b"), ("remove", "ab", ("a", "b"))])
[['merge', 'a', 'b'], ['remove', 'ab', ['a', 'b']]]
>>> checked_byte_counts({"ab": 2, "Ġc": 0}, model="PickyBPE")
{'ab': 2}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Optional

from tokenizer_core.bpe.symbols import check_counts
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.text.byte_level import byte_level_alphabet


def checked_events(events: Sequence[Sequence[Any]], vocab: Mapping[str, int], *,
                   merge_kinds: Sequence[str] = ("merge",)) -> list[tuple]:
    """``events`` as tuples, after checking they could have come from training over ``vocab``.

    Replaying which tokens exist: a merge's two inputs (a merge of any of ``merge_kinds``) must be
    single characters or tokens that exist then, a removal's token must exist (and not be a character)
    and split into ones that exist and spell it, and every token existing at the end must be in the
    vocabulary, so encoding never makes a token the vocabulary lacks.

    >>> checked_events([["merge", "a", "b"], ["merge", "ab", "ab"]], {"a": 0, "b": 1, "abab": 2})
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: the token 'ab' made by event 0 is not in the vocabulary
    """
    out: list[tuple] = []
    made: dict[str, int] = {}  # token -> the event that made it, while it exists
    kinds = (*merge_kinds, "remove")
    shapes = " or ".join(f'"{k}"' for k in merge_kinds)

    def exists(t: Any) -> bool:
        return isinstance(t, str) and (len(t) == 1 or t in made)

    for i, e in enumerate(events):
        if not isinstance(e, (list, tuple)) or len(e) != 3 or e[0] not in kinds:
            raise TokenizerError(f"event {i} must be [{shapes}, left, right] or [\"remove\", token, split], "
                                 f"got {e!r:.80}")
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


def events_json(events: Sequence[tuple]) -> list[list[Any]]:
    """The events as JSON lists, a removal's split as a list (the model's own format)."""
    return [[e[0], e[1], list(e[2]) if e[0] == "remove" else e[2]] for e in events]


def removed_tokens(events: Sequence[tuple], vocab: Mapping[str, int]) -> list[str]:
    """Tokens some merge made that are not in ``vocab`` now, in the order they went.

    >>> removed_tokens([("merge", "a", "b"), ("remove", "ab", ("a", "b"))], {"a": 0, "b": 1})
    ['ab']
    """
    return list({e[1]: None for e in events if e[0] == "remove" and e[1] not in vocab})


def check_symbols(piece: str, vocab: Mapping[str, int], *, model: str, pre_tokenizer: str) -> None:
    """Refuse a piece with a character the vocabulary lacks: ``pre_tokenizer`` (the tokenizer's
    byte-level one) maps text to byte symbols first, which every vocabulary holds."""
    for ch in piece:
        if ch not in vocab:
            raise TokenizerError(
                f"the character {ch!r} is not in this {model} vocabulary; its tokenizer maps text to "
                f"byte symbols first (a {pre_tokenizer} pre-tokenizer), which every vocabulary holds")


def check_upto(upto: Optional[int], n_events: int) -> None:
    """``upto`` (how many events to replay) must be None or a whole number from 0 to ``n_events``.

    >>> check_upto(3, 2)
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: upto must be a whole number from 0 to 2, got 3
    """
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= n_events):
        raise TokenizerError(f"upto must be a whole number from 0 to {n_events}, got {upto!r}")


@contextmanager
def loading(data: dict[str, Any], *, model: str) -> Iterator[None]:
    """A model's ``from_dict``: ``data`` needs a ``"vocab"`` object and an ``"events"`` list, and what
    the model refuses inside is a :class:`~tokenizer_core.errors.FormatError` naming it.

    >>> with loading({"vocab": {}}, model="PickyBPE"):
    ...     raise TokenizerError("bad")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.FormatError: invalid PickyBPE model: bad
    """
    if not isinstance(data.get("vocab"), dict) or not isinstance(data.get("events", []), list):
        raise FormatError(f"a {model} model needs a \"vocab\" object and an \"events\" list")
    try:
        yield
    except TokenizerError as err:
        raise FormatError(f"invalid {model} model: {err}") from err


def check_vocab_size(vocab_size: int) -> None:
    """``vocab_size`` must be a positive whole number."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise TokenizerError(f"vocab_size must be a positive whole number, got {vocab_size!r}")


def checked_byte_counts(counts: Mapping[str, int], *, model: str) -> dict[str, int]:
    """``counts`` (pieces of byte symbols, as ByteLevel maps text) after checking them, without the
    pieces counted 0 times (they are not in the corpus)."""
    check_counts(counts)
    if not any(counts.values()):
        raise TokenizerError("the training text has no words; give a corpus with some text in it")
    alphabet = set(byte_level_alphabet())
    odd = next((ch for w in counts for ch in w if ch not in alphabet), None)
    if odd is not None:
        raise TokenizerError(f"{model} trains on byte-level pieces (as ByteLevel maps text), but {odd!r} "
                             "is not a byte symbol")
    return {w: c for w, c in counts.items() if c}
