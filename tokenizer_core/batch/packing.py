"""What a model makes of a batch beyond its ids: position ids (also under left padding), packed
sequences with their block-diagonal masks, batches under a token budget, and waste by batch size.

>>> position_ids([0, 0, 1, 1, 1], generation=True)
[1, 1, 0, 1, 2]
>>> pack([5, 3, 4, 2], max_length=8)
[[0, 1], [2, 3]]
>>> packed_position_ids([3, 2])
[0, 1, 2, 0, 1]
>>> packed_mask([2, 1]).tolist()
[[1, 0, 0], [1, 1, 0], [0, 0, 1]]
>>> token_budget_batches([10, 50, 500], budget=600)
[[2], [1, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tokenizer_core.batch.stats import PaddingWaste, batches_waste, bucket_by_length, padding_waste
from tokenizer_core.errors import TokenizerError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "WasteRow",
    "pack",
    "packed_mask",
    "packed_position_ids",
    "position_ids",
    "token_budget_batches",
    "waste_by_batch_size",
]


def _lengths(lengths: Sequence[int]) -> list[int]:
    out = list(lengths)
    for n in out:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TokenizerError(f"lengths must be whole numbers of tokens, 0 or more; got {n!r}")
    return out


def position_ids(attention_mask: Sequence[int], *, generation: bool = False) -> list[int]:
    """Position ids of one row. Plain (``generation=False``): 0, 1, 2, ... for every position, as
    models number them by default. For generation with left padding, positions count real tokens
    only, so the first real token is position 0 whatever the padding before it (padding positions
    get 1, a harmless value, as ``transformers`` does)."""
    if not generation:
        return list(range(len(attention_mask)))
    out, seen = [], 0
    for m in attention_mask:
        if m:
            out.append(seen)
            seen += 1
        else:
            out.append(1)
    return out


def pack(lengths: Sequence[int], *, max_length: int) -> list[list[int]]:
    """Indices of the sequences packed into rows of at most ``max_length`` tokens, longest first
    into the first row with room (first-fit decreasing). A sequence longer than ``max_length`` is
    an error: truncate it first."""
    lengths = _lengths(lengths)
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
        raise TokenizerError(f"max_length must be a positive whole number, got {max_length!r}")
    too_long = [n for n in lengths if n > max_length]
    if too_long:
        raise TokenizerError(f"a sequence of {max(too_long)} tokens does not fit in rows of {max_length}; "
                             "truncate first or raise max_length")
    rows: list[list[int]] = []
    room: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        for r, free in enumerate(room):
            if lengths[i] <= free:
                rows[r].append(i)
                room[r] -= lengths[i]
                break
        else:
            rows.append([i])
            room.append(max_length - lengths[i])
    return rows


def packed_position_ids(doc_lengths: Sequence[int]) -> list[int]:
    """Position ids of one packed row: they restart at 0 for each document."""
    return [p for n in _lengths(doc_lengths) for p in range(n)]


def packed_mask(doc_lengths: Sequence[int], *, causal: bool = True) -> "np.ndarray":
    """The attention mask of one packed row: block-diagonal (a token sees only its own document),
    lower-triangular inside each block when ``causal``."""
    import numpy as np

    lengths = _lengths(doc_lengths)
    total = sum(lengths)
    mask = np.zeros((total, total), dtype=np.int64)
    start = 0
    for n in lengths:
        block = np.tril(np.ones((n, n), dtype=np.int64)) if causal else np.ones((n, n), dtype=np.int64)
        mask[start:start + n, start:start + n] = block
        start += n
    return mask


def token_budget_batches(lengths: Sequence[int], *, budget: int) -> list[list[int]]:
    """Dynamic batching: sequences sorted longest first, a batch grows while (its size × its longest
    sequence) stays within ``budget`` padded tokens. A sequence longer than the budget gets a batch
    of its own."""
    lengths = _lengths(lengths)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise TokenizerError(f"budget must be a positive whole number of tokens, got {budget!r}")
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        if batches and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= budget:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


@dataclass(frozen=True)
class WasteRow:
    """Padding share and attention work at one batch size, in the order given and sorted by length."""

    batch_size: int
    pad_fraction: float
    sorted_pad_fraction: float
    attention_cells: int
    sorted_attention_cells: int


def _waste(lengths: list[int], order: list[int], size: int) -> PaddingWaste:
    total = PaddingWaste()
    for k in range(0, len(order), size):
        total += padding_waste([lengths[i] for i in order[k:k + size]])
    return total


def waste_by_batch_size(lengths: Sequence[int], sizes: Sequence[int]) -> list[WasteRow]:
    """For each batch size, the padding share and the attention cells computed (Σ padded length²
    per sequence), batching in the given order and sorted by length (the least padding possible:
    :func:`~tokenizer_core.batch.stats.bucket_by_length`).

    >>> [(r.batch_size, round(r.pad_fraction, 3)) for r in waste_by_batch_size([10, 50, 500], [1, 3])]
    [(1, 0.0), (3, 0.627)]
    """
    lengths = _lengths(lengths)
    rows = []
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise TokenizerError(f"batch sizes must be positive whole numbers, got {size!r}")
        plain = _waste(lengths, list(range(len(lengths))), size)
        tidy = batches_waste(bucket_by_length(lengths, batch_size=size, strategy="sort").batch_lengths())
        rows.append(WasteRow(size, plain.pad_fraction, tidy.pad_fraction, plain.attention_cells,
                             tidy.attention_cells))
    return rows
