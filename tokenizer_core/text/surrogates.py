"""Lone surrogates (U+D800..U+DFFF code units without a partner) have no UTF-8 bytes, so byte-level
models cannot encode them. tiktoken reads them as U+FFFD; so do we, one replacement character per
surrogate, so every offset into the text stays valid.

>>> replace_lone_surrogates("a\\ud800b")
'a\\ufffdb'
>>> replace_lone_surrogates("plain") == "plain"
True
>>> utf8_of("a\\ud800")
b'a\xef\xbf\xbd'
"""

from __future__ import annotations

import re

__all__ = ["replace_lone_surrogates", "utf8_of"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each surrogate code unit replaced by U+FFFD (same length).

    tiktoken joins a valid high+low pair into one character first; a Python ``str`` holds such a
    pair only when it was decoded wrongly, and we replace both halves, keeping offsets aligned."""
    return _SURROGATE.sub("\ufffd", text)


def utf8_of(text: str) -> bytes:
    """The UTF-8 bytes of ``text``, each lone surrogate read as U+FFFD (as encoding reads it), so
    that training and encoding see the same bytes and neither raises a codec error."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return replace_lone_surrogates(text).encode("utf-8")
