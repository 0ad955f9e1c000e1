"""Truncation of one sequence or a pair, keeping the cut-off parts as overflow windows.

The rules follow Hugging Face ``tokenizers`` exactly, because that is what models
are trained with:

* A sequence longer than ``max_length`` is cut into windows of ``max_length``
  tokens; consecutive windows share ``stride`` tokens. The first window is the
  encoding itself, the others go to ``encoding.overflowing``. With
  ``side="left"`` the kept window is the *end* of the sequence and the overflow
  windows walk towards its start.
* ``longest_first`` on a pair gives each sequence a budget: if the shorter one
  fits in half the budget, the longer one gets the rest; otherwise the budget is
  split in two halves (the second sequence gets the odd token). Each sequence is
  then windowed on its own budget.
* ``only_first`` / ``only_second`` take all the excess from one sequence and fail
  if that sequence is not long enough.

>>> from tokenizer_core.types import Encoding, Token
>>> enc = Encoding.from_tokens([Token(i, str(i), (i, i + 1)) for i in range(5)])
>>> cut = truncate_windows(enc, 3, stride=1, side="right")
>>> cut.ids, [o.ids for o in cut.overflowing]
([0, 1, 2], [[2, 3, 4]])
>>> truncate_windows(enc, 3, stride=1, side="left").ids
[2, 3, 4]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

TRUNCATION_STRATEGIES: tuple[str, ...] = ("longest_first", "only_first", "only_second", "do_not_truncate")
SIDES: tuple[str, ...] = ("right", "left")

_HF_STRATEGY = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}


@dataclass(frozen=True, kw_only=True)
class TruncationParams:
    """How to cut sequences that are too long.

    ``max_length`` counts the special tokens the post-processor adds;
    ``stride`` is the number of tokens shared by consecutive overflow windows;
    ``side`` is which end is cut off (``"right"`` keeps the start).

    >>> TruncationParams(max_length=8, stride=2).strategy
    'longest_first'
    >>> TruncationParams(max_length=8, strategy="only_third")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: unknown truncation strategy 'only_third'; use one of longest_first, only_first, only_second, do_not_truncate
    """

    strategy: str = "longest_first"
    max_length: int = 512
    stride: int = 0
    side: str = "right"

    def __post_init__(self) -> None:
        if self.strategy not in TRUNCATION_STRATEGIES:
            raise TokenizerError(
                f"unknown truncation strategy {self.strategy!r}; use one of {', '.join(TRUNCATION_STRATEGIES)}"
            )
        if self.side not in SIDES:
            raise TokenizerError(f"truncation side must be 'right' or 'left', got {self.side!r}")
        if not isinstance(self.max_length, int) or isinstance(self.max_length, bool) or self.max_length < 0:
            raise TokenizerError(f"max_length must be a whole number of tokens, 0 or more, got {self.max_length!r}")
        if not isinstance(self.stride, int) or isinstance(self.stride, bool) or self.stride < 0:
            raise TokenizerError(f"stride must be a whole number of tokens, 0 or more, got {self.stride!r}")

    @property
    def enabled(self) -> bool:
        """False for ``do_not_truncate``."""
        return self.strategy != "do_not_truncate"

    def to_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "max_length": self.max_length, "stride": self.stride, "side": self.side}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TruncationParams":
        return cls(**{k: data[k] for k in ("strategy", "max_length", "stride", "side") if k in data})

    def to_hf(self) -> Optional[dict[str, Any]]:
        """The ``"truncation"`` object of a ``tokenizer.json`` (``None`` when disabled).

        >>> TruncationParams(max_length=8, side="left").to_hf()["direction"]
        'Left'
        """
        if not self.enabled:
            return None
        return {
            "direction": self.side.capitalize(),
            "max_length": self.max_length,
            "strategy": _HF_STRATEGY[self.strategy],
            "stride": self.stride,
        }

    @classmethod
    def from_hf(cls, data: Optional[dict[str, Any]]) -> "TruncationParams":
        """Read the ``"truncation"`` object of a ``tokenizer.json``."""
        if data is None:
            return cls(strategy="do_not_truncate")
        strategy = {v: k for k, v in _HF_STRATEGY.items()}.get(data.get("strategy", "LongestFirst"))
        if strategy is None:
            raise TokenizerError(f"unknown truncation strategy {data.get('strategy')!r} in tokenizer.json")
        return cls(
            strategy=strategy,
            max_length=int(data["max_length"]),
            stride=int(data.get("stride", 0)),
            side=str(data.get("direction", "Right")).lower(),
        )


def slice_encoding(enc: Encoding, start: int, stop: int) -> Encoding:
    """Tokens ``start:stop`` of ``enc`` as a new encoding without overflow."""
    return Encoding(
        ids=enc.ids[start:stop],
        tokens=enc.tokens[start:stop],
        offsets=enc.offsets[start:stop],
        type_ids=enc.type_ids[start:stop],
        attention_mask=enc.attention_mask[start:stop],
        special_tokens_mask=enc.special_tokens_mask[start:stop],
        word_ids=enc.word_ids[start:stop],
        sequence_ids=enc.sequence_ids[start:stop],
    )


def window_ranges(length: int, max_len: int, *, stride: int, side: str) -> list[tuple[int, int]]:
    """The ``(start, stop)`` token ranges of the windows, kept window first.

    >>> window_ranges(7, 4, stride=1, side="right")
    [(0, 4), (3, 7)]
    >>> window_ranges(7, 3, stride=1, side="left")
    [(4, 7), (2, 5), (0, 3)]
    """
    step = max_len - stride
    ranges: list[tuple[int, int]] = []
    if side == "right":
        for start in range(0, length, step):
            stop = min(start + max_len, length)
            ranges.append((start, stop))
            if stop == length:
                break
    else:
        for last in range(length - 1, -1, -step):
            stop = last + 1
            start = max(stop - max_len, 0)
            ranges.append((start, stop))
            if start == 0:
                break
    return ranges


def truncate_windows(enc: Encoding, max_len: int, *, stride: int = 0, side: str = "right") -> Encoding:
    """Cut ``enc`` to ``max_len`` tokens; the rest becomes overflow windows.

    ``max_len == 0`` keeps nothing and puts the whole sequence in one overflow
    window (as ``tokenizers`` does). Any overflow ``enc`` already had is dropped.
    """
    if max_len >= len(enc):
        return enc
    if max_len == 0:
        empty = Encoding()
        empty.overflowing = [slice_encoding(enc, 0, len(enc))]
        return empty
    if stride >= max_len:
        raise TokenizerError(
            f"stride={stride} must be smaller than the {max_len} tokens a window can hold here "
            "(max_length minus the special tokens, split between the two texts of a pair); "
            "lower the stride or raise max_length"
        )
    ranges = window_ranges(len(enc), max_len, stride=stride, side=side)
    kept = slice_encoding(enc, *ranges[0])
    kept.overflowing = [slice_encoding(enc, start, stop) for start, stop in ranges[1:]]
    return kept


def pair_budget(len_a: int, len_b: int, max_length: int) -> tuple[int, int]:
    """Token budgets of the two texts under ``longest_first`` (tokenizers' rule).

    >>> pair_budget(2, 8, 7), pair_budget(8, 8, 7), pair_budget(4, 8, 7)
    ((2, 5), (3, 4), (3, 4))
    """
    short, long_ = sorted((len_a, len_b))
    long_ = short if short > max_length else max(short, max_length - short)
    if short + long_ > max_length:
        short = max_length // 2
        long_ = short + max_length % 2
    return (short, long_) if len_a <= len_b else (long_, short)


def truncate_pair(
    a: Encoding, b: Optional[Encoding], *, params: TruncationParams, max_length: Optional[int] = None
) -> tuple[Encoding, Optional[Encoding]]:
    """Truncate one text or a pair so that together they fit ``max_length`` tokens.

    ``max_length`` defaults to ``params.max_length``; callers pass a smaller one
    to leave room for special tokens.

    >>> from tokenizer_core.types import Encoding, Token
    >>> a = Encoding.from_tokens([Token(i, "a", (0, 1)) for i in range(6)])
    >>> b = Encoding.from_tokens([Token(i, "b", (0, 1)) for i in range(3)])
    >>> x, y = truncate_pair(a, b, params=TruncationParams(max_length=5))
    >>> len(x), len(y)
    (3, 2)
    """
    if not params.enabled:
        return a, b
    limit = params.max_length if max_length is None else max_length
    stride, side = params.stride, params.side
    if limit == 0:
        return (
            truncate_windows(a, 0, stride=stride, side=side),
            None if b is None else truncate_windows(b, 0, stride=stride, side=side),
        )
    total = len(a) + (0 if b is None else len(b))
    if total <= limit:
        return a, b
    excess = total - limit
    if params.strategy == "longest_first":
        if b is None:
            return truncate_windows(a, limit, stride=stride, side=side), None
        n_a, n_b = pair_budget(len(a), len(b), limit)
        return (
            truncate_windows(a, n_a, stride=stride, side=side),
            truncate_windows(b, n_b, stride=stride, side=side),
        )
    first = params.strategy == "only_first"
    if first:
        target = a
    elif b is None:
        raise TokenizerError(
            "truncation strategy 'only_second' needs a second text (a pair) to cut; "
            "use 'longest_first' or 'only_first' for single texts"
        )
    else:
        target = b
    if len(target) <= excess:
        which = "first" if first else "second"
        raise TokenizerError(
            f"cannot fit max_length={params.max_length}: the {which} text has {len(target)} tokens but "
            f"{excess} must be removed from it; raise max_length or use 'longest_first'"
        )
    cut = truncate_windows(target, len(target) - excess, stride=stride, side=side)
    return (cut, b) if first else (a, cut)
