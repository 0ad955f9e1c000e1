"""From model tokens to what a model receives: truncation, special tokens, padding.

:func:`finish_encoding` turns the model tokens of one text (or a pair) into the
final :class:`~tokenizer_core.types.Encoding`: truncate (leaving room for the
special tokens), then post-process (special tokens, type ids). :func:`make_batch`
pads a list of encodings into a :class:`BatchEncoding`, the rectangle of
``input_ids``/``attention_mask``/``token_type_ids`` a model takes. The order of
the steps and every rule follow Hugging Face ``tokenizers``.

>>> from tokenizer_core.types import Token
>>> from tokenizer_core.processors import TemplateProcessing
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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .errors import TokenizerError
from .padding import PADDING_STRATEGIES, PaddingParams, pad_encodings
from .processors import copy_encoding, default_process
from .truncation import TRUNCATION_STRATEGIES, TruncationParams, truncate_pair
from .types import Encoding

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

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


@dataclass
class BatchEncoding:
    """A padded batch: one row per encoding (and per overflow window if asked).

    ``encodings`` are the padded encodings, one per input text, with their
    overflow windows padded too; ``rows`` are what the arrays are made of: the
    encodings, or, with ``return_overflowing``, each encoding followed by its
    overflow windows. ``overflow_to_sample_mapping[r]`` is the input a row came
    from. ``lengths`` counts real (not padding) tokens per row.
    """

    encodings: list[Encoding] = field(default_factory=list)
    rows: list[Encoding] = field(default_factory=list)
    overflow_to_sample_mapping: list[int] = field(default_factory=list)
    padding: Optional[PaddingParams] = None

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, key: str) -> list:
        """Field by name (``batch["input_ids"]``), as in ``transformers``."""
        if key not in _FIELDS:
            raise KeyError(f"{key!r}; fields are {', '.join(_FIELDS)}")
        return getattr(self, key)

    def keys(self) -> list[str]:
        return list(_FIELDS)

    @property
    def input_ids(self) -> list[list[int]]:
        return [list(r.ids) for r in self.rows]

    @property
    def attention_mask(self) -> list[list[int]]:
        return [list(r.attention_mask) for r in self.rows]

    @property
    def token_type_ids(self) -> list[list[int]]:
        return [list(r.type_ids) for r in self.rows]

    @property
    def special_tokens_mask(self) -> list[list[int]]:
        return [list(r.special_tokens_mask) for r in self.rows]

    @property
    def offsets(self) -> list[list[tuple[int, int]]]:
        return [[tuple(o) for o in r.offsets] for r in self.rows]  # type: ignore[misc]

    @property
    def tokens(self) -> list[list[str]]:
        return [list(r.tokens) for r in self.rows]

    @property
    def word_ids(self) -> list[list[Optional[int]]]:
        return [list(r.word_ids) for r in self.rows]

    @property
    def sequence_ids(self) -> list[list[Optional[int]]]:
        return [list(r.sequence_ids) for r in self.rows]

    @property
    def lengths(self) -> list[int]:
        """Real tokens (attention mask 1, special tokens included) per row."""
        return [sum(r.attention_mask) for r in self.rows]

    @property
    def padded_length(self) -> int:
        """Width of the batch (length of the longest row)."""
        return max((len(r) for r in self.rows), default=0)

    @property
    def is_rectangular(self) -> bool:
        return len({len(r) for r in self.rows}) <= 1

    def _require_rectangle(self, what: str) -> None:
        if not self.is_rectangular:
            widths = sorted({len(r) for r in self.rows})
            raise TokenizerError(
                f"{what} needs rows of equal length, but this batch has lengths {widths}; "
                "encode it with padding='longest' or padding='max_length'"
            )

    def to_numpy(self) -> dict[str, "np.ndarray"]:
        """The batch as int64 arrays (``offsets`` has shape ``rows x length x 2``).

        >>> from tokenizer_core.types import Token
        >>> e = Encoding.from_tokens([Token(4, "a", (0, 1))])
        >>> make_batch([e, e]).to_numpy()["input_ids"].shape
        (2, 1)
        """
        import numpy as np

        self._require_rectangle("to_numpy()")
        n, width = len(self.rows), self.padded_length
        out = {
            "input_ids": np.array(self.input_ids, dtype=np.int64).reshape(n, width),
            "attention_mask": np.array(self.attention_mask, dtype=np.int64).reshape(n, width),
            "token_type_ids": np.array(self.token_type_ids, dtype=np.int64).reshape(n, width),
            "special_tokens_mask": np.array(self.special_tokens_mask, dtype=np.int64).reshape(n, width),
            "offsets": np.array(self.offsets, dtype=np.int64).reshape(n, width, 2),
            "lengths": np.array(self.lengths, dtype=np.int64),
            "overflow_to_sample_mapping": np.array(self.overflow_to_sample_mapping, dtype=np.int64),
        }
        return out

    def to_pandas(self, field: str = "input_ids") -> "pd.DataFrame":
        """One field as a sequences-by-positions grid (what the padding page draws).

        Rows are labelled by row number, columns by position; shorter rows of an
        unpadded batch are filled with ``None``. ``field`` is any of
        ``input_ids``, ``tokens``, ``attention_mask``, ``token_type_ids``,
        ``special_tokens_mask``, ``word_ids``, ``sequence_ids``, ``offsets``.

        >>> from tokenizer_core.types import Token
        >>> e = Encoding.from_tokens([Token(4, "a", (0, 1))])
        >>> f = Encoding.from_tokens([Token(4, "a", (0, 1))] * 2)
        >>> make_batch([e, f], padding=PaddingParams()).to_pandas("tokens").values.tolist()
        [['a', '[PAD]'], ['a', 'a']]
        """
        import pandas as pd

        if field not in _GRID_FIELDS:
            raise TokenizerError(f"unknown field {field!r}; use one of {', '.join(_GRID_FIELDS)}")
        values = getattr(self, field)
        width = self.padded_length
        grid = [list(v) + [None] * (width - len(v)) for v in values]
        frame = pd.DataFrame(grid, columns=pd.RangeIndex(width, name="position"), dtype=object)
        frame.index = pd.RangeIndex(len(grid), name="sequence")
        if field in _INT_FIELDS and self.is_rectangular:
            frame = frame.astype("int64")
        return frame

    def to_long_pandas(self) -> "pd.DataFrame":
        """One row per position of every sequence, with every field as a column."""
        import pandas as pd

        records = []
        for r, row in enumerate(self.rows):
            for pos in range(len(row)):
                records.append(
                    {
                        "sequence": r,
                        "sample": self.overflow_to_sample_mapping[r],
                        "position": pos,
                        "token": row.tokens[pos],
                        "input_id": row.ids[pos],
                        "attention_mask": row.attention_mask[pos],
                        "token_type_id": row.type_ids[pos],
                        "special": row.special_tokens_mask[pos],
                        "word_id": row.word_ids[pos],
                        "sequence_id": row.sequence_ids[pos],
                        "start": row.offsets[pos][0],
                        "end": row.offsets[pos][1],
                    }
                )
        return pd.DataFrame.from_records(records, columns=_LONG_COLUMNS)

    def attention_mask_2d(self, i: int, *, causal: bool = False, mask_queries: bool = False) -> "np.ndarray":
        """The ``length x length`` mask a model applies for row ``i`` (1 = may attend).

        Entry ``[q, k]`` says whether position ``q`` may look at position ``k``:
        padding keys are hidden, and with ``causal`` so are later positions. As
        in ``transformers``, the rows of padding queries are still computed
        (and thrown away); ``mask_queries=True`` blanks them too, which shows
        all the wasted work.

        >>> from tokenizer_core.types import Token
        >>> e = Encoding.from_tokens([Token(4, "a", (0, 1))] * 2)
        >>> f = Encoding.from_tokens([Token(4, "a", (0, 1))])
        >>> make_batch([e, f], padding=PaddingParams()).attention_mask_2d(1, causal=True).tolist()
        [[1, 0], [1, 0]]
        """
        import numpy as np

        if not 0 <= i < len(self.rows):
            raise TokenizerError(f"row {i} does not exist; this batch has {len(self.rows)} rows")
        keys = np.array(self.rows[i].attention_mask, dtype=np.int64)
        mask = np.broadcast_to(keys[None, :], (len(keys), len(keys))).copy()
        if causal:
            mask *= np.tril(np.ones_like(mask))
        if mask_queries:
            mask *= keys[:, None]
        return mask

    def waste(self) -> Any:
        """Padding waste of this batch (see :mod:`tokenizer_core.padding_stats`)."""
        from .padding_stats import padding_waste

        return padding_waste(self.lengths, padded_length=self.padded_length)


_FIELDS = (
    "input_ids",
    "attention_mask",
    "token_type_ids",
    "special_tokens_mask",
    "offsets",
    "lengths",
    "overflow_to_sample_mapping",
)
_GRID_FIELDS = (
    "input_ids",
    "tokens",
    "attention_mask",
    "token_type_ids",
    "special_tokens_mask",
    "word_ids",
    "sequence_ids",
    "offsets",
)
_INT_FIELDS = ("input_ids", "attention_mask", "token_type_ids", "special_tokens_mask")
_LONG_COLUMNS = [
    "sequence",
    "sample",
    "position",
    "token",
    "input_id",
    "attention_mask",
    "token_type_id",
    "special",
    "word_id",
    "sequence_id",
    "start",
    "end",
]


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


def padding_from_options(
    strategy: Optional[str],
    *,
    max_length: Optional[int] = None,
    pad_to_multiple_of: Optional[int] = None,
    side: str = "right",
    pad_id: int = 0,
    pad_token: str = "[PAD]",
    pad_type_id: int = 0,
) -> Optional[PaddingParams]:
    """Padding settings from loose options (CLI/app); ``None``/``do_not_pad`` gives ``None``.

    >>> padding_from_options("longest", pad_to_multiple_of=8).pad_to_multiple_of
    8
    """
    if strategy is None or strategy == "do_not_pad":
        return None
    return PaddingParams(
        strategy=strategy,
        max_length=max_length,
        pad_to_multiple_of=pad_to_multiple_of,
        side=side,
        pad_id=pad_id,
        pad_token=pad_token,
        pad_type_id=pad_type_id,
    )


def truncation_from_options(
    strategy: Optional[str], *, max_length: Optional[int] = None, stride: int = 0, side: str = "right"
) -> Optional[TruncationParams]:
    """Truncation settings from loose options (CLI/app); ``None``/``do_not_truncate`` gives ``None``.

    >>> truncation_from_options("only_first", max_length=16, stride=4).stride
    4
    >>> truncation_from_options("longest_first")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: truncation 'longest_first' needs max_length (the longest sequence to keep)
    """
    if strategy is None or strategy == "do_not_truncate":
        return None
    if max_length is None:
        raise TokenizerError(f"truncation {strategy!r} needs max_length (the longest sequence to keep)")
    return TruncationParams(strategy=strategy, max_length=max_length, stride=stride, side=side)
