"""Byte-level pre-tokenization (GPT-2 style): the GPT-2/cl100k split patterns, the byte map, :class:`ByteLevel`.

GPT2_PATTERN and CL100K_PATTERN are written out by hand in kernels/src/scan.c; bytes_to_unicode and
bytes_to_symbols are mirrored by kernels/src/byte_symbols.c.

>>> bytes_to_symbols(" é".encode()), unicode_to_bytes()["Ġ"]
('ĠÃ©', 32)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

import regex

from tokenizer_core.registry import register
from tokenizer_core.text.patterns import match_runs
from tokenizer_core.text.pre_tokenizer_base import Piece, PreTokenizer
from tokenizer_core.text.surrogates import utf8_of
from tokenizer_core.types import Offsets

#: The GPT-2 split pattern (also used by RoBERTa and tokenizers' ByteLevel).
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: The cl100k_base split pattern (GPT-3.5/GPT-4), as tiktoken defines it.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

#: The same split spelled so that Python's ``regex`` and the engine of ``tokenizers`` (Oniguruma)
#: agree, used in exported tokenizer.json files: no possessive quantifiers (Oniguruma reads
#: ``{1,3}+`` as "one or more groups of 1-3"; dropping them changes nothing here, as no
#: alternative can succeed by backtracking into them), and end of text as ``(?![\s\S])``
#: (Oniguruma's ``$`` also matches before every newline).
CL100K_PORTABLE_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s+(?![\s\S])|\s*[\r\n]|\s+(?!\S)|\s"""
)
_PORTABLE = {CL100K_PATTERN: CL100K_PORTABLE_PATTERN}
# Patterns whose matches cover any text without gaps or empty matches (their last alternatives
# take any leftover character), so their matches are the pieces.
_COVERING = frozenset({GPT2_PATTERN, CL100K_PATTERN, CL100K_PORTABLE_PATTERN})


def hf_pattern(pattern: str) -> str:
    """The spelling of ``pattern`` to write into a tokenizer.json (see :data:`CL100K_PORTABLE_PATTERN`)."""
    return _PORTABLE.get(pattern, pattern)


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from the 256 byte values to printable characters.

    Printable Latin-1 bytes map to themselves; the others (controls, space...) are
    shifted to code points from 256 up, in byte order, so a space becomes "Ġ".

    >>> bytes_to_unicode()[ord(" ")], bytes_to_unicode()[ord("A")], bytes_to_unicode()[10]
    ('Ġ', 'A', 'Ċ')
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table: dict[int, str] = {}
    shifted = 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """Inverse of :func:`bytes_to_unicode`. ``unicode_to_bytes()["Ġ"] == 32``."""
    return {c: b for b, c in bytes_to_unicode().items()}


def byte_level_alphabet() -> list[str]:
    """The 256 byte symbols, sorted by code point (as tokenizers' ``ByteLevel.alphabet()``)."""
    return sorted(bytes_to_unicode().values())


_BYTE_TRANS = {b: c for b, c in bytes_to_unicode().items()}


def bytes_to_symbols(data: bytes) -> str:
    """Map raw bytes to byte-level symbols. ``bytes_to_symbols(" é".encode()) == "ĠÃ©"``."""
    return "".join([_BYTE_TRANS[b] for b in data])


def chunk_piece(chunk: str, s: int, e: int, *, extra: int = 0) -> Piece:
    """The byte-level piece of the regex match ``chunk`` found at ``s:e`` of the (possibly
    space-prefixed) text; ``extra`` is the length of that added prefix (0 or 1).

    >>> chunk_piece(" é", 3, 5)
    Piece(text='ĠÃ©', start=3, end=5, spans=((3, 4), (4, 5), (4, 5)))
    """
    if chunk.isascii() and s >= extra:  # one byte per character: the identity map will do
        return Piece(bytes_to_symbols(chunk.encode("ascii")), s - extra, e - extra)
    spans: list[Offsets] = []
    for k, ch in enumerate(chunk):
        pos = max(s + k - extra, 0)  # the added prefix space points at the first character
        spans.extend([(pos, pos + 1)] * len(ch.encode("utf-8")))
    return Piece(bytes_to_symbols(chunk.encode("utf-8")), spans[0][0], spans[-1][1], tuple(spans))


@register("pre_tokenizer", "ByteLevel")
class ByteLevel(PreTokenizer):
    """GPT-2 style: split with a regex (GPT-2's by default), then show each UTF-8 byte as a
    printable symbol (a space becomes "Ġ"), as tokenizers' ByteLevel pre-tokenizer.

    >>> ByteLevel().pre_tokenize_str("héllo world")
    [('hÃ©llo', (0, 5)), ('Ġworld', (5, 11))]
    """

    type_name = "ByteLevel"

    def __init__(self, *, add_prefix_space: bool = False, use_regex: bool = True, pattern: str = GPT2_PATTERN) -> None:
        self.add_prefix_space = add_prefix_space
        self.use_regex = use_regex
        self.pattern = pattern
        self._re = regex.compile(pattern)

    def _chunks(self, text: str) -> list[tuple[str, int, int]]:
        if self.use_regex:
            chunks = [(m.group(), m.start(), m.end()) for m in self._re.finditer(text)]
            if self.pattern in _COVERING or (sum(e - s for _, s, e in chunks) == len(text)
                                             and all(e > s for _, s, e in chunks)):
                return chunks
            # The pattern leaves gaps (or matches nothing somewhere): tokenizers splits with
            # "isolated", so the gaps are pieces too.
            return [(text[s:e], s, e) for s, e, _ in match_runs(self._re, text) if e > s]
        return [(text, 0, len(text))] if text else []

    def _prefixed(self, text: str) -> tuple[str, int]:
        # tokenizers adds the space unless the text starts with exactly " " (a tab does not count).
        if self.add_prefix_space and text and text[0] != " ":
            return " " + text, 1
        return text, 0

    def words(self, text: str) -> list[str]:
        text, _ = self._prefixed(text)
        if self.use_regex and self.pattern in _COVERING:  # the hot path of training: plain findall
            chunks = self._re.findall(text)
        else:
            chunks = [c for c, _, _ in self._chunks(text)]
        out = []
        for c in chunks:
            # A lone surrogate reads as U+FFFD, as in encoding (it has no UTF-8 of its own).
            out.append(c if c.isascii() and c.isalnum() else bytes_to_symbols(utf8_of(c)))
        return out

    def split(self, text: str) -> list[Piece]:
        shifted, extra = self._prefixed(text)
        return [chunk_piece(chunk, s, e, extra=extra) for chunk, s, e in self._chunks(shifted)]

    def chunk_texts(self, text: str) -> Optional[list[str]]:
        """The texts of the pieces of :meth:`split`, which lie end to end (the pattern's matches, and
        the gaps between them where it leaves any); None with an added prefix space or without
        the regex.

        >>> ByteLevel().chunk_texts("hi there")
        ['hi', ' there']
        >>> ByteLevel(pattern=r"\\d+").chunk_texts("ab12c")   # the gaps are pieces too
        ['ab', '12', 'c']
        """
        if not self.use_regex or self.add_prefix_space:
            return None
        if self.pattern in _COVERING:
            return self._re.findall(text)
        chunks = self._re.findall(text)
        # Matches that cover the text (none empty) are its pieces; else the runs with the gaps.
        if sum(map(len, chunks)) == len(text) and "" not in chunks:
            return chunks
        return [c for c, _, _ in self._chunks(text)]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "use_regex": self.use_regex}
        if self.pattern != GPT2_PATTERN:
            d["pattern"] = self.pattern
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ByteLevel":
        return cls(
            add_prefix_space=data.get("add_prefix_space", False),
            use_regex=data.get("use_regex", True),
            pattern=data.get("pattern", GPT2_PATTERN),
        )

    def to_hf(self) -> dict[str, Any]:
        own = {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": True, "use_regex": self.use_regex}
        if self.pattern == GPT2_PATTERN or not self.use_regex:
            return own
        # A custom pattern (e.g. cl100k): split with it first, then map bytes without the GPT-2 regex.
        split = {"type": "Split", "pattern": {"Regex": hf_pattern(self.pattern)}, "behavior": "Isolated",
                 "invert": False}
        own["use_regex"] = False
        return {"type": "Sequence", "pretokenizers": [split, own]}
