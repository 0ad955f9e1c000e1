"""Tokenization metrics: how many tokens a tokenizer spends on some texts, and how well.

All functions are pure. They take the texts and what the tokenizer made of
them, either :class:`~tokenizer_core.types.Encoding` objects or plain lists of
token strings (one list per text, as ``tokenizers``' ``encode(...).tokens``).
Tokens added by a post-processor or padding (``special_tokens_mask == 1``)
are not counted, so ``[CLS]``/``[SEP]`` do not change fertility; a ``[UNK]``
produced by the model is counted (and is what the UNK rate measures).

* fertility: tokens per word (words as in :mod:`tokenizer_core.corpus.stats`);
* characters and UTF-8 bytes per token (compression);
* UNK rate: share of tokens that are the unknown token;
* vocabulary use: distinct tokens used / vocabulary size.

A ratio whose denominator is zero is ``None`` (for example fertility of a
text without words), never an exception.

>>> m = compute_metrics([["hug", "s", "[UNK]"]], ["hugs 🙂"], vocab_size=10)
>>> m.tokens, m.words, m.fertility, m.unk_rate, m.vocab_usage
(3, 1, 3.0, 0.3333333333333333, 0.3)
>>> round(m.chars_per_token, 3), round(m.bytes_per_token, 3)
(2.0, 3.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Union

from tokenizer_core.corpus.stats import word_count
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

__all__ = [
    "TokenMetrics",
    "compute_metrics",
    "content_tokens",
    "ratio",
    "fertility",
    "chars_per_token",
    "bytes_per_token",
    "unk_rate",
    "vocab_usage",
]

Tokenized = Union[Encoding, Sequence[str]]


@dataclass(frozen=True)
class TokenMetrics:
    """Counts and ratios for a set of texts; ratios are ``None`` when undefined."""

    texts: int
    tokens: int
    words: int
    chars: int
    bytes: int
    unk_tokens: int
    distinct_tokens: int
    vocab_size: Optional[int]
    fertility: Optional[float]
    chars_per_token: Optional[float]
    bytes_per_token: Optional[float]
    unk_rate: Optional[float]
    vocab_usage: Optional[float]


def ratio(numerator: float, denominator: float) -> Optional[float]:
    """``numerator / denominator``, or None when the denominator is zero.

    >>> ratio(3, 2), ratio(1, 0)
    (1.5, None)
    """
    return None if denominator == 0 else numerator / denominator


def fertility(tokens: int, words: int) -> Optional[float]:
    """Tokens per word (1.0 means every word is a single token).

    >>> fertility(15, 10)
    1.5
    """
    return ratio(tokens, words)


def chars_per_token(chars: int, tokens: int) -> Optional[float]:
    """Characters per token.

    >>> chars_per_token(12, 4)
    3.0
    """
    return ratio(chars, tokens)


def bytes_per_token(num_bytes: int, tokens: int) -> Optional[float]:
    """UTF-8 bytes per token.

    >>> bytes_per_token(10, 4)
    2.5
    """
    return ratio(num_bytes, tokens)


def unk_rate(unk_tokens: int, tokens: int) -> Optional[float]:
    """Share of tokens that are the unknown token.

    >>> unk_rate(1, 4)
    0.25
    """
    return ratio(unk_tokens, tokens)


def vocab_usage(distinct_tokens: int, vocab_size: Optional[int]) -> Optional[float]:
    """Distinct tokens used / vocabulary size (None when the size is unknown or zero).

    >>> vocab_usage(50, 200)
    0.25
    """
    return None if vocab_size is None else ratio(distinct_tokens, vocab_size)


def content_tokens(item: Tokenized) -> list[tuple[Optional[int], str]]:
    """The ``(id, token)`` pairs of an encoding that are not special/padding; ids are None for token lists.

    >>> from tokenizer_core.types import Token
    >>> e = Encoding.from_tokens([Token(5, "hug", (0, 3))])
    >>> content_tokens(e), content_tokens(["a", "b"])
    ([(5, 'hug')], [(None, 'a'), (None, 'b')])
    """
    if isinstance(item, Encoding):
        mask = item.special_tokens_mask or [0] * len(item.ids)
        return [(i, t) for i, t, special in zip(item.ids, item.tokens, mask) if not special]
    if isinstance(item, str):
        raise TokenizerError("Give a list of tokens per text, not a single string.")
    return [(None, token) for token in item]


def compute_metrics(
    tokenized: Sequence[Tokenized],
    texts: Sequence[str],
    *,
    vocab_size: Optional[int] = None,
    unk_token: Optional[str] = "[UNK]",
    unk_id: Optional[int] = None,
) -> TokenMetrics:
    """Measure how ``tokenized`` (one Encoding or token list per text) covers ``texts``.

    A token is unknown when its id is ``unk_id`` (if given) or its string is
    ``unk_token``. Distinct tokens are counted by id for encodings and by
    string for token lists.
    """
    if isinstance(texts, str):
        raise TokenizerError("texts must be a list of strings (one per encoding), not a single string.")
    if len(tokenized) != len(texts):
        raise TokenizerError(
            f"Got {len(tokenized)} tokenized results for {len(texts)} texts; give one per text."
        )
    if vocab_size is not None and (isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 0):
        raise TokenizerError(f"vocab_size must be a whole number ≥ 0 or None, not {vocab_size!r}.")
    tokens = unk = 0
    distinct: set = set()
    for item in tokenized:
        for token_id, token in content_tokens(item):
            tokens += 1
            distinct.add(token if token_id is None else token_id)
            if (unk_id is not None and token_id == unk_id) or (unk_token is not None and token == unk_token):
                unk += 1
    words = sum(word_count(t) for t in texts)
    chars = sum(len(t) for t in texts)
    num_bytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    return TokenMetrics(
        texts=len(texts),
        tokens=tokens,
        words=words,
        chars=chars,
        bytes=num_bytes,
        unk_tokens=unk,
        distinct_tokens=len(distinct),
        vocab_size=vocab_size,
        fertility=fertility(tokens, words),
        chars_per_token=chars_per_token(chars, tokens),
        bytes_per_token=bytes_per_token(num_bytes, tokens),
        unk_rate=unk_rate(unk, tokens),
        vocab_usage=vocab_usage(len(distinct), vocab_size),
    )

