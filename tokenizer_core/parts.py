"""What a trainer or a recipe hands to the pipeline: the five stages of a tokenizer, unassembled.

Algorithms build a :class:`TokenizerParts`; :meth:`tokenizer_core.pipeline.Tokenizer.from_parts`
assembles it. Keeping this record below the pipeline lets algorithm packages describe a whole
tokenizer without importing the pipeline (imports flow one way).

>>> TokenizerParts(model="m", special_tokens=("[UNK]",)).metadata
{}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class TokenizerParts:
    """Model plus the optional normalizer, pre-tokenizer, post-processor and decoder."""

    model: Any
    normalizer: Any = None
    pre_tokenizer: Any = None
    post_processor: Any = None
    decoder: Any = None
    special_tokens: tuple[str, ...] | list[str] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
