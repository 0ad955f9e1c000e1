"""The subset of regex syntax that tokenizers' split patterns use, parsed into a small tree for
:mod:`tokenizer_core.text.regex_program` (which compiles it for the kernel's matcher).

Alternations of sequences of quantified atoms: character classes (``\\p{L}``, ``[^\\s\\p{L}]``,
``\\s``, ``.``), literal characters (``\\x20``, ``\\u00e9`` too), groups (``(?:...)``, ``(?i:...)``,
capturing ones read as plain groups), look-aheads (``(?!...)``, ``(?=...)``) and ``$``; quantifiers
``? * + {m,n}``, lazy or possessive. Anything else raises :class:`Unsupported`.

>>> tree = parse(r"a|\\p{L}+")
>>> [len(seq) for seq in tree.seqs], tree.seqs[1][0].hi == INF
([1, 1], True)
>>> try:
...     parse(r"\\bword")
... except Unsupported as err:
...     print(err)
the escape \\b
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

import regex

INF = -1
MAX_SET = 16


class Unsupported(Exception):
    """The pattern is outside the subset the kernel runs."""


# ------------------------------------------------------------------------------------------- AST
@dataclass
class Cls:
    key: str  # a regex matching exactly one character (with its case flag inside)


@dataclass
class Char:
    cp: int


@dataclass
class CharSet:
    """A few code points (a letter matched case-insensitively: s, S and ſ)."""

    cps: tuple[int, ...]


@dataclass
class Look:
    negative: bool
    body: "Alt"


@dataclass
class End:
    """``$``: the end, or before a final newline (the regex module's rule without MULTILINE)."""


@dataclass
class Item:
    atom: Union[Cls, Char, CharSet, Look, End, "Alt"]
    lo: int = 1
    hi: int = 1
    mode: str = "greedy"  # or "lazy", "possessive"


@dataclass
class Alt:
    seqs: list[list[Item]]


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a", "e": "\x1b", "0": "\0"}
_CLASS_ESCAPES = "sSdDwW"
_HEX_DIGITS = {"x": 2, "u": 4}


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p, self.i = pattern, 0

    def peek(self, k: int = 0) -> str:
        return self.p[self.i + k] if self.i + k < len(self.p) else ""

    def take(self, s: str) -> bool:
        if self.p.startswith(s, self.i):
            self.i += len(s)
            return True
        return False

    def parse(self) -> Alt:
        alt = self.alt(caseless=False)
        if self.i != len(self.p):
            raise Unsupported(f"unexpected {self.peek()!r} at {self.i}")
        return alt

    def alt(self, *, caseless: bool) -> Alt:
        seqs = [self.seq(caseless=caseless)]
        while self.take("|"):
            seqs.append(self.seq(caseless=caseless))
        return Alt(seqs)

    def seq(self, *, caseless: bool) -> list[Item]:
        items: list[Item] = []
        while self.peek() and self.peek() not in "|)":
            atom = self.atom(caseless=caseless)
            items.append(self.quantified(atom))
        return items

    def quantified(self, atom: Union[Cls, Char, CharSet, Look, End, Alt]) -> Item:
        c = self.peek()
        if c == "?":
            lo, hi = 0, 1
        elif c == "*":
            lo, hi = 0, INF
        elif c == "+":
            lo, hi = 1, INF
        elif c == "{":
            m = regex.match(r"\{(\d*)(,?)(\d*)\}", self.p[self.i:])
            if not m or not (m.group(1) or m.group(3)):
                raise Unsupported("a brace that is not a count")
            lo = int(m.group(1) or 0)
            hi = lo if not m.group(2) else (int(m.group(3)) if m.group(3) else INF)
            if hi != INF and (hi < lo or hi > 100):
                raise Unsupported("a count out of range")
            self.i += len(m.group()) - 1
        else:
            return Item(atom)
        self.i += 1
        mode = "possessive" if self.take("+") else "lazy" if self.take("?") else "greedy"
        if isinstance(atom, (Look, End)):
            raise Unsupported("a quantified assertion")
        return Item(atom, lo, hi, mode)

    def atom(self, *, caseless: bool) -> Union[Cls, Char, CharSet, Look, End, Alt]:
        c = self.peek()
        if c == "(":
            return self.group(caseless=caseless)
        if c == "[":
            start = self.i
            self.bracket()
            return self.cls(self.p[start:self.i], caseless)
        if c == "\\":
            return self.escape(caseless=caseless)
        if c == "$":
            self.i += 1
            return End()
        if c == ".":
            self.i += 1
            return self.cls(".", caseless)
        if c in "^*+?{":
            raise Unsupported(f"{c!r} here")
        self.i += 1
        return self.literal(c, caseless)

    def literal(self, ch: str, caseless: bool) -> Union[Cls, Char, CharSet]:
        if not caseless:
            return Char(ord(ch))
        # The code points the regex module matches it with, case-insensitively.
        cps = tuple(m.start() for m in regex.finditer(f"(?i:{regex.escape(ch)})", everything_class()))
        if len(cps) > MAX_SET:
            return Cls(f"(?i:{regex.escape(ch)})")
        return Char(cps[0]) if len(cps) == 1 else CharSet(cps)

    def cls(self, text: str, caseless: bool) -> Cls:
        return Cls(f"(?i:{text})" if caseless else text)

    def escape(self, *, caseless: bool) -> Union[Cls, Char, CharSet]:
        self.i += 1
        c = self.peek()
        if not c:
            raise Unsupported("a trailing backslash")
        if c in "pP":
            m = regex.match(r"[pP]\{[\w=:^ -]+\}", self.p[self.i:])
            if not m:
                raise Unsupported("a property without braces")
            self.i += len(m.group())
            return self.cls("\\" + m.group(), caseless)
        self.i += 1
        if c in _CLASS_ESCAPES:
            return self.cls("\\" + c, caseless)
        if c in _ESCAPES:
            return Char(ord(_ESCAPES[c]))
        if c in _HEX_DIGITS:  # \xHH, \uHHHH
            digits = _HEX_DIGITS[c]
            m = regex.match(f"[0-9a-fA-F]{{{digits}}}", self.p[self.i:])
            if not m:
                raise Unsupported(f"a \\{c} escape")
            self.i += digits
            return self.literal(chr(int(m.group(), 16)), caseless)
        if c.isalnum():
            raise Unsupported(f"the escape \\{c}")  # \b, \A, back references...
        return self.literal(c, caseless)

    def bracket(self) -> None:
        """Skip one bracket expression (the regex module reads it); nested sets are not supported."""
        self.i += 1
        if self.take("^"):
            pass
        if self.peek() == "]":
            self.i += 1
        while True:
            c = self.peek()
            if not c:
                raise Unsupported("an unclosed [")
            if c == "\\":
                self.i += 2
                continue
            if c == "[":
                raise Unsupported("a nested set")
            self.i += 1
            if c == "]":
                return

    def group(self, *, caseless: bool) -> Union[Look, Alt]:
        self.i += 1
        if self.take("?"):
            if self.take("!") or self.peek() == "=":
                negative = self.p[self.i - 1] == "!"
                if not negative:
                    self.i += 1
                body = self.alt(caseless=caseless)
                self.close()
                return Look(negative, body)
            m = regex.match(r"([imsx]*)(?:-([imsx]*))?:", self.p[self.i:])
            if not m:
                raise Unsupported("a group kind other than (?:), (?flags:), (?!) and (?=)")
            on, off = m.group(1), m.group(2) or ""
            if set(on + off) - {"i"}:
                raise Unsupported("flags other than i")
            self.i += len(m.group())
            inner = caseless or "i" in on
            if "i" in off:
                inner = False
            body = self.alt(caseless=inner)
        else:
            body = self.alt(caseless=caseless)
        self.close()
        return body

    def close(self) -> None:
        if not self.take(")"):
            raise Unsupported("an unclosed (")


def parse(pattern: str) -> "Alt":
    """The tree of ``pattern`` (an :class:`Unsupported` when it is outside the subset)."""
    return _Parser(pattern).parse()


@lru_cache(maxsize=1)
def everything_class() -> str:
    """Every code point, in order, as one string (lone surrogates included)."""
    return array("I", range(0x110000)).tobytes().decode(
        "utf-32-le" if sys.byteorder == "little" else "utf-32-be", "surrogatepass")


def nullable_atom(atom: Union[Cls, Char, CharSet, Look, End, Alt]) -> bool:
    if isinstance(atom, (Look, End)):
        return True
    if isinstance(atom, Alt):
        return any(all(item.lo == 0 or nullable_atom(item.atom) for item in seq) for seq in atom.seqs)
    return False
