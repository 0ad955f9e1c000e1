"""Trainers that hand back an assembled Tokenizer with their trace, for tests that need both.

The engine's algorithm packages return :class:`~tokenizer_core.parts.TokenizerParts` (they do
not import the pipeline); these wrappers assemble them the way the app does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokenizer_core.bpe import trainer as _bpe
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.wordpiece import bert as _bert


def train_bpe(lines: Iterable[str], **kwargs: Any) -> tuple[Tokenizer, Any]:
    parts, result = _bpe.train_bpe(lines, **kwargs)
    return Tokenizer.from_parts(parts), result


def train_bert_wordpiece(lines: Iterable[str], **kwargs: Any) -> tuple[Tokenizer, Any]:
    parts, result = _bert.train_bert_wordpiece(lines, **kwargs)
    return Tokenizer.from_parts(parts), result
