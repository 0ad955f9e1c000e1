"""What every encoding call checks first: a ``str``, not too long, and lone surrogates.

>>> guarded(lambda t: t.encode("utf-8"), "a\\ud800")
b'a\\xef\\xbf\\xbd'
"""

from __future__ import annotations

from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.surrogates import replace_lone_surrogates

MAX_INPUT_CHARS = 50_000_000  # one call; beyond this, callers should stream lines


def guarded(run: Any, text: str, **how: Any) -> Any:
    """``run(text, **how)`` for a str of at most MAX_INPUT_CHARS; a lone surrogate (no UTF-8 bytes) reads as U+FFFD, as in tiktoken."""
    if not isinstance(text, str):
        raise TokenizerError(f"can only encode text (str), got {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise TokenizerError(f"input of {len(text):,} characters is too long for one call; encode it line by line")
    try:
        return run(text, **how)
    except UnicodeEncodeError:
        return run(replace_lone_surrogates(text), **how)
