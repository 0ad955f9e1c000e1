"""Exceptions raised by tokenizer_core.

Every error a user can cause (bad corpus, bad settings, malformed files) is a
:class:`TokenizerError`, a ``ValueError`` subclass whose message says what went
wrong and how to fix it, so the CLI and the app can show it as one line.

>>> try:
...     raise TokenizerError("vocab_size must be positive")
... except ValueError as err:
...     str(err)
'vocab_size must be positive'
"""

from __future__ import annotations


class TokenizerError(ValueError):
    """A problem with user input or settings, explained in plain words."""


class CorpusError(TokenizerError):
    """A corpus file that cannot be read as text (binary, bad encoding, too big, empty)."""


class FormatError(TokenizerError):
    """A malformed or unsupported saved tokenizer file."""
