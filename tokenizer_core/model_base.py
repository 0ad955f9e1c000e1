"""The protocol every tokenization model follows.

A model turns one pre-tokenized piece (a word, or a byte-level chunk such as
``"Ġhello"``) into tokens whose offsets are character positions *inside that
piece*; the pipeline maps them back to the original text.

>>> from tokenizer_core.classic.word import WordLevel
>>> m = WordLevel({"[UNK]": 0, "low": 1}, unk_token="[UNK]")
>>> [t.text for t in m.tokenize("low")], m.token_to_id("low")
(['low'], 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Optional, Protocol, runtime_checkable

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import MAX_TOKEN_ID, Sampling, Token


@runtime_checkable
class Model(Protocol):
    """What the pipeline needs from a model (WordLevel, Char, Byte, BPE, WordPiece, Unigram)."""

    def tokenize(self, piece: str) -> list[Token]:
        """Tokens of one piece; offsets are positions within ``piece``."""
        ...

    def token_to_id(self, token: str) -> Optional[int]: ...

    def id_to_token(self, token_id: int) -> Optional[str]: ...

    def get_vocab(self) -> dict[str, int]: ...

    @property
    def vocab_size(self) -> int: ...

    def to_dict(self) -> dict[str, Any]:
        """Own-format JSON, with a ``"type"`` field (see :mod:`tokenizer_core.registry`)."""
        ...

    def to_hf(self) -> dict[str, Any]:
        """The ``"model"`` object of a Hugging Face ``tokenizer.json``."""
        ...

    def tokenize_sampled(self, piece: str, *, rng: random.Random, sampling: Sampling) -> list[Token]:
        """One sampled segmentation of ``piece`` (see :class:`SamplingModel`)."""
        ...


class SamplingModel:
    """The base of every model: sampled segmentation is part of the contract.

    :meth:`tokenize_sampled` draws one segmentation with ``rng`` (BPE-dropout, Unigram
    subword sampling); a model with a single segmentation per piece inherits this default,
    which refuses with an error the pipeline passes on to the user.

    >>> from tokenizer_core.classic.word import WordLevel
    >>> WordLevel({"[UNK]": 0}, unk_token="[UNK]").tokenize_sampled("a", rng=random.Random(0), sampling=Sampling())
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: the WordLevel model cannot sample segmentations
    """

    def tokenize_sampled(self, piece: str, *, rng: random.Random, sampling: Sampling) -> list[Token]:
        raise TokenizerError(f"the {type(self).__name__} model cannot sample segmentations")


class VocabLookup(SamplingModel):
    """The vocabulary half of :class:`Model`, for models keeping ``_vocab`` (token -> id)
    and ``_inv`` (id -> token) dictionaries."""

    _vocab: dict[str, int]
    _inv: dict[int, str]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._vocab.get(token)

    def id_to_token(self, token_id: int) -> Optional[str]:
        return self._inv.get(token_id)

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)


class ScoredPieceLookup(SamplingModel):
    """The vocabulary half of a SentencePiece-style model keeping ``_vocab`` as
    ``[(piece, score, type), ...]`` in id order and ``_ids`` (piece -> id).

    >>> class M(ScoredPieceLookup):
    ...     def __init__(self):
    ...         self._vocab = [("<unk>", 0.0, "unknown"), ("▁a", -1.5, "normal")]
    ...         self._ids = {p: i for i, (p, _, _) in enumerate(self._vocab)}
    >>> M().score("▁a"), M().piece_type("<unk>"), M().id_to_token(5)
    (-1.5, 'unknown', None)
    """

    _vocab: list[tuple[str, float, str]]
    _ids: dict[str, int]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._ids.get(token)

    def id_to_token(self, token_id: int) -> Optional[str]:
        return self._vocab[token_id][0] if 0 <= token_id < len(self._vocab) else None

    def get_vocab(self) -> dict[str, int]:
        return dict(self._ids)

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    @property
    def pieces(self) -> list[tuple[str, float, str]]:
        """``[(piece, score, type), ...]`` in id order."""
        return list(self._vocab)

    def score(self, token: str) -> Optional[float]:
        """The score the file gives a piece (``None`` if it is not in the vocabulary)."""
        i = self._ids.get(token)
        return None if i is None else self._vocab[i][1]

    def piece_type(self, token: str) -> Optional[str]:
        i = self._ids.get(token)
        return None if i is None else self._vocab[i][2]


def checked_vocab(vocab: Mapping[str, int], *, model: str, allow_empty: bool = False) -> dict[str, int]:
    """A copy of ``vocab`` after checking it maps token strings to distinct ids from 0 to
    :data:`~tokenizer_core.types.MAX_TOKEN_ID`: one check, one set of messages, for every model
    with a token-to-id vocabulary (``allow_empty``: WordPiece, whose vocab.txt may hold an empty line).

    >>> checked_vocab({"a": 0, "b": 1}, model="BPE")
    {'a': 0, 'b': 1}
    >>> checked_vocab({"a": 0, "b": 0}, model="BPE")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: tokens 'a' and 'b' share id 0; ids must be unique
    """
    if not isinstance(vocab, Mapping):
        raise TokenizerError(f"a {model} vocabulary must map token strings to ids, got {type(vocab).__name__}")
    out: dict[str, int] = {}
    seen: dict[int, str] = {}
    for tok, tid in vocab.items():
        if not isinstance(tok, str) or not (tok or allow_empty):
            raise TokenizerError(f"vocabulary tokens must be {'' if allow_empty else 'non-empty '}strings, "
                                 f"got {tok!r:.40}")
        if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
            raise TokenizerError(f"token ids must be whole numbers >= 0, got {tid!r} for {tok!r:.40}")
        if tid > MAX_TOKEN_ID:
            raise TokenizerError(f"token id {tid} of {tok!r:.40} is past the largest id a tokenizer may use "
                                 f"({MAX_TOKEN_ID:,})")
        if tid in seen:
            raise TokenizerError(f"tokens {seen[tid]!r:.40} and {tok!r:.40} share id {tid}; ids must be unique")
        seen[tid] = tok
        out[tok] = tid
    return out
