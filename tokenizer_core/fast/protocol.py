"""The contract of a fast path: what the pipeline asks of one, and how one says why it will not run.

A fast path encodes a tokenizer's texts exactly as the general path does (field for field), only
faster: from cached chunks, in the compiled kernel, on every core for a batch. Each kind of fast
path is a class in the ordered registry (:mod:`tokenizer_core.fast.registry`); for a tokenizer's
stages its :meth:`PlannedPath.plan` gives either the path or a sentence saying why these stages
are not its kind, which :func:`~tokenizer_core.fast.registry.explain_fast_path` shows to people.

A path may still hand a single text back to the general path (``encode`` returns None, a batch row
is None): :meth:`PlannedPath.limits` says when, in sentences, so nothing is silently slow.

>>> from tokenizer_core.bpe.model import BPE
>>> from tokenizer_core.fast.chunked import ChunkedFastPath
>>> ChunkedFastPath.plan(normalizer=None, pre_tokenizer=None, model=BPE({"a": 0}))
'the pre-tokenizer (none) may keep white space inside a piece'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Optional, Protocol, Union, runtime_checkable

from tokenizer_core.types import Encoding

__all__ = ["FastPath", "PlannedPath", "stage_name"]


@runtime_checkable
class FastPath(Protocol):
    """What :class:`~tokenizer_core.pipeline.Tokenizer` calls on its fast path."""

    #: The kind of path, for people ("byte-level BPE in the kernel").
    name: ClassVar[str]

    def encode(self, text: str, *, added: Any, split_special: bool, sequence_id: int) -> Optional[Encoding]:
        """The model tokens of ``text`` as the general path gives them; None: take the general path."""

    def encode_batch(self, texts: Sequence[str], *, added: Any, split_special: bool, sequence_id: int,
                     threads: Optional[int] = None) -> Optional[list[Optional[Encoding]]]:
        """Every text's encoding (None rows: those texts take the general path); None for all."""

    def limits(self) -> tuple[str, ...]:
        """When a text still takes the general path, in sentences."""

    def compiled(self) -> bool:
        """Whether the compiled kernel does the work (else this path's Python code)."""


class PlannedPath:
    """The base of every fast path: :meth:`plan` says how these stages run, or why they cannot;
    :meth:`build` is the path or None."""

    name: ClassVar[str] = ""

    @classmethod
    def plan(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Union[PlannedPath, str]:
        """This kind of path for these stages, or a sentence saying why not."""
        raise NotImplementedError

    @classmethod
    def build(cls, *, normalizer: Any, pre_tokenizer: Any, model: Any) -> Optional[Any]:
        """The fast path for these stages, or None when they need another (see :meth:`plan`)."""
        made = cls.plan(normalizer=normalizer, pre_tokenizer=pre_tokenizer, model=model)
        return None if isinstance(made, str) else made

    def limits(self) -> tuple[str, ...]:
        return ()

    def compiled(self) -> bool:
        return False


def stage_name(stage: Any) -> str:
    """A stage as a refusal names it: its class's name, or "none".

    >>> stage_name(None), stage_name(3)
    ('none', 'int')
    """
    return "none" if stage is None else type(stage).__name__
