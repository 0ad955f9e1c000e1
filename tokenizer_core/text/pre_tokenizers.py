"""Pre-tokenizers: split text into pieces (words, byte-level chunks) with offsets.

Every pre-tokenizer has ``pre_tokenize_str(text)`` returning ``[(piece, (start,
end))]`` exactly like the same-named pre-tokenizer of Hugging Face
``tokenizers``, a fast ``words(text)`` returning only the pieces (for counting
words while training), and ``split(text)`` returning :class:`Piece` records that
also map each piece character back to the input (needed where a piece's
characters are not the input's: byte-level, or an inserted ``▁``).

The classes live in :mod:`~tokenizer_core.text.pre_tokenizer_base` (:class:`Piece`,
the base class, :class:`Sequence`), :mod:`~tokenizer_core.text.byte_level` and
:mod:`~tokenizer_core.text.word_splitters`; this module gathers them under one
name and offers them by preset name (:func:`preset`).

>>> [p for p, _ in WordSplit().pre_tokenize_str("GPT-4 costs $0.01/token.")]
['GPT', '-', '4', 'costs', '$', '0', '.', '01', '/', 'token', '.']
>>> ByteLevel().words("hello world")
['hello', 'Ġworld']
"""

from __future__ import annotations

from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.byte_level import (
    CL100K_PATTERN,
    CL100K_PORTABLE_PATTERN,
    GPT2_PATTERN,
    ByteLevel,
    byte_level_alphabet,
    bytes_to_symbols,
    bytes_to_unicode,
    hf_pattern,
    unicode_to_bytes,
)
from tokenizer_core.text.pre_tokenizer_base import Piece, PreTokenizer, Sequence
from tokenizer_core.text.word_splitters import (
    BertPreTokenizer,
    Metaspace,
    Punctuation,
    Regex,
    Whitespace,
    WhitespaceSplit,
    WordSplit,
    is_punctuation,
)

__all__ = [
    "CL100K_PATTERN",
    "CL100K_PORTABLE_PATTERN",
    "GPT2_PATTERN",
    "PRESETS",
    "BertPreTokenizer",
    "ByteLevel",
    "Metaspace",
    "Piece",
    "PreTokenizer",
    "Punctuation",
    "Regex",
    "Sequence",
    "Whitespace",
    "WhitespaceSplit",
    "WordSplit",
    "byte_level_alphabet",
    "bytes_to_symbols",
    "bytes_to_unicode",
    "hf_pattern",
    "is_punctuation",
    "preset",
    "unicode_to_bytes",
]

#: Names offered by the CLI and the app, mapped to factories.
PRESETS: dict[str, Any] = {
    "whitespace": Whitespace,
    "word-split": WordSplit,
    "whitespace-split": WhitespaceSplit,
    "bert": BertPreTokenizer,
    "byte-level": ByteLevel,
    "gpt2-regex": lambda: Regex(GPT2_PATTERN),
    "cl100k-regex": lambda: Regex(CL100K_PATTERN),
    "metaspace": Metaspace,
}


def preset(name: str) -> PreTokenizer:
    """Build a pre-tokenizer by its preset name (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]()
    except KeyError:
        raise TokenizerError(f"unknown pre-tokenizer {name!r}; choose one of: {', '.join(PRESETS)}") from None
