"""Padding encodings of a batch to a common length.

Padding adds ``pad_id`` tokens with attention mask 0, special-tokens mask 1,
type id ``pad_type_id``, offsets ``(0, 0)`` and no word or sequence id, on the
right (the usual choice for encoders) or on the left (the usual choice for
decoder-only models generating after the prompt). Overflow windows are padded to
the same length as their encoding, as in Hugging Face ``tokenizers``.

>>> from tokenizer_core.types import Encoding, Token
>>> enc = Encoding.from_tokens([Token(5, "hi", (0, 2))])
>>> padded = pad_encoding(enc, 3, params=PaddingParams(side="left"))
>>> padded.ids, padded.attention_mask
([0, 0, 5], [0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding

PADDING_STRATEGIES: tuple[str, ...] = ("longest", "max_length", "do_not_pad")
SIDES: tuple[str, ...] = ("right", "left")


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, kw_only=True)
class PaddingParams:
    """How to pad a batch.

    ``strategy``: ``"longest"`` pads to the longest encoding of the batch,
    ``"max_length"`` to ``max_length`` (longer encodings are left as they are,
    truncation is a separate setting), ``"do_not_pad"`` leaves lengths alone.
    ``pad_to_multiple_of`` then rounds the length up (e.g. 8 for tensor cores).

    >>> PaddingParams(strategy="max_length", max_length=6, pad_to_multiple_of=4).target_length([3])
    8
    >>> PaddingParams(strategy="max_length")
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: padding strategy 'max_length' needs max_length (the length to pad to)
    """

    strategy: str = "longest"
    side: str = "right"
    max_length: Optional[int] = None
    pad_to_multiple_of: Optional[int] = None
    pad_id: int = 0
    pad_token: str = "[PAD]"
    pad_type_id: int = 0

    def __post_init__(self) -> None:
        if self.strategy not in PADDING_STRATEGIES:
            raise TokenizerError(
                f"unknown padding strategy {self.strategy!r}; use one of {', '.join(PADDING_STRATEGIES)}"
            )
        if self.side not in SIDES:
            raise TokenizerError(f"padding side must be 'right' or 'left', got {self.side!r}")
        if self.max_length is not None and (not _is_count(self.max_length) or self.max_length < 0):
            raise TokenizerError(f"padding max_length must be a whole number, 0 or more, got {self.max_length!r}")
        if self.strategy == "max_length" and self.max_length is None:
            raise TokenizerError("padding strategy 'max_length' needs max_length (the length to pad to)")
        if self.pad_to_multiple_of is not None and (
            not _is_count(self.pad_to_multiple_of) or self.pad_to_multiple_of < 1
        ):
            raise TokenizerError(
                f"pad_to_multiple_of must be a positive whole number (or None), got {self.pad_to_multiple_of!r}"
            )
        if not _is_count(self.pad_id) or self.pad_id < 0:
            raise TokenizerError(f"pad_id must be a token id (0 or more), got {self.pad_id!r}")
        if not _is_count(self.pad_type_id) or self.pad_type_id < 0:
            raise TokenizerError(f"pad_type_id must be 0 or more, got {self.pad_type_id!r}")

    @property
    def enabled(self) -> bool:
        """False for ``do_not_pad``."""
        return self.strategy != "do_not_pad"

    def target_length(self, lengths: Sequence[int]) -> Optional[int]:
        """The length every encoding is padded to, or ``None`` when not padding.

        >>> PaddingParams(pad_to_multiple_of=8).target_length([3, 9, 5])
        16
        """
        if not self.enabled or not lengths:
            return None
        target = self.max_length if self.strategy == "max_length" else max(lengths)
        multiple = self.pad_to_multiple_of
        if multiple and target % multiple:
            target += multiple - target % multiple
        return target

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "side": self.side,
            "max_length": self.max_length,
            "pad_to_multiple_of": self.pad_to_multiple_of,
            "pad_id": self.pad_id,
            "pad_token": self.pad_token,
            "pad_type_id": self.pad_type_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PaddingParams":
        fields = ("strategy", "side", "max_length", "pad_to_multiple_of", "pad_id", "pad_token", "pad_type_id")
        return cls(**{k: data[k] for k in fields if k in data})

    def to_hf(self) -> Optional[dict[str, Any]]:
        """The ``"padding"`` object of a ``tokenizer.json`` (``None`` when disabled).

        >>> PaddingParams(strategy="max_length", max_length=16).to_hf()["strategy"]
        {'Fixed': 16}
        """
        if not self.enabled:
            return None
        return {
            "strategy": "BatchLongest" if self.strategy == "longest" else {"Fixed": self.max_length},
            "direction": self.side.capitalize(),
            "pad_to_multiple_of": self.pad_to_multiple_of,
            "pad_id": self.pad_id,
            "pad_type_id": self.pad_type_id,
            "pad_token": self.pad_token,
        }

    @classmethod
    def from_hf(cls, data: Optional[dict[str, Any]]) -> "PaddingParams":
        """Read the ``"padding"`` object of a ``tokenizer.json``."""
        if data is None:
            return cls(strategy="do_not_pad")
        strategy = data.get("strategy", "BatchLongest")
        fixed = strategy.get("Fixed") if isinstance(strategy, dict) else None
        return cls(
            strategy="longest" if fixed is None else "max_length",
            max_length=fixed,
            side=str(data.get("direction", "Right")).lower(),
            pad_to_multiple_of=data.get("pad_to_multiple_of") or None,
            pad_id=int(data.get("pad_id", 0)),
            pad_type_id=int(data.get("pad_type_id", 0)),
            pad_token=str(data.get("pad_token", "[PAD]")),
        )


def pad_encoding(enc: Encoding, length: int, *, params: PaddingParams) -> Encoding:
    """A copy of ``enc`` (and of its overflow windows) padded to ``length`` tokens.

    Encodings already at least ``length`` long are returned unchanged in length.
    """
    overflowing = [pad_encoding(o, length, params=params) for o in enc.overflowing]
    n = length - len(enc)
    if n <= 0:
        out = Encoding(
            ids=list(enc.ids), tokens=list(enc.tokens), offsets=list(enc.offsets),
            type_ids=list(enc.type_ids), attention_mask=list(enc.attention_mask),
            special_tokens_mask=list(enc.special_tokens_mask), word_ids=list(enc.word_ids),
            sequence_ids=list(enc.sequence_ids),
        )
        out.overflowing = overflowing
        return out

    def pad(values: list, fill: Any) -> list:
        return [fill] * n + values if params.side == "left" else values + [fill] * n

    out = Encoding(
        ids=pad(enc.ids, params.pad_id),
        tokens=pad(enc.tokens, params.pad_token),
        offsets=pad(enc.offsets, (0, 0)),
        type_ids=pad(enc.type_ids, params.pad_type_id),
        attention_mask=pad(enc.attention_mask, 0),
        special_tokens_mask=pad(enc.special_tokens_mask, 1),
        word_ids=pad(enc.word_ids, None),
        sequence_ids=pad(enc.sequence_ids, None),
    )
    out.overflowing = overflowing
    return out


def pad_encodings(encodings: Sequence[Encoding], *, params: Optional[PaddingParams]) -> list[Encoding]:
    """Pad a batch; the target comes from the encodings themselves, not their overflow.

    >>> from tokenizer_core.types import Encoding, Token
    >>> batch = [Encoding.from_tokens([Token(7, "a", (0, 1))] * k) for k in (1, 3)]
    >>> [e.ids for e in pad_encodings(batch, params=PaddingParams())]
    [[7, 0, 0], [7, 7, 7]]
    """
    if params is None:
        return list(encodings)
    target = params.target_length([len(e) for e in encodings])
    if target is None:
        return list(encodings)
    return [pad_encoding(e, target, params=params) for e in encodings]
