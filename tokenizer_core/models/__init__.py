"""Tokenization models: one algorithm per module.

Importing this package registers every model class with :mod:`tokenizer_core.registry`.
"""

from .base import Model
