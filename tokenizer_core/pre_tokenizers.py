"""Pre-tokenizers: split text into pieces (words, byte-level chunks) with offsets.

Every pre-tokenizer has ``pre_tokenize_str(text)`` returning ``[(piece, (start,
end))]`` exactly like the same-named pre-tokenizer of Hugging Face
``tokenizers``, a fast ``words(text)`` returning only the pieces (for counting
words while training), and ``split(text)`` returning :class:`Piece` records that
also map each piece character back to the input (needed where a piece's
characters are not the input's: byte-level, or an inserted ``▁``).

>>> [p for p, _ in WordSplit().pre_tokenize_str("GPT-4 costs $0.01/token.")]
['GPT', '-', '4', 'costs', '$', '0', '.', '01', '/', 'token', '.']
>>> ByteLevel().words("hello world")
['hello', 'Ġworld']
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any, NamedTuple, Optional

import regex

from .errors import TokenizerError
from .registry import Component, build, register
from .types import Offsets

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


class Piece(NamedTuple):
    """A piece of text and where it came from.

    ``start``/``end`` are the input span; ``spans`` gives, per piece character, its
    input span (``None`` means the piece is the input slice itself, character for character).
    """

    text: str
    start: int
    end: int
    spans: Optional[tuple[Offsets, ...]] = None

    def char_span(self, k: int) -> Offsets:
        """Input span of piece character ``k``."""
        if self.spans is None:
            return (self.start + k, self.start + k + 1)
        return self.spans[k]

    def token_span(self, s: int, e: int) -> Offsets:
        """Input span of the piece characters ``s:e`` (a token inside the piece)."""
        if self.spans is None:
            return (self.start + s, self.start + e)
        if s >= e:
            return (self.spans[s][0], self.spans[s][0]) if s < len(self.spans) else (self.end, self.end)
        return (self.spans[s][0], max(sp[1] for sp in self.spans[s:e]))


class PreTokenizer(Component):
    """Base class. Subclasses implement ``split`` and may speed up ``words``."""

    type_name = "PreTokenizer"

    def split(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def pre_tokenize_str(self, text: str) -> list[tuple[str, Offsets]]:
        return [(p.text, (p.start, p.end)) for p in self.split(text)]

    def words(self, text: str) -> list[str]:
        return [p.text for p in self.split(text)]


class _RegexFind(PreTokenizer):
    """Pieces are the matches of a pattern (text between matches is dropped)."""

    pattern = ""

    def __init__(self) -> None:
        self._re = regex.compile(self.pattern)

    def split(self, text: str) -> list[Piece]:
        return [Piece(m.group(), m.start(), m.end()) for m in self._re.finditer(text)]

    def words(self, text: str) -> list[str]:
        return self._re.findall(text)


@register("pre_tokenizer", "Whitespace")
class Whitespace(_RegexFind):
    r"""Word characters and runs of other non-space characters (``\w+|[^\w\s]+``), as tokenizers' Whitespace.

    >>> Whitespace().words("$0.01/token.")
    ['$', '0', '.', '01', '/', 'token', '.']
    """

    type_name = "Whitespace"
    pattern = r"\w+|[^\w\s]+"


@register("pre_tokenizer", "WordSplit")
class WordSplit(_RegexFind):
    r"""Words and single punctuation characters (``\w+|[^\w\s]``): "a..." gives a . . .

    >>> WordSplit().words("Wait...")
    ['Wait', '.', '.', '.']
    """

    type_name = "WordSplit"
    pattern = r"\w+|[^\w\s]"

    def to_hf(self) -> dict[str, Any]:
        return {
            "type": "Split",
            "pattern": {"Regex": self.pattern},
            "behavior": "Removed",
            "invert": True,
        }


@register("pre_tokenizer", "WhitespaceSplit")
class WhitespaceSplit(_RegexFind):
    """Split on whitespace only. ``WhitespaceSplit().words("a-b c") == ['a-b', 'c']``."""

    type_name = "WhitespaceSplit"
    pattern = r"\S+"


def is_punctuation(c: str) -> bool:
    """ASCII punctuation/symbols or any Unicode punctuation (category P*), as BERT defines it."""
    return (c.isascii() and not c.isalnum() and c.isprintable() and c != " ") or unicodedata.category(c).startswith("P")


def _isolate_punctuation(piece: Piece) -> list[Piece]:
    out: list[Piece] = []
    start = 0
    t = piece.text
    for k, c in enumerate(t):
        if is_punctuation(c):
            if k > start:
                out.append(Piece(t[start:k], piece.start + start, piece.start + k))
            out.append(Piece(c, piece.start + k, piece.start + k + 1))
            start = k + 1
    if start < len(t):
        out.append(Piece(t[start:], piece.start + start, piece.end))
    return out


@register("pre_tokenizer", "Punctuation")
class Punctuation(PreTokenizer):
    """Isolate each punctuation character, keeping everything else (spaces included) together."""

    type_name = "Punctuation"

    def split(self, text: str) -> list[Piece]:
        return _isolate_punctuation(Piece(text, 0, len(text))) if text else []

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": "Isolated"}


@register("pre_tokenizer", "BertPreTokenizer")
class BertPreTokenizer(PreTokenizer):
    """BERT's basic split: on whitespace, then each punctuation character on its own.

    >>> BertPreTokenizer().words("GPT-4 costs $0.01")
    ['GPT', '-', '4', 'costs', '$', '0', '.', '01']
    """

    type_name = "BertPreTokenizer"
    # One scan: runs of non-space, non-punctuation characters, or a single punctuation character
    # (ASCII symbols count as punctuation for BERT, as do Unicode categories P*).
    _re = regex.compile(r"[^\s\p{P}!-/:-@\[-`{-~]+|[\p{P}!-/:-@\[-`{-~]")

    def split(self, text: str) -> list[Piece]:
        return [Piece(m.group(), m.start(), m.end()) for m in self._re.finditer(text)]

    def words(self, text: str) -> list[str]:
        return self._re.findall(text)


@register("pre_tokenizer", "Regex")
class Regex(PreTokenizer):
    """Pieces are the matches of a user pattern, plus the gaps between them ("isolated").

    >>> Regex(r"\\d+").words("ab12cd")
    ['ab', '12', 'cd']
    """

    type_name = "Regex"

    def __init__(self, pattern: str) -> None:
        try:
            self._re = regex.compile(pattern)
        except regex.error as err:
            raise TokenizerError(f"invalid pre-tokenizer pattern {pattern!r}: {err}") from err
        self.pattern = pattern

    def split(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        pos = 0
        for m in self._re.finditer(text):
            if m.start() > pos:
                out.append(Piece(text[pos:m.start()], pos, m.start()))
            if m.end() > m.start():
                out.append(Piece(m.group(), m.start(), m.end()))
            pos = m.end()
        if pos < len(text):
            out.append(Piece(text[pos:], pos, len(text)))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Regex", "pattern": self.pattern}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Regex":
        return cls(data["pattern"])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Split", "pattern": {"Regex": hf_pattern(self.pattern)}, "behavior": "Isolated",
                "invert": False}


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
            return [(m.group(), m.start(), m.end()) for m in self._re.finditer(text)]
        return [(text, 0, len(text))] if text else []

    def _prefixed(self, text: str) -> tuple[str, int]:
        if self.add_prefix_space and text and not text[0].isspace():
            return " " + text, 1
        return text, 0

    def words(self, text: str) -> list[str]:
        text, _ = self._prefixed(text)
        chunks = self._re.findall(text) if self.use_regex else ([text] if text else [])
        out = []
        for c in chunks:
            out.append(c if c.isascii() and c.isalnum() else bytes_to_symbols(c.encode("utf-8")))
        return out

    def split(self, text: str) -> list[Piece]:
        shifted, extra = self._prefixed(text)
        out: list[Piece] = []
        for chunk, s, e in self._chunks(shifted):
            if chunk.isascii() and s >= extra:  # one byte per character: the identity map will do
                out.append(Piece(bytes_to_symbols(chunk.encode("ascii")), s - extra, e - extra))
                continue
            spans: list[Offsets] = []
            for k, ch in enumerate(chunk):
                pos = s + k - extra
                span = (0, 0) if pos < 0 else (pos, pos + 1)  # the added prefix space maps to nothing
                spans.extend([span] * len(ch.encode("utf-8")))
            start = max(s - extra, 0)
            out.append(Piece(bytes_to_symbols(chunk.encode("utf-8")), start, e - extra, tuple(spans)))
        return out

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


@register("pre_tokenizer", "Metaspace")
class Metaspace(PreTokenizer):
    """SentencePiece style: spaces become "▁", a "▁" is put in front (``prepend_scheme``),
    and with ``split`` each "▁" starts a new piece.

    >>> Metaspace().words("Hey friend")
    ['▁Hey', '▁friend']
    """

    type_name = "Metaspace"

    def __init__(self, *, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        if len(replacement) != 1:
            raise TokenizerError(f"Metaspace replacement must be one character, got {replacement!r}")
        if prepend_scheme not in ("always", "first", "never"):
            raise TokenizerError(f"prepend_scheme must be always, first or never, got {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_pieces = split

    def _replaced(self, text: str) -> tuple[str, bool]:
        r = self.replacement
        t = text.replace(" ", r)
        prepend = self.prepend_scheme != "never" and bool(t) and not t.startswith(r)
        return (r + t if prepend else t), prepend

    def words(self, text: str) -> list[str]:
        t, _ = self._replaced(text)
        if not self.split_pieces:
            return [t] if t else []
        r = self.replacement
        parts = t.split(r)
        out = [parts[0]] if parts[0] else []
        out.extend(r + p for p in parts[1:])
        return out

    def split(self, text: str) -> list[Piece]:
        t, prepend = self._replaced(text)
        if not t:
            return []
        shift = 1 if prepend else 0
        r = self.replacement
        bounds = [0]
        if self.split_pieces:
            bounds += [k for k in range(1, len(t)) if t[k] == r]
        bounds.append(len(t))
        out: list[Piece] = []
        for a, b in zip(bounds, bounds[1:]):
            if a == b:
                continue
            if prepend and a == 0:
                # The prepended "▁" takes the first character's span, as in tokenizers.
                spans = ((0, 1),) + tuple((k, k + 1) for k in range(0, b - 1))
                out.append(Piece(t[a:b], 0, b - 1, spans))
            else:
                out.append(Piece(t[a:b], a - shift, b - shift))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split_pieces}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Metaspace":
        return cls(
            replacement=data.get("replacement", "▁"),
            prepend_scheme=data.get("prepend_scheme", "always"),
            split=data.get("split", True),
        )

    def to_hf(self) -> dict[str, Any]:
        return self.to_dict()


@register("pre_tokenizer", "Sequence")
class Sequence(PreTokenizer):
    """Apply pre-tokenizers in turn, each one splitting the pieces of the previous one."""

    type_name = "Sequence"

    def __init__(self, pre_tokenizers: list[PreTokenizer]) -> None:
        if not pre_tokenizers:
            raise TokenizerError("a Sequence pre-tokenizer needs at least one pre-tokenizer")
        self.pre_tokenizers = list(pre_tokenizers)

    def words(self, text: str) -> list[str]:
        pieces = [text]
        for pt in self.pre_tokenizers:
            pieces = [w for p in pieces for w in pt.words(p)]
        return pieces

    def split(self, text: str) -> list[Piece]:
        pieces = [Piece(text, 0, len(text))]
        for pt in self.pre_tokenizers:
            nxt: list[Piece] = []
            for outer in pieces:
                for inner in pt.split(outer.text):
                    n = len(inner.text)
                    spans = tuple(outer.token_span(*_inner_range(inner, k)) for k in range(n))
                    start, end = outer.token_span(inner.start, inner.end)
                    identity = all(spans[k] == (start + k, start + k + 1) for k in range(n))
                    nxt.append(Piece(inner.text, start, end, None if identity else spans))
            pieces = nxt
        return pieces

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "pre_tokenizers": [p.to_dict() for p in self.pre_tokenizers]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Sequence":
        return cls([build("pre_tokenizer", d) for d in data["pre_tokenizers"]])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [p.to_hf() for p in self.pre_tokenizers]}

    def __repr__(self) -> str:
        return f"Sequence({self.pre_tokenizers!r})"


def _inner_range(inner: Piece, k: int) -> tuple[int, int]:
    """Outer-piece character range that character ``k`` of an inner piece came from."""
    s, e = inner.char_span(k)
    return s, max(e, s)


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
