"""Tokenization models: one algorithm per module.

Importing this package registers every model class and trainer with
:mod:`tokenizer_core.registry` and :mod:`tokenizer_core.training`.
"""

from . import bpe, byte, char, unigram, word, wordpiece  # noqa: F401  (registration side effects)
from .base import Model

__all__ = ["Model"]
