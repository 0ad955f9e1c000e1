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

from typing import Optional


class TokenizerError(ValueError):
    """A problem with user input or settings, explained in plain words."""


class CorpusError(TokenizerError):
    """A corpus file that cannot be read as text (binary, bad encoding, too big, empty)."""


class FormatError(TokenizerError):
    """A malformed or unsupported saved tokenizer file.

    ``part`` names the part of the file the message already speaks of (such as
    ``"normalizer of type 'NFC'"``), so code adding context checks the type, not the text.

    >>> FormatError("bad charsmap", part="normalizer of type 'Precompiled'").part
    "normalizer of type 'Precompiled'"
    """

    def __init__(self, message: str, *, part: Optional[str] = None) -> None:
        super().__init__(message)
        self.part = part


class UnsupportedError(FormatError):
    """A well-formed file using a part (a normalizer, a model type...) the playground does not implement."""


class UnknownTokenError(TokenizerError):
    """Text the vocabulary cannot spell, for a model without an unknown token to stand in for it.

    A property of the vocabulary rather than of a file: code that probes a tokenizer catches
    this type (never the message) to tell it apart from a broken tokenizer.
    """


class UnknownIdError(TokenizerError):
    """An id to decode that the vocabulary does not have (``tokenizers`` skips such ids; we say so)."""
