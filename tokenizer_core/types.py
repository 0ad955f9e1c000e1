"""Core value types: tokens, encodings and progress callbacks.

Offsets are always ``(start, end)`` character positions in the *original*
text given to :meth:`Tokenizer.encode`, end exclusive, so ``text[start:end]``
is the span a token came from. Special tokens added by a post-processor have
offsets ``(0, 0)`` and ``word_id`` ``None``.

>>> enc = Encoding.from_tokens([Token(5, "hi", (0, 2))])
>>> enc.ids, enc.tokens, enc.attention_mask
([5], ['hi'], [1])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

Offsets = tuple[int, int]

#: The largest token id a vocabulary may use: ``tokenizers`` stores ids as 32-bit unsigned numbers,
#: and a larger one (a file's ``"tok": 1000000000000``) is a broken file, not a big vocabulary.
MAX_TOKEN_ID = 2**32 - 1
#: Words or chunks a model's or fast path's cache remembers (a cache at it stops growing or is cleared
#: wholesale): ~200,000 short strings and their tokens, tens of MB, whatever the corpus.
CACHE_LIMIT = 200_000

#: ``progress(done, total, message)``: called by long-running work; ``total`` may be 0
#: when unknown. Must be cheap; callers throttle their own calls.
ProgressCallback = Callable[[int, int, str], None]


def no_progress(done: int, total: int, message: str) -> None:  # noqa: ARG001
    """A progress callback that does nothing (the default)."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token produced by a model.

    >>> Token(7, "low", (0, 3)).text
    'low'
    """

    id: int
    text: str
    offsets: Offsets


@dataclass(slots=True)
class Encoding:
    """The result of encoding one text (or a pair of texts).

    Parallel lists, one entry per token. ``attention_mask`` is 1 for real tokens
    and 0 for padding; ``special_tokens_mask`` is 1 for tokens added by the
    post-processor or padding; ``type_ids`` is 0 for the first sequence and 1 for
    the second; ``word_ids`` gives the index of the pre-tokenizer piece a token
    came from (``None`` for special tokens and padding); ``sequence_ids`` gives
    0/1 for the sequence a token came from (``None`` for specials/padding).
    ``overflowing`` holds the windows cut off by truncation.

    >>> e = Encoding.from_tokens([Token(1, "a", (0, 1)), Token(2, "b", (1, 2))])
    >>> len(e), e.offsets
    (2, [(0, 1), (1, 2)])
    """

    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    offsets: list[Offsets] = field(default_factory=list)
    type_ids: list[int] = field(default_factory=list)
    attention_mask: list[int] = field(default_factory=list)
    special_tokens_mask: list[int] = field(default_factory=list)
    word_ids: list[Optional[int]] = field(default_factory=list)
    sequence_ids: list[Optional[int]] = field(default_factory=list)
    overflowing: list["Encoding"] = field(default_factory=list)

    @classmethod
    def from_tokens(
        cls,
        tokens: list[Token],
        *,
        word_ids: Optional[list[Optional[int]]] = None,
        type_id: int = 0,
        sequence_id: int = 0,
    ) -> "Encoding":
        """Build an encoding of one sequence of model tokens (no specials yet)."""
        n = len(tokens)
        return cls(
            ids=[t.id for t in tokens],
            tokens=[t.text for t in tokens],
            offsets=[t.offsets for t in tokens],
            type_ids=[type_id] * n,
            attention_mask=[1] * n,
            special_tokens_mask=[0] * n,
            word_ids=list(word_ids) if word_ids is not None else [None] * n,
            sequence_ids=[sequence_id] * n,
        )

    @classmethod
    def id_lists(cls, encodings: Sequence["Encoding"]) -> list[list[int]]:
        """Each encoding's ids as a new list (a batch's ``input_ids``); a subclass may read many at once.

        >>> Encoding.id_lists([Encoding(ids=[1, 2]), Encoding()])
        [[1, 2], []]
        """
        return [list(e.ids) for e in encodings]

    @classmethod
    def from_columns(
        cls,
        ids: list[int],
        tokens: list[str],
        offsets: list[Offsets],
        *,
        word_ids: list[Optional[int]],
        sequence_id: int = 0,
    ) -> "Encoding":
        """Build an encoding of one sequence of model tokens from its lists (taken as they are, not
        copied): what the fast paths assemble in bulk.

        >>> Encoding.from_columns([5], ["hi"], [(0, 2)], word_ids=[0], sequence_id=1).type_ids
        [1]
        """
        n = len(ids)
        return cls(ids=ids, tokens=tokens, offsets=offsets, type_ids=[sequence_id] * n, attention_mask=[1] * n,
                   special_tokens_mask=[0] * n, word_ids=word_ids, sequence_ids=[sequence_id] * n)

    def __len__(self) -> int:
        return len(self.ids)

    def as_tokens(self) -> list[Token]:
        """The encoding as :class:`Token` records (ids, texts and offsets)."""
        return [Token(i, t, o) for i, t, o in zip(self.ids, self.tokens, self.offsets)]

    def to_dict(self) -> dict:
        """Plain-JSON view (used by the CLI)."""
        return {
            "ids": self.ids,
            "tokens": self.tokens,
            "offsets": [list(o) for o in self.offsets],
            "type_ids": self.type_ids,
            "attention_mask": self.attention_mask,
            "special_tokens_mask": self.special_tokens_mask,
            "word_ids": self.word_ids,
            "overflowing": [o.to_dict() for o in self.overflowing],
        }


@dataclass(frozen=True, kw_only=True)
class Sampling:
    """Settings for stochastic encoding (BPE-dropout, Unigram subword sampling).

    ``seed`` makes a whole *run* reproducible: a run (one ``Tokenizer.encode`` call, a
    whole ``encode_batch``, one command-line ``encode``) draws every sample from one
    generator, :meth:`generator`, so the same seed and inputs give the same output while
    equal texts within the run still get independent samples. ``None`` seeds from the
    operating system. ``dropout`` is the BPE-dropout probability; ``alpha`` and
    ``nbest_size`` follow SentencePiece (``nbest_size`` < 0 samples from the whole
    lattice, > 1 from the n-best list).

    >>> Sampling(seed=1, dropout=0.1).dropout
    0.1
    >>> Sampling(seed=1).generator().random() == Sampling(seed=1).generator().random()
    True
    """

    seed: Optional[int] = None
    dropout: float = 0.0
    alpha: float = 0.1
    nbest_size: int = -1

    def __post_init__(self) -> None:
        from tokenizer_core.errors import TokenizerError

        if not 0.0 <= self.dropout <= 1.0:
            raise TokenizerError(f"dropout must be between 0 and 1, got {self.dropout}")
        if self.alpha < 0:
            raise TokenizerError(f"alpha must be 0 or more, got {self.alpha}")

    def generator(self) -> random.Random:
        """A new generator for one run, seeded by :attr:`seed` (from the OS when it is ``None``).

        Callers make it once per run and pass it on; making one per line would give equal
        lines equal samples (every line would restart the same random sequence).
        """
        return random.Random(self.seed)
