"""Text stages shared by every algorithm: normalizers, pre-tokenizers, decoders, offsets, word counts.

Importing the package registers every normalizer, pre-tokenizer and decoder for saved files
(pre-tokenizers register in ``pre_tokenizer_base``, ``byte_level``, ``word_splitters`` and ``splitting``;
decoders in ``decoders`` and ``edit_decoders``; normalizers in ``normalizers``, ``edit_normalizers`` and
``precompiled``).
"""

from tokenizer_core.text import (
    byte_level,
    decoders,
    edit_decoders,
    normalizers,
    pre_tokenizer_base,
    pre_tokenizers,
    precompiled,
    splitting,
    word_splitters,
)
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.pre_tokenizer_base import Piece

__all__ = ["NormalizedString", "Piece", "byte_level", "count_words", "decoders", "edit_decoders", "normalizers",
           "pre_tokenizer_base", "pre_tokenizers", "precompiled", "splitting", "word_splitters"]
