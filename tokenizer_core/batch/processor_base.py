"""What every post-processor shares: the protocol the pipeline needs and the parts-based driver.

A processor built on :class:`PartsProcessor` only says how to arrange the parts
(the texts and its special tokens); relabelling and merging are done here.

>>> check_parts([Encoding()] * 3, PartsProcessor())
Traceback (most recent call last):
...
tokenizer_core.errors.TokenizerError: PartsProcessor takes one text or a pair, got 3 parts (put it first in a Sequence post-processor, or only after ByteLevel)
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, runtime_checkable

from tokenizer_core.batch.encodings import merge_all, prepare_parts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Encoding


@runtime_checkable
class PostProcessor(Protocol):
    """What the pipeline needs from a post-processor."""

    def process(self, encoding: Encoding, pair: Optional[Encoding] = None, *, add_special_tokens: bool = True) -> Encoding: ...

    def num_special_tokens_to_add(self, is_pair: bool) -> int: ...

    def to_dict(self) -> dict[str, Any]: ...

    def to_hf(self) -> dict[str, Any]: ...


class PartsProcessor:
    """Shared driver: relabel type ids, let the subclass build the parts, merge them."""

    def process(self, encoding: Encoding, pair: Optional[Encoding] = None, *, add_special_tokens: bool = True) -> Encoding:
        """The final encoding of ``encoding`` (and ``pair``)."""
        parts = self.process_parts(prepare_parts(encoding, pair), add_special_tokens=add_special_tokens)
        return merge_all(parts)

    def process_parts(self, parts: list[Encoding], *, add_special_tokens: bool) -> list[Encoding]:
        raise NotImplementedError

    def single_unchanged(self) -> bool:
        """Whether one text without special tokens comes out as it went in (type ids 0, offsets
        untouched): then a batch skips this processor's copy of every row."""
        return False

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        raise NotImplementedError

    def to_hf(self) -> dict[str, Any]:
        return self.to_dict()  # type: ignore[attr-defined]

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> Any:
        return cls.from_dict(data)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"  # type: ignore[attr-defined]


def check_parts(parts: list[Encoding], processor: object) -> None:
    if len(parts) not in (1, 2):
        raise TokenizerError(
            f"{type(processor).__name__} takes one text or a pair, got {len(parts)} parts "
            "(put it first in a Sequence post-processor, or only after ByteLevel)"
        )
