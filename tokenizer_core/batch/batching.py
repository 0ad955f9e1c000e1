"""From model tokens to what a model receives: truncation, special tokens, padding into a batch.

:func:`finish_encoding` turns the model tokens of one text (or a pair) into the
final :class:`~tokenizer_core.types.Encoding`: truncate (leaving room for the
special tokens), then post-process (special tokens, type ids). :func:`make_batch`
pads a list of encodings into a :class:`BatchEncoding`, the rectangle of
``input_ids``/``attention_mask``/``token_type_ids`` a model takes. The order of
the steps and every rule follow Hugging Face ``tokenizers``.

>>> from tokenizer_core.types import Token
>>> from tokenizer_core.batch.processors import TemplateProcessing
>>> bert = TemplateProcessing.bert(cls=("[CLS]", 2), sep=("[SEP]", 3))
>>> def enc(*ids): return Encoding.from_tokens([Token(i, f"t{i}", (0, 1)) for i in ids])
>>> a = finish_encoding(enc(10, 11, 12), post_processor=bert, add_special_tokens=True,
...                     truncation=TruncationParams(max_length=4))
>>> a.ids, [o.ids for o in a.overflowing]
([2, 10, 11, 3], [[2, 12, 3]])
>>> b = finish_encoding(enc(20), post_processor=bert, add_special_tokens=True, truncation=None)
>>> batch = make_batch([a, b], padding=PaddingParams(side="left"))
>>> batch.input_ids, batch.attention_mask
([[2, 10, 11, 3], [0, 2, 20, 3]], [[1, 1, 1, 1], [0, 1, 1, 1]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from tokenizer_core.batch.batch_encoding import BatchEncoding
from tokenizer_core.batch.encodings import copy_encoding, default_process
from tokenizer_core.batch.padding import PADDING_STRATEGIES, PaddingParams, pad_encodings
from tokenizer_core.batch.truncation import TRUNCATION_STRATEGIES, TruncationParams, truncate_pair
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

__all__ = [
    "PADDING_STRATEGIES",
    "TRUNCATION_STRATEGIES",
    "BatchEncoding",
    "PaddingParams",
    "TruncationParams",
    "batch_to_json",
    "finish_encoding",
    "make_batch",
]


def _as_sequence(enc: Encoding, sequence_id: int) -> Encoding:
    # The model tokens of text i have type id i and sequence id i before any
    # post-processing, whatever the caller filled in; old overflow is dropped.
    out = copy_encoding(enc, type_id=sequence_id, overflowing=False)
    out.sequence_ids = [sequence_id] * len(enc)
    return out


def finish_encoding(
    a: Encoding,
    b: Optional[Encoding] = None,
    *,
    post_processor: Any = None,
    add_special_tokens: bool = True,
    truncation: Optional[TruncationParams] = None,
) -> Encoding:
    """Truncate, then add special tokens: the encoding of one text or a pair.

    ``a`` and ``b`` are the model tokens of the two texts (no special tokens).
    ``truncation.max_length`` counts the special tokens the post-processor
    will add. Without a post-processor, the pair is simply ``a`` then ``b``
    with type ids 0 and 1 and no special tokens.

    >>> from tokenizer_core.types import Token
    >>> a = Encoding.from_tokens([Token(1, "x", (0, 1))])
    >>> b = Encoding.from_tokens([Token(2, "y", (0, 1))])
    >>> e = finish_encoding(a, b)
    >>> e.ids, e.type_ids, e.sequence_ids
    ([1, 2], [0, 1], [0, 1])
    """
    a = _as_sequence(a, 0)
    b = None if b is None else _as_sequence(b, 1)
    if truncation is not None and truncation.enabled:
        added = 0
        if post_processor is not None and add_special_tokens:
            added = post_processor.num_special_tokens_to_add(b is not None)
        budget = truncation.max_length - added
        if budget < 0:
            # tokenizers silently skips truncation here; a clear error is kinder.
            raise TokenizerError(
                f"max_length={truncation.max_length} is smaller than the {added} special tokens the "
                f"post-processor adds to {'a pair' if b is not None else 'a text'}; raise max_length to at "
                f"least {added + 1}"
            )
        if truncation.stride and truncation.stride >= budget:
            raise TokenizerError(
                f"stride={truncation.stride} must be smaller than the {budget} tokens left for text after "
                f"{added} special tokens (max_length={truncation.max_length}); lower the stride or raise max_length"
            )
        a, b = truncate_pair(a, b, params=truncation, max_length=budget)
    if post_processor is None:
        return default_process(a, b)
    return post_processor.process(a, b, add_special_tokens=add_special_tokens)


def make_batch(
    encodings: Sequence[Encoding],
    *,
    padding: Optional[PaddingParams] = None,
    return_overflowing: bool = False,
) -> BatchEncoding:
    """Pad encodings into a batch.

    The padding length comes from the encodings (not their overflow windows),
    as in ``tokenizers``; overflow windows are padded to the same length. With
    ``return_overflowing`` every overflow window (first level, as
    ``transformers`` does) becomes a row of its own after its encoding.

    >>> from tokenizer_core.types import Token
    >>> e = Encoding.from_tokens([Token(4, "a", (0, 1))])
    >>> e.overflowing = [Encoding.from_tokens([Token(5, "b", (1, 2))])]
    >>> make_batch([e], return_overflowing=True).overflow_to_sample_mapping
    [0, 0]
    """
    padded = pad_encodings(list(encodings), params=padding)
    if not return_overflowing:  # one row per encoding
        return BatchEncoding(encodings=padded, rows=list(padded), overflow_to_sample_mapping=list(range(len(padded))),
                             padding=padding)
    rows: list[Encoding] = []
    mapping: list[int] = []
    for i, enc in enumerate(padded):
        windows = [enc] + (list(enc.overflowing) if return_overflowing else [])
        rows.extend(windows)
        mapping.extend([i] * len(windows))
    return BatchEncoding(encodings=padded, rows=rows, overflow_to_sample_mapping=mapping, padding=padding)


def batch_to_json(batch: BatchEncoding) -> dict[str, Any]:
    """Plain JSON of a batch for the command line (ids, masks, tokens, offsets, overflow).

    >>> from tokenizer_core.types import Token
    >>> e = Encoding.from_tokens([Token(4, "a", (0, 1))])
    >>> sorted(batch_to_json(make_batch([e])))[:3]
    ['attention_mask', 'input_ids', 'lengths']
    """
    return {
        "input_ids": batch.input_ids,
        "attention_mask": batch.attention_mask,
        "token_type_ids": batch.token_type_ids,
        "special_tokens_mask": batch.special_tokens_mask,
        "tokens": batch.tokens,
        "offsets": [[list(o) for o in row] for row in batch.offsets],
        "word_ids": batch.word_ids,
        "lengths": batch.lengths,
        "overflow_to_sample_mapping": batch.overflow_to_sample_mapping,
        "overflowing": [[o.to_dict() for o in enc.overflowing] for enc in batch.encodings],
        "padding": None if batch.padding is None else batch.padding.to_dict(),
    }
