"""A padded batch and its views: model arrays, numpy, pandas grids and 2-D attention masks.

:func:`~tokenizer_core.batch.batching.make_batch` builds one; this module only reads it.

>>> from tokenizer_core.types import Token
>>> e = Encoding.from_tokens([Token(4, "a", (0, 1))])
>>> BatchEncoding(encodings=[e], rows=[e], overflow_to_sample_mapping=[0])["input_ids"]
[[4]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.batch.padding import PaddingParams
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# Fields a model takes (``batch[name]``, ``keys()``, ``to_numpy()``).
_FIELDS = (
    "input_ids",
    "attention_mask",
    "token_type_ids",
    "special_tokens_mask",
    "offsets",
    "lengths",
    "overflow_to_sample_mapping",
)
# Fields to_pandas() can draw as a sequences-by-positions grid.
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
# Grid fields that become int64 columns when every row has the same length.
_INT_FIELDS = ("input_ids", "attention_mask", "token_type_ids", "special_tokens_mask")
# Columns of to_long_pandas(), one row per position.
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
        # The rows' own type reads them: a batch of the kernel's packed rows in one call.
        rows = self.rows
        return type(rows[0]).id_lists(rows) if rows else []

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

        >>> from tokenizer_core.batch.batching import make_batch
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

        >>> from tokenizer_core.batch.batching import make_batch
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

        >>> from tokenizer_core.batch.batching import make_batch
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
        """Padding waste of this batch (see :mod:`tokenizer_core.batch.stats`)."""
        from tokenizer_core.batch.stats import padding_waste

        return padding_waste(self.lengths, padded_length=self.padded_length)
