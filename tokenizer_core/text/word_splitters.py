"""Pre-tokenizers that split text into words: on whitespace, punctuation, a pattern, or SentencePiece's "▁".

Whitespace, WordSplit and WhitespaceSplit are mirrored by kernels/src/scan.c (next_word), which
training's counts use.

>>> Punctuation().words("hi, you")
['hi', ',', ' you']
"""

from __future__ import annotations

import unicodedata
from typing import Any

import regex

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.text.byte_level import hf_pattern
from tokenizer_core.text.pre_tokenizer_base import Piece, PreTokenizer
from tokenizer_core.text.splitting import apply_behavior, behavior_name, punctuation_runs


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
    """Split at each punctuation character, keeping everything else (spaces included) together;
    ``behavior`` says what happens to the punctuation (see :mod:`~tokenizer_core.text.splitting`).

    >>> Punctuation(behavior="contiguous").words("Hi!! you?")
    ['Hi', '!!', ' you', '?']
    """

    type_name = "Punctuation"

    def __init__(self, *, behavior: str = "isolated") -> None:
        self.behavior = behavior_name(behavior)

    def split(self, text: str) -> list[Piece]:
        if self.behavior == "isolated":
            return _isolate_punctuation(Piece(text, 0, len(text))) if text else []
        spans = apply_behavior(punctuation_runs(text, is_punctuation), self.behavior)
        return [Piece(text[s:e], s, e) for s, e in spans]

    def to_dict(self) -> dict[str, Any]:
        if self.behavior == "isolated":  # the form files written before behaviours existed
            return {"type": "Punctuation"}
        return {"type": "Punctuation", "behavior": self.behavior}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Punctuation":
        return cls(behavior=data.get("behavior", "isolated"))

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": "".join(w.capitalize() for w in self.behavior.split("_"))}


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

    def _replaced(self, text: str, at_start: bool = True) -> tuple[str, bool]:
        r = self.replacement
        t = text.replace(" ", r)
        scheme = self.prepend_scheme
        prepend = (scheme == "always" or (scheme == "first" and at_start)) and bool(t) and not t.startswith(r)
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
        return self.split_at(text, at_start=True)

    def split_at(self, text: str, *, at_start: bool) -> list[Piece]:
        """With ``prepend_scheme="first"`` only text that begins the input gets a "▁" in front.

        >>> Metaspace(prepend_scheme="first").split_at("hi", at_start=False)[0].text
        'hi'
        """
        t, prepend = self._replaced(text, at_start)
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
