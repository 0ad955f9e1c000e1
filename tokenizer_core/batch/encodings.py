"""Copying and merging encodings the way ``tokenizers`` post-processors combine their parts.

>>> from tokenizer_core.types import Token
>>> a = Encoding.from_tokens([Token(1, "a", (0, 1))])
>>> default_process(a, copy_encoding(a)).type_ids
[0, 1]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from tokenizer_core.types import Encoding


def copy_encoding(enc: Encoding, *, type_id: Optional[int] = None, overflowing: bool = True) -> Encoding:
    """A copy of ``enc``; ``type_id`` replaces the type ids of the main part only."""
    out = Encoding(
        ids=list(enc.ids),
        tokens=list(enc.tokens),
        offsets=list(enc.offsets),
        type_ids=[type_id] * len(enc) if type_id is not None else list(enc.type_ids),
        attention_mask=list(enc.attention_mask),
        special_tokens_mask=list(enc.special_tokens_mask),
        word_ids=list(enc.word_ids),
        sequence_ids=list(enc.sequence_ids),
    )
    if overflowing:
        out.overflowing = list(enc.overflowing)
    return out


def with_type_ids_everywhere(enc: Encoding, type_id: int) -> Encoding:
    """A copy with ``type_id`` on every token, overflow windows included."""
    out = copy_encoding(enc, type_id=type_id, overflowing=False)
    out.overflowing = [with_type_ids_everywhere(o, type_id) for o in enc.overflowing]
    return out


def merge_encodings(a: Encoding, b: Encoding) -> Encoding:
    """``a`` followed by ``b``, combining their overflow windows like ``tokenizers``.

    Every overflow window of ``a`` is paired with ``b`` (that result in turn
    holds ``a``'s window paired with each window of ``b``) and with each window of
    ``b``; then ``a`` itself is paired with each window of ``b``. This is why a
    truncated pair gives a nested, partly repeated list of windows.

    >>> from tokenizer_core.types import Token
    >>> a = Encoding.from_tokens([Token(1, "a", (0, 1))])
    >>> a.overflowing = [Encoding.from_tokens([Token(2, "b", (1, 2))])]
    >>> c = Encoding.from_tokens([Token(3, "c", (0, 1))])
    >>> m = merge_encodings(a, c)
    >>> m.ids, [o.ids for o in m.overflowing]
    ([1, 3], [[2, 3]])
    """
    overflowing: list[Encoding] = []
    for a_o in a.overflowing:
        overflowing.append(merge_encodings(a_o, b))
        overflowing.extend(merge_encodings(a_o, b_o) for b_o in b.overflowing)
    overflowing.extend(merge_encodings(a, b_o) for b_o in b.overflowing)
    out = Encoding(
        ids=a.ids + b.ids,
        tokens=a.tokens + b.tokens,
        offsets=a.offsets + b.offsets,
        type_ids=a.type_ids + b.type_ids,
        attention_mask=a.attention_mask + b.attention_mask,
        special_tokens_mask=a.special_tokens_mask + b.special_tokens_mask,
        word_ids=a.word_ids + b.word_ids,
        sequence_ids=a.sequence_ids + b.sequence_ids,
    )
    out.overflowing = overflowing
    return out


def merge_all(parts: Iterable[Encoding]) -> Encoding:
    """Merge parts left to right, starting from an empty encoding (as ``tokenizers``)."""
    out = Encoding()
    for part in parts:
        out = merge_encodings(out, part)
    return out


def prepare_parts(encoding: Encoding, pair: Optional[Encoding]) -> list[Encoding]:
    # tokenizers gives the i-th text type id i before any processor runs; only the
    # main part is relabelled, overflow windows keep what they had.
    parts = [copy_encoding(encoding, type_id=0)]
    if pair is not None:
        parts.append(copy_encoding(pair, type_id=1))
    return parts


def default_process(encoding: Encoding, pair: Optional[Encoding] = None) -> Encoding:
    """No special tokens: the text (type id 0) followed by the pair (type id 1)."""
    return merge_all(prepare_parts(encoding, pair))
