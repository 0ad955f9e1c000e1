"""How much of a padded batch is wasted, and how much length bucketing saves.

A batch is padded to its longest sequence, so every shorter sequence carries
padding positions that the model embeds and runs through every layer for
nothing. Attention makes it worse: a sequence of ``n`` real tokens padded to
``L`` computes ``L * L`` attention scores of which only ``n * n`` relate two
real tokens. Sorting or bucketing texts by length before batching removes most
of that waste.

>>> w = padding_waste([2, 4])
>>> w.padded_positions, w.total_positions, w.pad_fraction
(2, 8, 0.25)
>>> w.wasted_attention_cells, w.attention_cells
(12, 32)
>>> report = bucket_by_length([1, 9, 2, 8], batch_size=2)
>>> report.batches, report.before.padded_positions, report.after.padded_positions
([[1, 3], [2, 0]], 14, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError

BUCKETING_STRATEGIES: tuple[str, ...] = ("none", "sort", "bucket")


@dataclass(frozen=True)
class PaddingWaste:
    """Waste figures of one or more padded batches (add them with ``+``)."""

    sequences: int = 0
    real_tokens: int = 0
    total_positions: int = 0
    attention_cells: int = 0
    useful_attention_cells: int = 0

    @property
    def padded_positions(self) -> int:
        """Positions holding padding."""
        return self.total_positions - self.real_tokens

    @property
    def pad_fraction(self) -> float:
        """Padded positions / all positions (0 for an empty batch)."""
        return self.padded_positions / self.total_positions if self.total_positions else 0.0

    @property
    def wasted_attention_cells(self) -> int:
        """Attention scores that involve at least one padding position."""
        return self.attention_cells - self.useful_attention_cells

    @property
    def wasted_attention_fraction(self) -> float:
        return self.wasted_attention_cells / self.attention_cells if self.attention_cells else 0.0

    def __add__(self, other: "PaddingWaste") -> "PaddingWaste":
        return PaddingWaste(
            self.sequences + other.sequences,
            self.real_tokens + other.real_tokens,
            self.total_positions + other.total_positions,
            self.attention_cells + other.attention_cells,
            self.useful_attention_cells + other.useful_attention_cells,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "sequences": self.sequences,
            "real_tokens": self.real_tokens,
            "total_positions": self.total_positions,
            "padded_positions": self.padded_positions,
            "pad_fraction": self.pad_fraction,
            "attention_cells": self.attention_cells,
            "wasted_attention_cells": self.wasted_attention_cells,
            "wasted_attention_fraction": self.wasted_attention_fraction,
        }


def _check_lengths(lengths: Sequence[int]) -> list[int]:
    out = []
    for n in lengths:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise TokenizerError(f"lengths must be whole numbers of tokens, 0 or more; got {n!r}")
        out.append(n)
    return out


def padding_waste(
    lengths: Sequence[int], *, padded_length: Optional[int] = None, pad_to_multiple_of: Optional[int] = None
) -> PaddingWaste:
    """Waste of one batch whose sequences have ``lengths`` real tokens.

    The batch is padded to ``padded_length`` (default: the longest, rounded up
    to ``pad_to_multiple_of``).

    >>> padding_waste([3, 5], pad_to_multiple_of=8).padded_positions
    8
    """
    lengths = _check_lengths(lengths)
    if not lengths:
        return PaddingWaste()
    width = max(lengths) if padded_length is None else padded_length
    if width < max(lengths):
        raise TokenizerError(f"padded_length={width} is shorter than the longest sequence ({max(lengths)})")
    if pad_to_multiple_of:
        if pad_to_multiple_of < 1:
            raise TokenizerError(f"pad_to_multiple_of must be positive, got {pad_to_multiple_of}")
        width += -width % pad_to_multiple_of
    return PaddingWaste(
        sequences=len(lengths),
        real_tokens=sum(lengths),
        total_positions=width * len(lengths),
        attention_cells=width * width * len(lengths),
        useful_attention_cells=sum(n * n for n in lengths),
    )


def batches_waste(batches: Sequence[Sequence[int]], *, pad_to_multiple_of: Optional[int] = None) -> PaddingWaste:
    """Total waste of several batches, each padded to its own longest sequence.

    >>> batches_waste([[1, 3], [2, 2]]).padded_positions
    2
    """
    total = PaddingWaste()
    for lengths in batches:
        total = total + padding_waste(lengths, pad_to_multiple_of=pad_to_multiple_of)
    return total


@dataclass(frozen=True)
class BucketingReport:
    """Batches chosen by :func:`bucket_by_length` and the waste before and after.

    ``batches`` hold indices into the input; ``before`` is the waste of
    batching the input in its original order.
    """

    strategy: str
    batch_size: int
    lengths: list[int]
    batches: list[list[int]]
    before: PaddingWaste
    after: PaddingWaste
    original_batches: list[list[int]] = field(default_factory=list)

    @property
    def padding_removed(self) -> int:
        """Padded positions saved compared with the original order."""
        return self.before.padded_positions - self.after.padded_positions

    @property
    def padding_removed_fraction(self) -> float:
        """Share of the original padding that is gone (0 when there was none)."""
        before = self.before.padded_positions
        return self.padding_removed / before if before else 0.0

    @property
    def attention_cells_saved(self) -> int:
        return self.before.attention_cells - self.after.attention_cells

    def batch_lengths(self) -> list[list[int]]:
        """The lengths in each chosen batch."""
        return [[self.lengths[i] for i in batch] for batch in self.batches]

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "batch_size": self.batch_size,
            "batches": self.batches,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "padding_removed": self.padding_removed,
            "padding_removed_fraction": self.padding_removed_fraction,
        }


def _chunks(indices: list[int], size: int) -> list[list[int]]:
    return [indices[i : i + size] for i in range(0, len(indices), size)]


def _sorted_batches(lengths: list[int], size: int) -> list[list[int]]:
    """Longest first, cut into batches, with the one short batch placed where it costs least.

    Cutting the sorted list into consecutive batches is optimal except for where
    the short last batch goes (e.g. ``[1, 0, 0]`` in pairs is best as
    ``[1] [0, 0]``), so every place for it is tried, in O(n) with running sums.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    s = [lengths[i] for i in order]
    n, rest = len(s), len(s) % size
    if rest == 0:
        return _chunks(order, size)
    # tail[i]: sum of s[i], s[i + size], ... (the first, longest, item of each full
    # batch that starts at i); a full batch costs size * its longest item.
    tail = [0] * (n + size)
    for i in range(n - 1, -1, -1):
        tail[i] = s[i] + tail[i + size]
    head = 0
    costs = []
    for k in range(n // size + 1):
        start = k * size
        costs.append(size * head + rest * s[start] + size * tail[start + rest])
        if start < n:
            head += s[start]
    best_cost = min(costs)
    best_k = max(k for k, c in enumerate(costs) if c == best_cost)  # ties: short batch last
    cut = best_k * size
    return _chunks(order[:cut], size) + [order[cut : cut + rest]] + _chunks(order[cut + rest :], size)


def bucket_by_length(
    texts_or_lengths: Sequence[Union[str, int]],
    *,
    batch_size: int,
    strategy: str = "sort",
    length_fn: Optional[Callable[[str], int]] = None,
    bucket_width: Optional[int] = None,
    pad_to_multiple_of: Optional[int] = None,
) -> BucketingReport:
    """Group texts into batches of similar length and report the padding saved.

    ``texts_or_lengths`` are token counts, or texts measured with ``length_fn``
    (default: number of whitespace-separated words; pass e.g.
    ``lambda t: len(tok.encode(t))`` for real token counts). Strategies:

    * ``"none"``: original order (the baseline);
    * ``"sort"``: sort longest first, then cut into batches (the one short
      batch goes where it saves most). This gives the least padding possible
      for the batch size;
    * ``"bucket"``: put lengths into buckets ``bucket_width`` tokens wide
      (default: eight buckets over the range), longest bucket first, and batch
      inside each bucket in the original order, which keeps some randomness.

    >>> r = bucket_by_length(["a b c", "a", "a b c d", "a b"], batch_size=2)
    >>> r.batch_lengths(), r.padding_removed
    ([[4, 3], [2, 1]], 2)
    >>> bucket_by_length([1, 2, 9, 10, 3], batch_size=2, strategy="bucket", bucket_width=4).batches
    [[2, 3], [0, 1], [4]]
    """
    if strategy not in BUCKETING_STRATEGIES:
        raise TokenizerError(f"unknown bucketing strategy {strategy!r}; use one of {', '.join(BUCKETING_STRATEGIES)}")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise TokenizerError(f"batch_size must be a positive whole number, got {batch_size!r}")
    if bucket_width is not None and (not isinstance(bucket_width, int) or bucket_width < 1):
        raise TokenizerError(f"bucket_width must be a positive whole number, got {bucket_width!r}")
    measure = length_fn or (lambda text: len(text.split()))
    lengths = _check_lengths([measure(x) if isinstance(x, str) else x for x in texts_or_lengths])
    order = list(range(len(lengths)))
    original = _chunks(order, batch_size)
    if strategy == "none":
        batches = original
    elif strategy == "sort":
        batches = _sorted_batches(lengths, batch_size)
    else:
        low = min(lengths, default=0)
        width = bucket_width or max(1, -(-(max(lengths, default=0) - low + 1) // 8))
        buckets: dict[int, list[int]] = {}
        for i in order:
            buckets.setdefault((lengths[i] - low) // width, []).append(i)
        batches = [chunk for key in sorted(buckets, reverse=True) for chunk in _chunks(buckets[key], batch_size)]

    def waste(groups: list[list[int]]) -> PaddingWaste:
        return batches_waste([[lengths[i] for i in g] for g in groups], pad_to_multiple_of=pad_to_multiple_of)

    return BucketingReport(
        strategy=strategy,
        batch_size=batch_size,
        lengths=lengths,
        batches=batches,
        before=waste(original),
        after=waste(batches),
        original_batches=original,
    )
